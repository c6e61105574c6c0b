/**
 * End-to-end rig: the REAL reference service (in-process, 127.0.0.1, port 0, demo library),
 * the real engine core on a temp data folder with a real mirror folder, the browser-mode UI
 * server, and Debian's Chromium driven by playwright-core (never a downloaded browser).
 * Only the desktop's "open/reveal" is recorded instead of launching a file manager.
 */
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { startCore } from '../../main/api/core.js';
import type { Core } from '../../main/api/core-types.js';
import { silentLogger } from '../../main/log/logger.js';
import { noLoginItem } from '../../main/settings/autostart.js';
import { SettingsStore, DEFAULT_SETTINGS } from '../../main/settings/settings-store.js';
import { openStateDb } from '../../main/state/db.js';
import { ensureRenderer } from '../../main/ui-server/assets.js';
import { startUiServer, type UiServer } from '../../main/ui-server/ui-server.js';
import { startTestService, type TestService } from '../../server/testing.js';
import { waitFor } from '../support/wait.js';

export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'e2e');

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface App {
  core: Core;
  server: UiServer;
  opened: { what: 'open' | 'reveal'; path: string }[];
  close(): Promise<void>;
}

export interface Rig {
  svc: TestService;
  token: string;
  dataDir: string;
  mirror: string;
  browser: BrowserContext;
  userDataDir: string;
  app: App;
  /** Starts core + UI server on the data folder (after a close, to test a restart). */
  startApp(): Promise<App>;
  newPage(opts?: { colorScheme?: 'light' | 'dark' }): Promise<Page>;
  close(): Promise<void>;
}

/** The app's core on `dataDir` as a test starts it: no keychain, no login item, a desktop that opens nothing. */
export function quietCore(
  dataDir: string,
  more: Omit<Parameters<typeof startCore>[0], 'dataDir' | 'log' | 'loginItem' | 'desktop'> = {},
): Promise<Core> {
  return startCore({
    dataDir,
    log: silentLogger,
    noKeychain: true,
    loginItem: noLoginItem,
    desktop: { open: async () => undefined, reveal: async () => undefined },
    ...more,
  });
}

/** Debian's Chromium with a fresh profile folder (never a downloaded browser). */
export async function launchChromium(userDataDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1180, height: 780 },
    deviceScaleFactor: 1,
    colorScheme: 'light',
  });
}

/** `quirks` (and `latencyMs` for `latency`): the service behaves like a real device (server/quirks/quirks.ts). */
export async function startRig(opts: { objects?: number; tokenTtlSec?: number; quirks?: string; latencyMs?: number } = {}): Promise<Rig> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const svc = await startTestService({
    demo: { objects: opts.objects ?? 400, seed: 7 },
    ...(opts.tokenTtlSec ? { tokenTtlSec: opts.tokenTtlSec } : {}),
    ...(opts.quirks ? { quirks: opts.quirks, latencyMs: opts.latencyMs } : {}),
  });
  const token = svc.token();
  const dataDir = mkdtempSync(join(tmpdir(), 'nm-e2e-'));
  const mirror = join(dataDir, 'mirror');
  // A first run that chose "NAS base URL" but has no address yet (the default would start
  // the embedded demo NAS); the first test enters the address and the token in the window.
  const db = openStateDb(dataDir);
  new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: mirror }).update({
    source: 'url',
    location: '',
    mirrorFolder: mirror,
    deleteThresholdCount: 5,
  });
  db.close();
  const assetsDir = await ensureRenderer();
  const userDataDir = mkdtempSync(join(tmpdir(), 'nm-chromium-'));
  const browser = await launchChromium(userDataDir);

  const startApp = async (): Promise<App> => {
    const opened: App['opened'] = [];
    const core = await startCore({
      dataDir,
      log: silentLogger,
      noKeychain: true,
      loginItem: noLoginItem,
      desktop: {
        open: async (p) => {
          opened.push({ what: 'open', path: p });
        },
        reveal: async (p) => {
          opened.push({ what: 'reveal', path: p });
        },
      },
      engine: { holdMs: 300, requestPollMs: 200 },
    });
    const server = await startUiServer({ handlers: core.handlers, events: core.events, assetsDir, log: silentLogger });
    return {
      core,
      server,
      opened,
      async close() {
        await server.close();
        await core.close();
      },
    };
  };

  const rig: Rig = {
    svc,
    token,
    dataDir,
    mirror,
    browser,
    userDataDir,
    app: await startApp(),
    startApp,
    async newPage(o = {}) {
      const page = await browser.newPage();
      await page.emulateMedia({ colorScheme: o.colorScheme ?? 'light' });
      await page.goto(rig.app.server.url);
      return page;
    },
    async close() {
      await browser.close().catch(() => undefined);
      await rig.app.close().catch(() => undefined);
      await svc.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
  return rig;
}

/** Polls until `fn` is true (test/support/wait.ts, every 100 ms here: the window is slower to poll). */
export const until = (fn: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> => waitFor(fn, what, ms, 100);

/** The service's own answer to a text search, over HTTP. */
export async function serviceSearch(
  svc: TestService,
  token: string,
  q: string,
  limit = 50,
): Promise<{
  matches: { file: { id: string; name: string }; fragments: { text: string; locations: { index: number; length: number }[] }[] }[];
}> {
  const res = await fetch(`${svc.baseUrl}/sdk/v2/filesSearch/text?q=${encodeURIComponent(q)}&limit=${limit}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) throw new Error(`service search answered ${res.status}`);
  return (await res.json()) as never;
}

export async function servicePatch(svc: TestService, token: string, id: string, body: Record<string, unknown>): Promise<number> {
  const res = await fetch(`${svc.baseUrl}/sdk/v2/files/${encodeURIComponent(id)}/patch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.status;
}

/** A rig whose app is connected to its own service, its first walk done, and a page on its window. */
export async function connectedRig(): Promise<{ rig: Rig; page: Page }> {
  const rig = await startRig();
  await rig.app.core.handlers.updateSettings({ patch: { location: rig.svc.baseUrl } });
  await rig.app.core.handlers.setToken({ token: rig.token });
  await until(async () => (await rig.app.core.handlers.status({})).lastCompleteWalk !== null, 'first walk', 60_000);
  return { rig, page: await rig.newPage() };
}

/** One connected rig for the tests of a file: started before them (`connectedRig`), closed after; read `rig` and `page` inside a test. */
export function connectedRigForFile(): { readonly rig: Rig; readonly page: Page } {
  const held: { rig?: Rig; page?: Page } = {};
  beforeAll(async () => {
    Object.assign(held, await connectedRig());
  }, 120_000);
  afterAll(async () => {
    await held.rig?.close();
  });
  return {
    get rig(): Rig {
      return held.rig!;
    },
    get page(): Page {
      return held.page!;
    },
  };
}

/** A file's size on disk, -1 when there is none. */
export function sizeOf(p: string): number {
  try {
    return statSync(p).size;
  } catch {
    return -1;
  }
}

/**
 * The same NAS at another address: a TCP forwarder from a port of its own to `target` (as a
 * router's port forward would be). `stop()` closes it (nothing answers there: the NAS is
 * unreachable), `start()` opens it again on the same port.
 */
export interface Forwarder {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}
export async function forwarder(target: string): Promise<Forwarder> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const start = async (): Promise<void> => {
    const s = createServer((a) => {
      const b = connect(Number(to.port), to.hostname);
      for (const x of [a, b]) {
        sockets.add(x);
        x.on('error', () => undefined);
        x.on('close', () => sockets.delete(x));
      }
      a.pipe(b).pipe(a);
    });
    await new Promise<void>((res) => s.listen(port, '127.0.0.1', res));
    port = (s.address() as { port: number }).port;
    server = s;
  };
  await start();
  return {
    url: `http://127.0.0.1:${port}`,
    start,
    stop: () =>
      new Promise<void>((res) => {
        for (const x of sockets) x.destroy();
        if (!server) return res();
        server.close(() => res());
        server = null;
      }),
  };
}
