/** Runs `nas-mirror` in-process with the given token in NAS_TOKEN: exit code, stdout, stderr. */
import { Readable, Writable } from 'node:stream';
import { main } from '../../main/cli/main.js';

export async function runCli(token: string, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const sink = (f: (s: string) => void): Writable => new Writable({ write(c: Buffer, _e, cb) { f(c.toString()); cb(); } });
  const code = await main(argv, { stdin: Readable.from([]), stdout: sink((s) => { out += s; }), stderr: sink((s) => { err += s; }), env: { NAS_TOKEN: token } });
  return { code, out, err };
}
