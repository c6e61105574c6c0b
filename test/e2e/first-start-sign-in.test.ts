/**
 * First start with "Sign in" instead of a pasted token (issue 11's welcome meets issue 9's
 * sign-in), in Chromium against the real reference service: the user types the NAS's
 * address, presses Sign in, signs in on the NAS's own page, and the window sets the mirror
 * up by itself: online, signed in, and no token ever shown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore } from '../../main/api/core.js';
import type { Core } from '../../main/api/core-types.js';
import { silentLogger } from '../../main/log/logger.js';
import { noLoginItem } from '../../main/settings/autostart.js';
import { ensureRenderer } from '../../main/ui-server/assets.js';
import { startUiServer, type UiServer } from '../../main/ui-server/ui-server.js';
import { startTestService, type TestService } from '../../server/testing.js';
import { ARTIFACTS, launchChromium, until } from './harness.js';

const poll = <T>(fn: () => T | Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout, interval: 50 });

const dataDir = mkdtempSync(join(tmpdir(), 'nm-first-signin-'));
const profile = mkdtempSync(join(tmpdir(), 'nm-chromium-'));
let svc: TestService;
let core: Core;
let server: UiServer;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  svc = await startTestService({ demo: { objects: 40, seed: 5 } });
  await svc.admin.setPassword('demo', 'open sesame');
  core = await startCore({
    dataDir,
    log: silentLogger,
    noKeychain: true,
    loginItem: noLoginItem,
    desktop: { open: async () => undefined, reveal: async () => undefined },
    engine: { holdMs: 300, requestPollMs: 200 },
  });
  server = await startUiServer({ handlers: core.handlers, events: core.events, assetsDir: await ensureRenderer(), log: silentLogger });
  browser = await launchChromium(profile);
  page = await browser.newPage();
  await page.goto(server.url);
}, 60_000);
afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await server?.close();
  await core?.close();
  await svc?.stop();
  for (const d of [dataDir, profile]) rmSync(d, { recursive: true, force: true });
});

describe('first start: Connect your NAS with Sign in', () => {
  it('Sign in needs an address first, said next to its field', async () => {
    await poll(() => page.locator('#welcome').isVisible()).toBe(true);
    await page.click('#setup-sign-in');
    await poll(() => page.locator('#setup-location-error').textContent()).toBe('Enter the NAS address or the path of its device record.');
  });

  it('signs in on the NAS page, then the mirror is set up without a pasted token', async () => {
    await page.fill('#setup-location', svc.baseUrl);
    const popup = page.context().waitForEvent('page');
    await page.click('#setup-sign-in');
    const login = await popup;
    await login.waitForLoadState();
    expect(login.url()).toContain(`${svc.baseUrl}/oauth/authorize?`);
    await poll(() => page.locator('#setup-sign-in-state').textContent()).toContain('Sign in on the NAS');
    await login.fill('#username', 'demo');
    await login.fill('#password', 'open sesame');
    await login.click('button[value=allow]');
    await poll(() => login.locator('h1').textContent()).toBe('Signed in');
    await poll(() => page.locator('#welcome').isVisible()).toBe(false);
    await poll(() => page.locator('nav.tabs').isVisible()).toBe(true);
    await until(async () => (await core.handlers.status({})).lastCompleteWalk !== null, 'first walk after the sign-in', 60_000);
    await poll(() => page.locator('#conn-badge').textContent()).toBe('Online');
    const s = await core.handlers.getSettings({});
    expect(s).toMatchObject({ source: 'url', location: svc.baseUrl, token: 'memory', signedIn: true });
    expect(await page.content()).not.toMatch(/ns[tr]_[A-Za-z0-9_-]{20,}/);
    await page.screenshot({ path: join(ARTIFACTS, 'first-start-signed-in.png') });
  }, 120_000);
});
