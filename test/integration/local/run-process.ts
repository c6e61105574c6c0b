/**
 * A real `nas-mirror run` child process against a test service (the kill -9 and restart
 * tests): its stderr collected (JSON log lines, `--log-json`, as the harnesses read them), its exit awaited.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { TestService } from '../../../server/testing.js';

export const ROOT = resolve(import.meta.dirname, '../../..');

export interface RunProcess {
  child: ChildProcess;
  exit: Promise<number | null>;
  /** Everything written to stderr so far. */
  err: () => string;
}

export function startRunProcess(
  svc: Pick<TestService, 'baseUrl' | 'token'>,
  state: string,
  mirror: string,
  extra: string[] = [],
): RunProcess {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin/nas-mirror.js'),
      'run',
      '--device',
      svc.baseUrl,
      '--state',
      state,
      '--dir',
      mirror,
      '--token-env',
      'NAS_TOKEN',
      '--hold-ms',
      '300',
      '--log-json',
      ...extra,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, NAS_TOKEN: svc.token() },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  child.stdout!.on('data', () => undefined);
  const exit = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  return { child, exit, err: () => err };
}
