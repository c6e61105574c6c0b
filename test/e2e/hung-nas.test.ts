/**
 * Issue 25 point 3, the window: a NAS that hangs (its process stopped with SIGSTOP: the kernel
 * still accepts connections, nothing answers). Within the request timeout (+ 2 s) the badge
 * says the NAS is not answering and the state line says so with its retries; the header never
 * says "Sending…" beside "Online" once that is known, nor "Reading the NAS: starting…" beside
 * "Offline"; after SIGCONT it is Online again and the change waiting is sent. The real
 * reference service runs as a child process (so it can really be stopped), the app core and
 * browser-mode window in this one, Debian's Chromium. Every header the window shows is
 * recorded as it changes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../main/api/core-types.js';
import { silentLogger } from '../../main/log/logger.js';
import { DEFAULT_SETTINGS, SettingsStore } from '../../main/settings/settings-store.js';
import { openStateDb } from '../../main/state/db.js';
import { ensureRenderer } from '../../main/ui-server/assets.js';
import { startUiServer, type UiServer } from '../../main/ui-server/ui-server.js';
import { spawnServiceProcess, type ServiceProcess } from '../../server/testing.js';
import { ARTIFACTS, launchChromium, quietCore, until } from './harness.js';

/** The app's request timeout here (the app's own is 30 s). */
const TIMEOUT_MS = 3_000;
const cli = (args: string[]) => spawnSync(process.execPath, ['bin/nas-service.js', ...args], { encoding: 'utf8' });

let base: string;
let proc: ServiceProcess;
let core: Core;
let server: UiServer;
let browser: BrowserContext;
let page: Page;
let mirror: string;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'nm-e2e-hung-'));
  const data = join(base, 'nas');
  expect(cli(['demo', '--data', data, '--objects', '40', '--seed', '3']).status).toBe(0);
  const token = cli(['token', 'demo', '--scope', 'nas_read_write', '--data', data]).stdout.trim();
  proc = await spawnServiceProcess(data);
  const dataDir = join(base, 'app');
  mirror = join(dataDir, 'mirror');
  const db = openStateDb(dataDir);
  new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: mirror }).update({
    source: 'url',
    location: proc.baseUrl,
    mirrorFolder: mirror,
  });
  db.close();
  core = await quietCore(dataDir, { engine: { holdMs: 300, requestPollMs: 200, requestTimeoutMs: TIMEOUT_MS } });
  await core.handlers.setToken({ token });
  await until(async () => (await core.handlers.status({})).lastCompleteWalk !== null, 'first walk', 60_000);
  server = await startUiServer({ handlers: core.handlers, events: core.events, assetsDir: await ensureRenderer(), log: silentLogger });
  browser = await launchChromium(join(base, 'chromium'));
  page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  // every (badge, state line) pair the header shows, with when
  await page.addInitScript(() => {
    const w = window as unknown as { headers: { at: number; badge: string; line: string }[] };
    w.headers = [];
    const note = (): void => {
      const badge = document.getElementById('conn-badge')?.textContent ?? '';
      const line = document.getElementById('state-line')?.textContent ?? '';
      const last = w.headers[w.headers.length - 1];
      if (!last || last.badge !== badge || last.line !== line) w.headers.push({ at: Date.now(), badge, line });
    };
    new MutationObserver(note).observe(document, { childList: true, subtree: true, characterData: true });
  });
  await page.goto(server.url);
}, 120_000);
afterAll(async () => {
  // never leave a stopped child behind
  proc?.child.kill('SIGCONT');
  await browser?.close().catch(() => undefined);
  await server?.close();
  await core?.close();
  await proc?.stop();
  rmSync(base, { recursive: true, force: true });
});

const headers = (): Promise<{ at: number; badge: string; line: string }[]> =>
  page.evaluate(() => (window as unknown as { headers: { at: number; badge: string; line: string }[] }).headers);
const badge = async (): Promise<string> => (await page.locator('#conn-badge').textContent()) ?? '';
const line = async (): Promise<string> => (await page.locator('#state-line').textContent()) ?? '';

describe('a NAS that hangs (SIGSTOP), in the window (issue 25 point 3)', () => {
  it('is "not answering" in the badge and the state line, with retries, within the request timeout; Online again after SIGCONT', async () => {
    await until(async () => (await badge()) === 'Online', 'online', 30_000);
    const name = readdirSync(mirror)
      .sort()
      .find((d) => !d.startsWith('.'))!;
    proc.child.kill('SIGSTOP');
    const hungAt = Date.now();
    // a change to send: the first request that gets no answer tells
    renameSync(join(mirror, name), join(mirror, `hung ${name}`));
    await until(async () => (await badge()) === 'Not answering', 'the badge says not answering', TIMEOUT_MS + 10_000);
    const saidAt = Date.now();
    expect(saidAt - hungAt).toBeLessThan(TIMEOUT_MS + 2_000);
    expect(await line()).toMatch(/is not answering: retrying\. 1 change waits here and will be sent when it is back\.$/);
    // the user asks for a walk meanwhile: it runs, waiting on the NAS, and the header still says why
    await page.click('#sync-now');
    await until(async () => (await core.handlers.status({})).walk.running, 'the walk asked for');
    expect(await badge()).toBe('Not answering');
    expect(await line()).toMatch(/is not answering: retrying\./);
    // and no progress bar "Reading the NAS" under it either
    expect(await page.locator('#walk-progress').isVisible()).toBe(false);
    await page.screenshot({ path: join(ARTIFACTS, 'hung-nas.png') });
    expect((await core.handlers.status({})).outbox).toBe(1);
    const contAt = Date.now();
    proc.child.kill('SIGCONT');
    await until(async () => (await badge()) === 'Online', 'online again after SIGCONT', 60_000);
    await until(async () => (await core.handlers.status({})).outbox === 0, 'the change sent', 30_000);
    // never "Sending…" beside "Online" once the hang is known, never "Reading the NAS" beside "Offline"
    const seen = await headers();
    const contradictions = seen.filter(
      (h) =>
        (h.badge === 'Online' && /^Sending/.test(h.line) && h.at >= saidAt && h.at < contAt) ||
        (/Offline|Not answering/.test(h.badge) && /Reading the NAS/.test(h.line)),
    );
    expect(contradictions).toEqual([]);
    expect(seen.filter((h) => h.at >= saidAt && h.at < contAt).map((h) => h.badge)).not.toContain('Online');
  }, 150_000);
});
