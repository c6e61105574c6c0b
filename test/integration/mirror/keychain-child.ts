/**
 * Child process of keychain.test.ts: runs the keychain round trip and `nas-mirror login`
 * in whatever session it was started in, and prints one JSON line with what happened.
 */
import { openKeychain } from '../../../main/keychain/keychain.js';
import { runCli } from '../../support/run-cli.js';
import { resolveAuth, resolveToken } from '../../../main/cli/state.js';
import { candidatesOf } from '../../../main/connection/device.js';
import { ServiceClient } from '../../../main/client/service-client.js';
import { HttpTransport } from '../../../main/client/transport.js';
import { browserSignIn, startTestService } from '../../../server/testing.js';

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
const login = await runCli(['login', '--device', record, '--token-stdin'], { stdin: [Buffer.from('secret-token-xyz\n')] });
out['loginCode'] = login.code;
out['loginOut'] = login.out;
out['loginErr'] = login.err;
if (login.code === 0) {
  out['resolved'] = await resolveToken({}, undefined, candidatesOf(JSON.parse(record) as { network: { internalDNSName: string } }));
  await (await openKeychain()).delete('http://127.0.0.1:9');
}

// `nas-mirror login` with no token flag: the browser sign-in from a terminal.
if (kc.kind === 'os') {
  const svc = await startTestService({ tokenTtlSec: 60 });
  await svc.admin.setPassword('demo', 'pw');
  const rec = JSON.stringify({ network: { internalDNSName: svc.baseUrl } });
  let browser: Promise<unknown> | undefined;
  const browserLogin = await runCli(['login', '--device', rec], {
    onStdout: (soFar) => {
      const m = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(soFar);
      // The user opens the printed page, signs in, and the browser follows the redirect.
      if (m && !browser)
        browser = browserSignIn(m[1]!, 'demo', 'pw')
          .then((r) => fetch(r.location!))
          .then((r) => r.text());
    },
  });
  out['browserLoginCode'] = browserLogin.code;
  out['browserLoginOut'] = browserLogin.out;
  out['browserPage'] = await browser;
  const candidates = candidatesOf(JSON.parse(rec) as { network: { internalDNSName: string } });
  const stored = await (await openKeychain()).get(svc.baseUrl);
  out['storedKind'] = stored?.startsWith('oauth-refresh ') ? 'refresh' : 'other';
  const t = new HttpTransport();
  const auth = await resolveAuth({}, undefined, candidates, t);
  const client = new ServiceClient({ baseUrl: svc.baseUrl, token: auth.token, transport: auth.transport });
  out['listed'] = (await client.list('root')).files.length >= 0;
  out['rotatedInKeychain'] = (await (await openKeychain()).get(svc.baseUrl)) !== stored;
  client.close();
  await (await openKeychain()).delete(svc.baseUrl);
  await svc.stop();
}
process.stdout.write(JSON.stringify(out) + '\n');
