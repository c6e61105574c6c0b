/**
 * A sign-in that lasts, end to end against the real service: the app signs in through the
 * login page with a loopback redirect (the test plays the browser), then the engine syncs
 * local renames across several access-token lifetimes (`tokenTtlSec` of a few seconds)
 * with no user action and no failed change; a 401 renews once; a refused refresh (the
 * sign-in revoked on the NAS) ends in 'auth-error' with a plain reason and queued changes wait.
 */
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { browserSignIn, startTestService, type TestService } from '../../../server/testing.js';
import { authFor, decodeCredential, type ClientAuth } from '../../../main/auth/credential.js';
import { startSignIn } from '../../../main/auth/sign-in.js';
import { FaultTransport } from '../../../main/client/fault-transport.js';
import { HttpTransport } from '../../../main/client/transport.js';
import { connect } from '../../../main/connection/connect.js';
import { startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
let svc: TestService | undefined;
const transports: HttpTransport[] = [];
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  await svc?.stop();
  svc = undefined;
  for (const t of transports.splice(0)) t.close();
});

/** Signs in as the desktop app does; `stored` is the keychain (the last rotated refresh token). */
async function signedIn(s: TestService): Promise<{ auth: ClientAuth; keychain: string[] }> {
  const transport = new HttpTransport();
  transports.push(transport);
  const si = await startSignIn({ baseUrl: s.baseUrl, transport });
  expect(new URL(si.url).pathname).toBe('/oauth/authorize');
  const page = await browserSignIn(si.url, 'demo', 'pw for demo');
  expect(page.status).toBe(302);
  expect(page.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
  // The browser follows the redirect to the app's loopback receiver.
  const back = await fetch(page.location!);
  expect(await back.text()).toContain('NAS Mirror is signed in');
  const t = await si.done;
  const keychain: string[] = [];
  const auth = authFor(
    `oauth-refresh ${t.refreshToken}`,
    transport,
    async (v) => {
      keychain.push(v);
    },
    t,
  );
  return { auth, keychain };
}

const revoke = (s: TestService, token: string): Promise<Response> =>
  fetch(`${s.baseUrl}/oauth/revoke`, {
    method: 'POST',
    body: new URLSearchParams({ token }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

describe('sign-in that lasts', () => {
  it('survives the answer to a refresh being lost (the NAS rotated, the app never saw it)', async () => {
    svc = await startTestService({ tokenTtlSec: 3600 });
    await svc.admin.setPassword('demo', 'pw for demo');
    const s = svc;
    const http = new HttpTransport();
    transports.push(http);
    const si = await startSignIn({ baseUrl: s.baseUrl, transport: http });
    await fetch((await browserSignIn(si.url, 'demo', 'pw for demo')).location!);
    const t = await si.done;
    let lose = true;
    const faults = new FaultTransport(http, (req) =>
      lose && req.url.endsWith('/oauth/token') ? ((lose = false), { kind: 'reset-after' }) : undefined,
    );
    const kept: string[] = [];
    const auth = authFor(`oauth-refresh ${t.refreshToken}`, faults, async (v) => {
      kept.push(v);
    });
    await expect(auth.signedIn!.current(s.baseUrl)).rejects.toMatchObject({ code: 'NetworkError' });
    const access = await auth.signedIn!.current(s.baseUrl);
    expect((await fetch(`${s.baseUrl}/sdk/v2/files/root`, { headers: { authorization: `Bearer ${access}` } })).status).toBe(200);
    expect(auth.signedIn!.refusedReason).toBeUndefined();
    expect(kept).toHaveLength(1);
  });

  it('syncs local renames over several token lifetimes with no user action and no failed change', async () => {
    const TTL = 3;
    svc = await startTestService({ tokenTtlSec: TTL });
    await svc.admin.setPassword('demo', 'pw for demo');
    const { auth, keychain } = await signedIn(svc);
    const ids: string[] = [];
    rig = await startRig(
      (s, root) => {
        const d = s.admin.createFolder(root, 'Docs').id;
        for (let i = 0; i < 40; i++) ids.push(s.admin.createFile(d, `f${i}.txt`).id);
      },
      { rewalkMs: 1000 },
      svc,
      auth.transport,
    );
    const r = rig;
    const states = new Set<string>();
    r.engine.events.on('status', (s) => states.add(s.state));
    const t0 = Date.now();
    let n = 0;
    const names = ids.map((_, i) => `f${i}.txt`);
    // One rename after another until four lifetimes passed: reads (re-walks) and patches
    // keep going while access tokens expire under them.
    while (Date.now() - t0 < 4 * TTL * 1000 + 500) {
      const k = n % ids.length;
      const id = ids[k]!;
      const want = `renamed-${n}.txt`;
      renameSync(join(r.mirror, 'Docs', names[k]!), join(r.mirror, 'Docs', want));
      names[k] = want;
      await waitFor(() => r.svc.admin.get(id)?.name === want, `rename ${n} on the NAS`);
      n++;
    }
    await r.engine.drainOutbox();
    const st = r.engine.status();
    expect(n).toBeGreaterThan(3);
    expect(st.conflicts).toBe(0);
    expect(st.outbox.pending).toBe(0);
    expect(st.state).not.toBe('auth-error');
    expect(states.has('auth-error')).toBe(false);
    expect(auth.signedIn!.refreshes).toBeGreaterThanOrEqual(3);
    // Every rotated refresh token went to the keychain, the newest last.
    expect(keychain.length).toBe(auth.signedIn!.refreshes);
    expect(new Set(keychain).size).toBe(keychain.length);
    expect(decodeCredential(keychain.at(-1)!).kind).toBe('refresh');
  }, 120_000);

  it('renews once after a 401, and a refused refresh asks the user (auth-error, plain reason) while changes wait', async () => {
    svc = await startTestService({ tokenTtlSec: 3600 });
    await svc.admin.setPassword('demo', 'pw for demo');
    const { auth, keychain } = await signedIn(svc);
    let a = '';
    let b = '';
    rig = await startRig(
      (s, root) => {
        a = s.admin.createFile(root, 'a.txt').id;
        b = s.admin.createFile(root, 'b.txt').id;
      },
      {},
      svc,
      auth.transport,
    );
    const r = rig;
    const s = svc;
    // The NAS forgets the access token (e.g. restored from a backup): one 401, one renewal, no failure.
    const access = await auth.signedIn!.current(s.baseUrl);
    expect((await revoke(s, access)).status).toBe(200);
    renameSync(join(r.mirror, 'a.txt'), join(r.mirror, 'a2.txt'));
    await waitFor(() => s.admin.get(a)?.name === 'a2.txt', 'rename after a 401');
    expect((auth.transport as { retriedAfter401?: number }).retriedAfter401).toBeGreaterThanOrEqual(1);
    expect(r.engine.status().state).not.toBe('auth-error');
    // The user signs this app out on the NAS: the refresh is refused, the user is asked.
    const refresh = decodeCredential(keychain.at(-1)!);
    expect(refresh.kind).toBe('refresh');
    expect((await revoke(s, (refresh as { refreshToken: string }).refreshToken)).status).toBe(200);
    renameSync(join(r.mirror, 'b.txt'), join(r.mirror, 'b2.txt'));
    await waitFor(() => r.engine.status().state === 'auth-error', 'auth-error');
    expect(r.engine.status().error?.message).toMatch(/sign in again/);
    expect(auth.signedIn!.refusedReason).toBeDefined();
    expect(s.admin.get(b)?.name).toBe('b.txt');
    expect(r.engine.status().outbox.pending).toBe(1);
    // A new session (app restart) with this sign-in says auth-error too, not "the NAS does not answer".
    const two = [
      { via: 'lan' as const, baseUrl: 'http://127.0.0.1:9' },
      { via: 'proxy' as const, baseUrl: s.baseUrl },
    ];
    await expect(connect(two, auth.transport, '')).rejects.toMatchObject({
      code: 'Unauthorized',
      message: expect.stringMatching(/sign in again/),
    });
  }, 60_000);
});
