/**
 * The LAN address dying mid-session while the relay (a proxy URL that carries a path)
 * works, and coming back: the client re-checks its choice on errors and periodically, says
 * which address it uses, and sync and the sign-in (token renewal included) carry on
 * through the relay. Against the real service with the `lan-flap` quirk.
 */
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { browserSignIn, startTestService, type TestService } from '../../../server/testing.js';
import { authFor } from '../../../main/auth/credential.js';
import { startSignIn } from '../../../main/auth/sign-in.js';
import { HttpTransport } from '../../../main/client/transport.js';
import { connect, type Connection } from '../../../main/connection/connect.js';
import { candidatesOf } from '../../../main/connection/device.js';
import { FailoverTransport } from '../../../main/connection/failover.js';
import { startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
let svc: TestService | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  await svc?.stop();
  svc = undefined;
});

describe('LAN down, relay up, and back', () => {
  it('follows the address that works, with the sign-in renewed through the relay', async () => {
    svc = await startTestService({ quirks: 'lan-flap', tokenTtlSec: 2 });
    const s = svc;
    await s.admin.setPassword('demo', 'pw');
    const relay = s.quirks!.relayUrl!;
    expect(new URL(relay).pathname).toMatch(/^\/relay\/.+/);
    const candidates = candidatesOf({ network: { internalDNSName: s.baseUrl, proxyURL: relay } });
    const http = new HttpTransport();
    // Sign in through the relay: the login page and the token endpoint live under its path.
    const si = await startSignIn({ baseUrl: relay, transport: http });
    const page = await browserSignIn(si.url, 'demo', 'pw');
    await fetch(page.location!);
    const auth = authFor(`oauth-refresh ${(await si.done).refreshToken}`, http, async () => undefined);
    const conn = await connect(candidates, auth.transport, auth.token);
    expect(conn.via).toBe('lan');
    const switched: Connection[] = [];
    const failover = new FailoverTransport(auth.transport, conn.baseUrl, conn, 'lan', {
      recheck: () => connect(candidates, auth.transport, auth.token, { lanTimeoutMs: 500 }),
      periodMs: 300,
      onSwitch: (c) => switched.push(c),
    });
    const ids: string[] = [];
    rig = await startRig(
      (x, root) => {
        for (let i = 0; i < 3; i++) ids.push(x.admin.createFile(root, `f${i}.txt`).id);
      },
      {},
      s,
      failover,
    );
    const r = rig;

    await s.quirks!.lanDown!();
    renameSync(join(r.mirror, 'f0.txt'), join(r.mirror, 'g0.txt'));
    await waitFor(() => s.admin.get(ids[0]!)?.name === 'g0.txt', 'rename through the relay');
    expect(failover.connection.via).toBe('proxy');
    expect(switched.at(-1)?.description).toBe(`using the proxy URL ${relay}`);
    // Long enough on the relay for the access token to be renewed there.
    const before = auth.signedIn!.refreshes;
    await waitFor(async () => {
      await r.engine.syncNow();
      return auth.signedIn!.refreshes > before;
    }, 'token renewed through the relay');

    await s.quirks!.lanUp!();
    await waitFor(() => failover.connection.via === 'lan', 'back on the LAN');
    expect(switched.at(-1)?.description).toBe(`using the LAN address ${s.baseUrl}`);
    renameSync(join(r.mirror, 'f1.txt'), join(r.mirror, 'g1.txt'));
    await waitFor(() => s.admin.get(ids[1]!)?.name === 'g1.txt', 'rename on the LAN again');
    await r.engine.drainOutbox();
    expect(r.engine.status().conflicts).toBe(0);
    expect(r.engine.status().outbox.pending).toBe(0);
    expect(r.engine.status().state).not.toBe('auth-error');
  }, 60_000);
});
