/**
 * A user's first hour (issue 11), in Debian's Chromium against the real reference service
 * and the embedded demo child: a fresh data folder asks "Connect your NAS" or "Try the
 * demo"; wrong answers are said next to their field and nothing is saved; a device record
 * with a pasted token connects; "Start a new mirror" says what happens, puts the mirror
 * aside (its folder untouched, its state kept) and asks again; the demo then works.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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
import { a11yProblems, axeBothThemes, axeViolations } from './a11y.js';
import { ARTIFACTS, launchChromium, until } from './harness.js';

const poll = <T>(fn: () => T | Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout, interval: 50 });

const dataDir = mkdtempSync(join(tmpdir(), 'nm-first-'));
const profile = mkdtempSync(join(tmpdir(), 'nm-chromium-'));
const elsewhere = mkdtempSync(join(tmpdir(), 'nm-first-files-'));
let svc: TestService;
let core: Core;
let server: UiServer;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  svc = await startTestService({ demo: { objects: 150, seed: 3 } });
  core = await startCore({
    dataDir,
    demoObjects: 120,
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
  for (const d of [dataDir, profile, elsewhere]) rmSync(d, { recursive: true, force: true });
});

const errorAt = (id: string) => page.locator(`#${id}-error`).textContent();

describe('first start', () => {
  it('asks: Connect your NAS, or Try the demo (nothing mirrored, no tabs yet)', async () => {
    await poll(() => page.locator('#welcome').isVisible()).toBe(true);
    expect(await page.locator('#welcome > h2').textContent()).toBe('Welcome to NAS Mirror');
    expect(await page.locator('#setup-nas h3').textContent()).toBe('Connect your NAS');
    expect(await page.locator('#setup-demo').textContent()).toBe('Try the demo');
    expect(await page.locator('nav.tabs').isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('setup-location');
    expect(await page.inputValue('#setup-mirror')).toBe(join(dataDir, 'mirror'));
    expect(await page.locator('#state-line').textContent()).toBe('Not set up yet: connect your NAS or try the demo.');
    await page.screenshot({ path: join(ARTIFACTS, 'welcome.png') });
  });

  it('wrong answers are said next to their field, and nothing is saved', async () => {
    await page.click('#setup-connect');
    await poll(() => errorAt('setup-location')).toBe('Enter the NAS address or the path of its device record.');
    // a device record that is not there
    await page.fill('#setup-location', join(elsewhere, 'nope.json'));
    await page.click('#setup-connect');
    await poll(() => errorAt('setup-location')).toMatch(/^Cannot read the device record .*nope\.json: no such file/);
    // a device record, no token
    const device = join(elsewhere, 'device.json');
    writeFileSync(device, JSON.stringify({ network: { internalDNSName: svc.baseUrl } }));
    await page.fill('#setup-location', device);
    await page.click('#setup-connect');
    await poll(() => errorAt('setup-token')).toBe('Paste the access token for this NAS (or sign in).');
    // a token the NAS refuses
    await page.fill('#setup-token', 'not-a-real-token');
    await page.click('#setup-connect');
    await poll(() => errorAt('setup-token')).toBe('The NAS refused this token: check it, or make a new one on the NAS.');
    expect(await page.locator('#setup-token').getAttribute('aria-invalid')).toBe('true');
    // mirror folders the command line refuses too: relative, a file, under /proc, inside the data folder
    writeFileSync(join(elsewhere, 'a-file'), 'x');
    const bad: [string, RegExp][] = [
      ['relative/dir', /must be a full path/],
      [join(elsewhere, 'a-file'), /is a file, not a folder/],
      ['/proc/nope/mirror', /^Cannot create the mirror folder \/proc\/nope\/mirror/],
      [join(dataDir, 'index'), /inside the state folder/],
      [elsewhere, /already holds files: choose an empty or new folder/],
    ];
    for (const [dir, why] of bad) {
      await page.fill('#setup-mirror', dir);
      await page.fill('#setup-token', svc.token());
      await page.click('#setup-connect');
      await poll(() => errorAt('setup-mirror')).toMatch(why);
    }
    expect(existsSync(join(process.cwd(), 'relative'))).toBe(false);
    expect((await core.handlers.getSettings({})).source).toBe('none');
    await page.screenshot({ path: join(ARTIFACTS, 'welcome-errors.png') });
    // the welcome, errors shown, in both themes: axe-core (WCAG 2 A, AA) and our own checks
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await axeViolations(page)).toEqual([]);
      expect(await a11yProblems(page)).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }, 60_000);

  it('a device record and a pasted token connect, and search works', async () => {
    const mirror = join(elsewhere, 'My NAS');
    await page.fill('#setup-mirror', mirror);
    await page.fill('#setup-token', svc.token());
    await page.click('#setup-connect');
    await poll(() => page.locator('#welcome').isVisible()).toBe(false);
    await poll(() => page.locator('#conn-badge').textContent()).toBe('Online');
    await until(() => core.status().lastCompleteWalk !== null, 'first walk', 60_000);
    const s = await core.handlers.getSettings({});
    expect(s).toMatchObject({ source: 'device-record', mirrorFolder: mirror, token: 'memory' });
    expect(readdirSync(mirror).length).toBeGreaterThan(1);
    await page.click('#tab-search');
    await page.fill('#search-input', 'img');
    await poll(() => page.locator('#results li').count()).toBeGreaterThan(0);
  }, 90_000);

  it('another NAS: Settings says a new mirror is needed, and "Start a new mirror" says what happens', async () => {
    await page.click('#tab-settings');
    await poll(() => page.locator('#set-bound').isVisible()).toBe(true);
    await page.click('#new-mirror');
    await poll(() => page.locator('#new-mirror-dialog').isVisible()).toBe(true);
    const text = (await page.locator('#new-mirror-body').textContent()) ?? '';
    expect(text).toContain(`${join(elsewhere, 'My NAS')} stays where it is`);
    expect(text).toContain('Nothing is deleted');
    await page.screenshot({ path: join(ARTIFACTS, 'new-mirror.png') });
    await page.click('#new-mirror-confirm');
    await poll(() => page.locator('#welcome').isVisible()).toBe(true);
    // nothing lost: the folder is where it was, the state is kept
    expect(readdirSync(join(elsewhere, 'My NAS')).length).toBeGreaterThan(1);
    const prev = readdirSync(join(dataDir, 'previous'));
    expect(prev).toHaveLength(1);
    expect(existsSync(join(dataDir, 'previous', prev[0]!, 'state.db'))).toBe(true);
    await poll(() => page.locator('#setup-previous li').count()).toBe(1);
    expect(await page.inputValue('#setup-mirror')).toBe(join(dataDir, 'mirror'));
    expect(await page.locator('#setup-previous li').textContent()).toContain(join(elsewhere, 'My NAS'));
  }, 60_000);

  it('"Try the demo" mirrors the built-in demo NAS', async () => {
    await page.click('#setup-demo');
    await poll(() => page.locator('#welcome').isVisible(), 60_000).toBe(false);
    await poll(() => page.locator('#conn-badge').textContent(), 60_000).toBe('Online');
    await until(() => core.status().lastCompleteWalk !== null && !core.status().walk.running, 'demo walked', 90_000);
    expect((await core.handlers.getSettings({})).source).toBe('embedded');
    // a name of the built-in demo's 120 objects (its results, not the ones left from the NAS before)
    await page.fill('#search-input', 'wedding');
    await poll(() => page.locator('#results li').first().textContent()).toContain('Wedding in the beach');
  }, 120_000);

  it('a mirror put aside is listed in Settings with its NAS and folder, and "Reopen" brings it back (the current one put aside the same way)', async () => {
    const before = await core.handlers.getSettings({});
    const mine = join(elsewhere, 'My NAS');
    await page.click('#tab-settings');
    await poll(() => page.locator('#settings-previous li').count()).toBe(1);
    const row = page.locator('#settings-previous li').first();
    expect(await row.textContent()).toContain(mine);
    expect(await row.textContent()).toContain(before.previousMirrors[0]!.nas);
    await row.getByRole('button', { name: `Reopen the mirror of ${before.previousMirrors[0]!.nas} in ${mine}` }).click();
    // asks first, saying what happens to the current mirror
    await poll(() => page.locator('#settings-previous-confirm').isVisible()).toBe(true);
    expect(await page.locator('#settings-previous-confirm-body').textContent()).toContain(
      `The current mirror (${before.mirrorFolder}) is put aside first`,
    );
    expect(await axeBothThemes(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'reopen.png') });
    await page.click('#settings-previous-confirm-yes');
    await poll(async () => (await core.handlers.getSettings({})).mirrorFolder, 60_000).toBe(mine);
    expect((await core.handlers.getSettings({})).source).toBe('device-record');
    await poll(() => page.locator('#conn-badge').textContent(), 60_000).toBe('Online');
    await poll(() => page.inputValue('#set-mirror')).toBe(mine);
    // the demo mirror is the one put aside now; the one reopened left previous/
    const prev = readdirSync(join(dataDir, 'previous'));
    expect(prev).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(dataDir, 'previous', prev[0]!, 'about.json'), 'utf8'))).toMatchObject({
      nas: 'the built-in demo NAS',
      mirrorFolder: before.mirrorFolder,
    });
    await poll(() => page.locator('#settings-previous li').textContent()).toContain('the built-in demo NAS');
    expect(existsSync(before.mirrorFolder)).toBe(true); // its folder untouched
    // it carries on: its offline index is back, and sync runs against its NAS
    await until(
      () => core.status().connection === 'online' && core.status().lastCompleteWalk !== null && !core.status().walk.running,
      'the reopened mirror synced',
      60_000,
    );
    await page.click('#tab-search');
    await page.fill('#search-input', 'img');
    await poll(() => page.locator('#results li').count()).toBeGreaterThan(0);
    // a made-up folder is refused, and nothing moves
    await expect(core.handlers.reopenMirror({ keptIn: join(dataDir, 'previous', '..') })).rejects.toThrow(/no mirror put aside/);
    expect(readdirSync(join(dataDir, 'previous'))).toEqual(prev);
  }, 120_000);
});
