/**
 * What a command gets: its parsed arguments (by its definition in specs.ts), output streams,
 * environment and stdin, so commands are testable in-process. Exit codes: 0 done, 1 failed,
 * 2 usage error.
 */
import type { Args } from '../../app/cli/args.js';
import type { CommandSpec } from '../../app/cli/command-spec.js';

export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export type Command<O extends string = string> = (args: Args<O>, io: CliIO) => Promise<number>;

/** The command of a definition: `export const run: CommandOf<typeof specs.search> = ...`. */
export type CommandOf<S> = S extends CommandSpec<infer O> ? Command<O> : never;

export const EXIT_OK = 0;
export const EXIT_FAIL = 1;
export const EXIT_USAGE = 2;

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
