/**
 * Runs `nas-mirror` in-process (main/cli/main.ts) as a terminal would, for tests: its exit
 * code and everything it printed. `token` goes in NAS_TOKEN; `stdin` is what is typed (none by
 * default); `onStdout` sees the output so far each time it grows (to act on a printed link).
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { promisify } from 'node:util';
import { main } from '../../main/cli/main.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export async function runCli(
  argv: readonly string[],
  opts: { token?: string; env?: Record<string, string>; stdin?: readonly (string | Buffer)[]; onStdout?: (soFar: string) => void } = {},
): Promise<CliRun> {
  let out = '',
    err = '';
  const sink = (f: (s: string) => void): Writable =>
    new Writable({
      write(c: Buffer, _e, cb) {
        f(c.toString());
        cb();
      },
    });
  const env = { ...(opts.token !== undefined ? { NAS_TOKEN: opts.token } : {}), ...opts.env };
  const code = await main(argv, {
    stdin: Readable.from(opts.stdin ?? []),
    stdout: sink((s) => {
      out += s;
      opts.onStdout?.(out);
    }),
    stderr: sink((s) => {
      err += s;
    }),
    env,
  });
  return { code, out, err };
}

/** Runs a bin of the repo (`nas-mirror.js`, `nas-service.js`) as its own process, as a user runs it: exit code and output. */
export async function runBin(bin: string, ...args: string[]): Promise<CliRun> {
  return runBinWith(bin, args);
}

/** `runBin` with more of the environment (`env`, added to this process's) and another current folder (default: the repo). */
export async function runBinWith(
  bin: string,
  args: readonly string[],
  opts: { env?: Record<string, string>; cwd?: string } = {},
): Promise<CliRun> {
  try {
    const r = await promisify(execFile)(process.execPath, [join(REPO, 'bin', bin), ...args], {
      cwd: opts.cwd ?? REPO,
      env: { ...process.env, ...opts.env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: x.code ?? 1, out: x.stdout ?? '', err: x.stderr ?? '' };
  }
}

const REPO = resolve(import.meta.dirname, '../..');
