/**
 * Issue 25 point 4: "Sign in" to an address where nothing answers (a closed port, or a NAS
 * that accepts connections and says nothing) opens no browser tab on a dead page: the window
 * says why in words beside the button. Chromium against browser mode, as the user sees it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore } from '../../main/api/core.js';
import type { Core } from '../../main/api/core-types.js';
import { silentLogger } from '../../main/log/logger.js';
import { noLoginItem } from '../../main/settings/autostart.js';
import { DEFAULT_SETTINGS, SettingsStore } from '../../main/settings/settings-store.js';
import { openStateDb } from '../../main/state/db.js';
import { ensureRenderer } from '../../main/ui-server/assets.js';
import { startUiServer, type UiServer } from '../../main/ui-server/ui-server.js';
import { launchChromium } from './harness.js';

const poll = <T>(fn: () => T | Promise<T>, timeout = 20_000) => expect.poll(fn, { timeout, interval: 50 });

let dir: string;
let profile: string;
let core: Core;
let server: UiServer;
let browser: BrowserContext;
/** Accepts connections and never answers (a NAS whose process hangs). */
let silent: Server;
const held = new Set<Socket>();
let silentUrl: string;

beforeAll(async () => {
  silent = createServer((s) => {
    held.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((res) => silent.listen(0, '127.0.0.1', res));
  silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  dir = mkdtempSync(join(tmpdir(), 'nm-dead-sign-in-'));
  const db = openStateDb(dir);
  new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: join(dir, 'mirror') }).update({
    source: 'url',
    location: 'http://127.0.0.1:9',
  });
  db.close();
  core = await startCore({
    dataDir: dir,
    log: silentLogger,
    noKeychain: true,
    loginItem: noLoginItem,
    desktop: { open: async () => undefined, reveal: async () => undefined },
  });
  server = await startUiServer({ handlers: core.handlers, events: core.events, assetsDir: await ensureRenderer(), log: silentLogger });
  profile = mkdtempSync(join(tmpdir(), 'nm-chromium-'));
  browser = await launchChromium(profile);
}, 120_000);
afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await server?.close();
  await core?.close();
  for (const s of held) s.destroy();
  await new Promise<void>((res) => silent?.close(() => res()));
  rmSync(dir, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
});

describe('Sign in where nothing answers', () => {
  it('a closed port, then a NAS that accepts and says nothing: no tab opened, the reason in words', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    const tabs = browser.pages().length;
    await page.getByRole('tab', { name: /^Settings/ }).click();
    await page.click('#sign-in');
    await poll(() => page.locator('#sign-in-state').textContent()).toBe(
      'The NAS does not answer at http://127.0.0.1:9 (nothing answers on that port): check the address and that the NAS is on. Its sign-in page was not opened.',
    );
    expect(browser.pages()).toHaveLength(tabs);

    await page.fill('#set-location', silentUrl);
    await page.click('#save-settings');
    await poll(() => page.locator('#settings-saved').textContent()).toBe('Saved.');
    await page.click('#sign-in');
    await poll(() => page.locator('#sign-in-state').textContent(), 15_000).toBe(
      `The NAS does not answer at ${silentUrl} (it accepts the connection but sends nothing back): check the address and that the NAS is on. Its sign-in page was not opened.`,
    );
    expect(browser.pages()).toHaveLength(tabs);
    await page.close();
  }, 60_000);
});
