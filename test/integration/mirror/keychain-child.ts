/**
 * Child process of keychain.test.ts: runs the keychain round trip and `nas-mirror login`
 * in whatever session it was started in, and prints one JSON line with what happened.
 */
import { Readable, Writable } from 'node:stream';
import { openKeychain } from '../../../main/keychain/keychain.js';
import { main } from '../../../main/cli/main.js';
import { resolveToken } from '../../../main/cli/state.js';
import { candidatesOf } from '../../../main/connection/device.js';

const out: Record<string, unknown> = {};
const kc = await openKeychain();
out['kind'] = kc.kind;
out['reason'] = kc.reason;
if (kc.kind === 'os') {
  await kc.set('acct', 'tok-123');
  out['got'] = await kc.get('acct');
  out['deleted'] = await kc.delete('acct');
  out['after'] = (await kc.get('acct')) ?? null;
}
const record = JSON.stringify({ network: { internalDNSName: 'http://127.0.0.1:9', proxyURL: 'http://127.0.0.1:9' } });
let stderr = '';
let stdout = '';
const sink = (f: (s: string) => void): Writable => new Writable({ write(c: Buffer, _e, cb) { f(c.toString()); cb(); } });
const code = await main(['login', '--device', record, '--token-stdin'], {
  stdin: Readable.from([Buffer.from('secret-token-xyz\n')]),
  stdout: sink((s) => { stdout += s; }),
  stderr: sink((s) => { stderr += s; }),
  env: {},
});
out['loginCode'] = code;
out['loginOut'] = stdout;
out['loginErr'] = stderr;
if (code === 0) {
  out['resolved'] = await resolveToken({}, undefined, candidatesOf(JSON.parse(record) as { network: { internalDNSName: string } }));
  await (await openKeychain()).delete('http://127.0.0.1:9');
}
process.stdout.write(JSON.stringify(out) + '\n');
