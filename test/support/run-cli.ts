/**
 * Runs `nas-mirror` in-process (main/cli/main.ts) as a terminal would, for tests: its exit
 * code and everything it printed. `token` goes in NAS_TOKEN; `stdin` is what is typed (none by
 * default); `onStdout` sees the output so far each time it grows (to act on a printed link).
 */
import { Readable, Writable } from 'node:stream';
import { main } from '../../main/cli/main.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export async function runCli(argv: readonly string[], opts: { token?: string; env?: Record<string, string>; stdin?: readonly (string | Buffer)[]; onStdout?: (soFar: string) => void } = {}): Promise<CliRun> {
  let out = '', err = '';
  const sink = (f: (s: string) => void): Writable => new Writable({ write(c: Buffer, _e, cb) { f(c.toString()); cb(); } });
  const env = { ...(opts.token !== undefined ? { NAS_TOKEN: opts.token } : {}), ...opts.env };
  const code = await main(argv, {
    stdin: Readable.from(opts.stdin ?? []),
    stdout: sink((s) => { out += s; opts.onStdout?.(out); }),
    stderr: sink((s) => { err += s; }),
    env,
  });
  return { code, out, err };
}
