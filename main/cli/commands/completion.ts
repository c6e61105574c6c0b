/**
 * `nas-mirror completion bash|zsh`: prints the shell completion script, generated from the
 * same definitions as --help (specs.ts, app/cli/completion.ts).
 */
import { completionScript, SHELLS } from '../../../app/cli/completion.js';
import { UsageError } from '../args.js';
import type { CommandOf } from '../io.js';
import { MIRROR_PROGRAM, type completion as spec } from '../specs.js';

export const run: CommandOf<typeof spec> = async (args, io) => {
  const shell = SHELLS.find((s) => s === args.positionals[0]);
  if (shell === undefined)
    throw new UsageError(`no completion for "${args.positionals[0] ?? ''}": give ${SHELLS.join(' or ')}`, 'BadValue');
  io.stdout.write(completionScript(MIRROR_PROGRAM, shell));
  return 0;
};
