/**
 * The command line's parser: Node's `util.parseArgs` reads the words, the command's definition
 * (specs.ts, app/cli/) says what they mean. Unknown options, a valued option without its value
 * and a wrong number of arguments are usage errors (exit 2), never ignored.
 */
import { parseArgs } from 'node:util';
import { interpret, parseArgsOptions, type ArgToken, type Args } from '../../app/cli/args.js';
import type { CommandSpec } from '../../app/cli/command-spec.js';

export { UsageError } from '../../app/cli/command-spec.js';
export type { Args } from '../../app/cli/args.js';
export { wantsHelp } from '../../app/cli/args.js';

/** The words as tokens: never throws (strict mode is ours, in `interpret`). */
export function tokensOf(spec: CommandSpec, argv: readonly string[]): ArgToken[] {
  return parseArgs({ args: [...argv], options: parseArgsOptions(spec), strict: false, allowPositionals: true, tokens: true }).tokens;
}

export function parseCommand<O extends string>(spec: CommandSpec<O>, argv: readonly string[]): Args<O> {
  return interpret(spec, tokensOf(spec, argv));
}
