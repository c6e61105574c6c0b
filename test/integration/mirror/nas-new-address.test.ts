/**
 * Issue 25 point 1: the NAS got a new address (another IP or port, the same device). Settings
 * recognises it by its identity (the mirrored root), never by its URL: the new address is
 * taken, the mirror and the sign-in are kept, one line in Activity. Another NAS is still
 * refused, and an address that does not answer is said in words. The app core runs against
 * the real service; the "new address" is a TCP forwarder on another port to the same service.
 * A device record edited to the new address is re-read at the next session and recognised the
 * same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCore } from '../../../main/api/core.js';
import type { Core } from '../../../main/api/core-types.js';
import { silentLogger } from '../../../main/log/logger.js';
import { noLoginItem } from '../../../main/settings/autostart.js';
import { DEFAULT_SETTINGS, SettingsStore } from '../../../main/settings/settings-store.js';
import { openStateDb } from '../../../main/state/db.js';
import { startTestService, type TestService } from '../../../server/testing.js';
import { waitFor } from '../../support/wait.js';

/** Forwards a new port to `target` (the same NAS reached at another address). */
async function forwarder(target: URL): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((a) => {
    const b = connect(Number(target.port), target.hostname);
    for (const s of [a, b]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    a.pipe(b).pipe(a);
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((res) => {
        for (const s of sockets) s.destroy();
        server.close(() => res());
      }),
  };
}

let svc: TestService;
let other: TestService;
let dir: string;
let core: Core;
beforeAll(async () => {
  svc = await startTestService({ demo: { objects: 40, seed: 4 } });
  other = await startTestService({ demo: { objects: 10, seed: 5 } });
  dir = mkdtempSync(join(tmpdir(), 'nm-new-address-'));
  const db = openStateDb(dir);
  new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: join(dir, 'mirror') }).update({ source: 'url', location: svc.baseUrl });
  db.close();
  core = await startCore({
    dataDir: dir,
    log: silentLogger,
    noKeychain: true,
    loginItem: noLoginItem,
    desktop: { open: async () => undefined, reveal: async () => undefined },
  });
  await core.handlers.setToken({ token: svc.token() });
  await waitFor(async () => (await core.handlers.status({})).lastCompleteWalk !== null, 'first walk', 60_000, 100);
});
afterAll(async () => {
  await core?.close();
  await svc?.stop();
  await other?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the NAS at a new address', () => {
  it('another NAS is still refused; an address that does not answer is said in words', async () => {
    await expect(core.handlers.updateSettings({ patch: { location: other.baseUrl } })).rejects.toThrow(/belongs to another NAS/);
    await expect(core.handlers.updateSettings({ patch: { location: 'http://127.0.0.1:9' } })).rejects.toThrow(
      'http://127.0.0.1:9 does not answer (nothing answers on that port): nothing was changed; check the address',
    );
    expect((await core.handlers.getSettings({})).location).toBe(svc.baseUrl);
  });

  it('the same NAS at another port is recognised by its root: the mirror and the sign-in kept, one line in Activity', async () => {
    const fwd = await forwarder(new URL(svc.baseUrl));
    try {
      const before = (await core.handlers.status({})).indexed;
      const s = await core.handlers.updateSettings({ patch: { location: fwd.url } });
      expect(s).toMatchObject({ location: fwd.url, token: 'memory' });
      await waitFor(
        async () => {
          const st = await core.handlers.status({});
          return st.connection === 'online' && st.endpoint === fwd.url;
        },
        'online at the new address',
        30_000,
        100,
      );
      expect((await core.handlers.status({})).indexed).toBe(before);
      const lines = (await core.handlers.activity({ limit: 50 })).entries.filter((e) => e.kind === 'nas-moved');
      expect(lines).toHaveLength(1);
      expect(lines[0]!.summary).toBe(`The NAS is now at ${fwd.url}`);
    } finally {
      await core.handlers.updateSettings({ patch: { location: svc.baseUrl } }).catch(() => undefined);
      await fwd.close();
    }
  }, 60_000);
});

describe("a device record edited to the NAS's new address", () => {
  it('is re-read at the next session: the same NAS recognised by its root, the sign-in kept, one line in Activity', async () => {
    const base = mkdtempSync(join(tmpdir(), 'nm-device-moved-'));
    const device = join(base, 'device.json');
    const record = (url: string): void => writeFileSync(device, JSON.stringify({ network: { internalDNSName: new URL(url).host } }));
    record(svc.baseUrl);
    const db = openStateDb(base);
    new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: join(base, 'mirror') }).update({
      source: 'device-record',
      location: device,
    });
    db.close();
    const c = await startCore({
      dataDir: base,
      log: silentLogger,
      noKeychain: true,
      loginItem: noLoginItem,
      desktop: { open: async () => undefined, reveal: async () => undefined },
    });
    const fwd = await forwarder(new URL(svc.baseUrl));
    try {
      await c.handlers.setToken({ token: svc.token() });
      await waitFor(async () => (await c.handlers.status({})).lastCompleteWalk !== null, 'first walk', 60_000, 100);
      record(fwd.url);
      // anything that starts a new session re-reads the record (here: another sync interval)
      await c.handlers.updateSettings({ patch: { syncIntervalSec: 600 } });
      await waitFor(
        async () => {
          const st = await c.handlers.status({});
          return st.connection === 'online' && st.endpoint === fwd.url;
        },
        'online at the edited address',
        30_000,
        100,
      );
      const lines = (await c.handlers.activity({ limit: 50 })).entries.filter((e) => e.kind === 'nas-moved');
      expect(lines.map((e) => e.summary)).toEqual([`The NAS is now at ${fwd.url}`]);
    } finally {
      await c.close();
      await fwd.close();
      rmSync(base, { recursive: true, force: true });
    }
  }, 60_000);
});
