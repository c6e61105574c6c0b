/**
 * The window while its engine runs in another process (browser mode as `nas-mirror ui` and
 * `npm start` run it): the real service, the engine forked (main/host), the UI server in
 * this process, Debian's Chromium. Killing the engine process shows in the window (offline,
 * a toast saying it restarts), and the window is back online with the same mirror after it
 * started again, without a reload.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostEngine, type HostedCore } from '../../main/host/engine-client.js';
import { forkEngine } from '../../main/host/node-port.js';
import { MemoryKeychain } from '../../main/keychain/keychain.js';
import { silentLogger } from '../../main/log/logger.js';
import { noLoginItem } from '../../main/settings/autostart.js';
import { ensureRenderer } from '../../main/ui-server/assets.js';
import { startUiServer, type UiServer } from '../../main/ui-server/ui-server.js';
import { ARTIFACTS, launchChromium } from './harness.js';

let dataDir: string, userDataDir: string;

/** Processes whose command line names `text` (Linux /proc). */
const processesNaming = (text: string): number =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    }).length;
let core: HostedCore;
let ui: UiServer;
let browser: BrowserContext;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'nm-e2e-host-'));
  userDataDir = mkdtempSync(join(tmpdir(), 'nm-chromium-'));
  core = await hostEngine({
    spawn: forkEngine(),
    start: { dataDir, firstRun: 'demo', demoObjects: 150, engine: { holdMs: 300, requestPollMs: 200 }, logLevel: 'none' },
    keychain: new MemoryKeychain(),
    loginItem: noLoginItem,
    log: silentLogger,
    backoff: { firstMs: 300, maxMs: 1000 },
    desktop: { open: async () => undefined, reveal: async () => undefined },
  });
  ui = await startUiServer({ handlers: core.handlers, events: core.events, assetsDir: await ensureRenderer(), log: silentLogger });
  browser = await launchChromium(userDataDir);
}, 120_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await ui?.close();
  await core?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(userDataDir, { recursive: true, force: true });
});

describe('the window with the engine in its own process', () => {
  it('shows a killed engine, and is back online after it restarted', async () => {
    const page = await browser.newPage();
    await page.goto(ui.url);
    const badge = page.locator('#conn-badge');
    await expect.poll(() => badge.textContent(), { timeout: 90_000 }).toBe('Online');
    await expect.poll(() => core.status().lastCompleteWalk, { timeout: 60_000 }).not.toBeNull();
    const pid = core.enginePid()!;
    expect(pid).not.toBe(process.pid);
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => page.locator('.toasts').textContent(), { timeout: 30_000 }).toContain('stopped unexpectedly');
    await expect.poll(() => badge.textContent(), { timeout: 30_000 }).toBe('Offline');
    // the header says what happened, not that the NAS is unreachable
    await expect
      .poll(() => page.locator('#state-line').textContent(), { timeout: 30_000, interval: 50 })
      .toMatch(/^The sync engine stopped and is starting again/);
    await page.screenshot({ path: join(ARTIFACTS, 'engine-crashed.png') });
    await expect.poll(() => core.enginePid(), { timeout: 60_000 }).not.toBe(undefined);
    await expect.poll(() => badge.textContent(), { timeout: 60_000 }).toBe('Online');
    expect(core.enginePid()).not.toBe(pid);
    // the killed engine's demo NAS went with it: one embedded service, the new engine's
    await expect.poll(() => processesNaming(join(dataDir, 'demo-nas')), { timeout: 10_000 }).toBe(1);
    // the same mirror: search answers from the restarted engine without a reload
    await page.click('#tab-search');
    await page.fill('#search-input', 'img');
    await expect.poll(() => page.locator('#results li').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, 'engine-restarted.png') });
  }, 240_000);
});
