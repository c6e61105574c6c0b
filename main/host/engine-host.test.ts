/**
 * The engine in its own process, for real: the reference service on 127.0.0.1, the engine
 * forked (main/host/engine-entry.ts), the browser-mode UI server in this process. A contract
 * call and an event cross the port; the credential is read from this process's keychain on
 * the engine's request; a killed engine process is reported and started again; close waits
 * for the clean stop.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../server/testing.js';
import type { AppStatus } from '../../app/contract/shapes.js';
import type { Keychain } from '../keychain/keychain.js';
import { silentLogger } from '../log/logger.js';
import { noLoginItem } from '../settings/autostart.js';
import { DEFAULT_SETTINGS, SettingsStore } from '../settings/settings-store.js';
import { openStateDb } from '../state/db.js';
import { ensureRenderer } from '../ui-server/assets.js';
import { startUiServer, type UiServer } from '../ui-server/ui-server.js';
import { hostEngine, type HostedCore } from './engine-client.js';
import { forkEngine } from './node-port.js';
import { ENGINE_NICE } from './engine-env.js';
import { waitFor } from '../../test/support/wait.js';

const until = (fn: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> => waitFor(fn, what, ms, 50);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let svc: TestService;
let dataDir: string;
let core: HostedCore;
let ui: UiServer;
const reads: string[] = [];
const opened: string[] = [];
const statuses: AppStatus[] = [];
const notices: string[] = [];

beforeAll(async () => {
  svc = await startTestService({ demo: { objects: 300, seed: 3 } });
  dataDir = mkdtempSync(join(tmpdir(), 'nm-host-'));
  const db = openStateDb(dataDir);
  new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: join(dataDir, 'mirror') }).update({
    source: 'url',
    location: svc.baseUrl,
    mirrorFolder: join(dataDir, 'mirror'),
  });
  db.close();
  // This process's keychain (an OS keychain's behaviour, in memory): the engine must ask for it.
  const tokens = new Map([[svc.baseUrl, svc.token()]]);
  const keychain: Keychain = {
    kind: 'os',
    get: async (a) => {
      reads.push(a);
      return tokens.get(a);
    },
    set: async (a, t) => {
      tokens.set(a, t);
    },
    delete: async (a) => tokens.delete(a),
  };
  core = await hostEngine({
    spawn: forkEngine(),
    start: { dataDir, engine: { holdMs: 300, requestPollMs: 200 }, logLevel: 'error' },
    keychain,
    loginItem: noLoginItem,
    log: silentLogger,
    backoff: { firstMs: 200, maxMs: 1000 },
    desktop: {
      open: async (p) => {
        opened.push(p);
      },
      reveal: async () => undefined,
    },
  });
  core.events.subscribe((event, payload) => {
    if (event === 'status') statuses.push(payload as AppStatus);
    if (event === 'notice') notices.push((payload as { message: string }).message);
  });
  ui = await startUiServer({ handlers: core.handlers, events: core.events, assetsDir: await ensureRenderer(), log: silentLogger });
}, 120_000);

afterAll(async () => {
  await ui?.close();
  await core?.close();
  await svc?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const post = async (
  method: string,
  args: unknown,
): Promise<{ ok: boolean; result?: Record<string, unknown>; error?: { code: string } }> => {
  const res = await fetch(`${ui.url}api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  return (await res.json()) as never;
};

describe('the engine in its own process', () => {
  it('runs in another process than the UI server, and gets its credential from this one', async () => {
    const pid = core.enginePid();
    expect(pid).toBeTypeOf('number');
    expect(pid).not.toBe(process.pid);
    expect(alive(pid!)).toBe(true);
    // glibc keeps two malloc arenas in it, not one per thread, and gives big freed blocks back
    // (engine-env.ts), unless the user chose
    if (process.platform === 'linux') {
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      expect(env).toContain(`MALLOC_ARENA_MAX=${process.env['MALLOC_ARENA_MAX'] ?? '2'}`);
      expect(env).toContain(`MALLOC_MMAP_THRESHOLD_=${process.env['MALLOC_MMAP_THRESHOLD_'] ?? '131072'}`);
      // background work: it runs at a lower CPU priority than this process (engine-env.ts)
      const nice = (p: number): number => Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
      expect(nice(pid!)).toBe(Math.max(nice(process.pid), ENGINE_NICE));
    }
    await until(() => core.status().lastCompleteWalk !== null, 'the first walk');
    expect(reads).toContain(svc.baseUrl);
    const settings = await post('getSettings', {});
    expect(settings.ok).toBe(true);
    expect(settings.result?.['token']).toBe('keychain');
    expect(JSON.stringify(settings)).not.toContain(svc.token());
  }, 120_000);

  it('carries a contract call through the UI server and the port, an event back, and a desktop request up', async () => {
    const status = await post('status', {});
    expect(status.ok).toBe(true);
    expect(status.result?.['indexed']).toBe(core.status().indexed);
    const found = await post('search', { q: 'a', limit: 5 });
    expect(found.ok).toBe(true);
    const bad = await post('search', { q: '' });
    expect(bad.error?.code).toBe('BadRequest');
    const n = statuses.length;
    await core.handlers.setPaused({ paused: true });
    await until(() => statuses.slice(n).some((s) => s.paused), 'a status event saying paused');
    expect(core.status().paused).toBe(true);
    await core.handlers.setPaused({ paused: false });
    await core.handlers.openMirrorFolder({});
    expect(opened).toEqual([join(dataDir, 'mirror')]);
  }, 60_000);

  it('reports a killed engine process and starts it again, losing nothing', async () => {
    const before = core.enginePid()!;
    const indexed = core.status().indexed;
    process.kill(before, 'SIGKILL');
    await until(() => core.status().error?.message.includes('stopped unexpectedly') ?? false, 'the crash in the status');
    expect(notices.some((m) => m.includes('stopped unexpectedly'))).toBe(true);
    expect((await post('status', {})).ok).toBe(false); // refused at once while it restarts, never hangs
    await until(() => core.enginePid() !== undefined, 'the engine started again');
    expect(core.enginePid()).not.toBe(before);
    expect(core.restarts()).toBe(1);
    const again = await post('status', {});
    expect(again.ok).toBe(true);
    expect(again.result?.['indexed']).toBe(indexed);
  }, 60_000);

  it('closes only after the engine process stopped cleanly', async () => {
    const pid = core.enginePid()!;
    await ui.close();
    await core.close();
    expect(alive(pid)).toBe(false);
    await expect(core.handlers.status({})).rejects.toThrow(/closing/);
  }, 60_000);
});
