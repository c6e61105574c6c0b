/**
 * The mirror folder, from the window (issue 11, points 2 and 3), on the embedded demo NAS:
 * a saved folder that cannot be used never hangs the start (the window says what is wrong
 * and where to fix it); Settings refuses, in words next to the field, every folder the
 * command line refuses, and saves nothing then; changing the folder of a mirror MOVES it
 * (placeholders and local files along, nothing re-downloaded or deleted, logged in Activity),
 * also to another disk (/tmp -> /dev/shm: copied with progress, checked, then switched).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore } from '../../main/api/core.js';
import type { Core } from '../../main/api/core-types.js';
import { silentLogger } from '../../main/log/logger.js';
import { noLoginItem } from '../../main/settings/autostart.js';
import { DEFAULT_SETTINGS, SettingsStore } from '../../main/settings/settings-store.js';
import { openStateDb } from '../../main/state/db.js';
import { ensureRenderer } from '../../main/ui-server/assets.js';
import { startUiServer, type UiServer } from '../../main/ui-server/ui-server.js';
import { ARTIFACTS, launchChromium, until } from './harness.js';

const poll = <T>(fn: () => T | Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout, interval: 50 });

const dataDir = mkdtempSync(join(tmpdir(), 'nm-mf-'));
const files = mkdtempSync(join(tmpdir(), 'nm-mf-files-'));
const profile = mkdtempSync(join(tmpdir(), 'nm-chromium-'));
// another device for the move across disks: /dev/shm (tmpfs) when it is not /tmp's
const twoDevices = existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(tmpdir()).dev;
const shm = twoDevices ? mkdtempSync(join('/dev/shm', 'nm-mf-')) : '';
let core: Core;
let server: UiServer;
let browser: BrowserContext;
let page: Page;
const opened: string[] = [];

beforeAll(async () => {
  // a saved mirror folder under /proc: recursive mkdir there never returns
  const db = openStateDb(dataDir);
  new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: join(dataDir, 'mirror') }).update({
    source: 'embedded',
    mirrorFolder: '/proc/nope/mirror',
  });
  db.close();
  const t0 = Date.now();
  core = await startCore({
    dataDir,
    demoObjects: 150,
    log: silentLogger,
    noKeychain: true,
    loginItem: noLoginItem,
    desktop: {
      open: async (p) => {
        opened.push(p);
      },
      reveal: async () => undefined,
    },
    engine: { holdMs: 300, requestPollMs: 200 },
  });
  expect(Date.now() - t0).toBeLessThan(30_000);
  server = await startUiServer({ handlers: core.handlers, events: core.events, assetsDir: await ensureRenderer(), log: silentLogger });
  browser = await launchChromium(profile);
  page = await browser.newPage();
  await page.goto(server.url);
}, 60_000);
afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await server?.close();
  await core?.close();
  for (const d of [dataDir, files, profile, shm]) if (d) rmSync(d, { recursive: true, force: true });
});

const mirrorError = () => page.locator('#set-mirror-error').textContent();
const saveMirror = async (dir: string): Promise<void> => {
  await page.fill('#set-mirror', dir);
  await page.click('#save-settings');
};

describe('the mirror folder', () => {
  it('a saved folder that cannot be used: the start does not hang, the window says why and where to fix it', async () => {
    expect(core.status()).toMatchObject({ connection: 'unconfigured', error: { code: 'BadConfig' } });
    await poll(() => page.locator('#state-line').textContent()).toMatch(
      /^Cannot create the mirror folder \/proc\/nope\/mirror: .*choose another mirror folder in Settings/,
    );
    await page.click('#state-fix');
    await poll(() => page.locator('#view-settings').isVisible()).toBe(true);
  });

  it('Settings refuses what the command line refuses, next to the field, and saves nothing', async () => {
    writeFileSync(join(files, 'a-file'), 'x');
    const bad: [string, RegExp][] = [
      ['relative/dir', /must be a full path/],
      [join(files, 'a-file'), /is a file, not a folder/],
      ['/proc/nope/again', /^Cannot create the mirror folder/],
      [join(dataDir, 'index'), /inside the state folder/],
    ];
    await poll(() => page.inputValue('#set-mirror')).toBe('/proc/nope/mirror');
    for (const [dir, why] of bad) {
      await saveMirror(dir);
      await poll(() => mirrorError()).toMatch(why);
      expect(await page.locator('#settings-saved').textContent()).toBe('');
      expect((await core.handlers.getSettings({})).mirrorFolder).toBe('/proc/nope/mirror');
    }
    expect(existsSync(join(process.cwd(), 'relative'))).toBe(false);
    // numbers in words, before anything is sent
    await page.fill('#set-interval', '5');
    await page.click('#save-settings');
    await poll(() => page.locator('#set-interval-error').textContent()).toBe('Check the NAS every 10 to 86,400 seconds (10 s to one day).');
    await page.fill('#set-interval', '300');
    await page.screenshot({ path: join(ARTIFACTS, 'settings-errors.png'), fullPage: true });
  });

  it('a good folder is saved ("Saved."), and the demo mirrors into it', async () => {
    await saveMirror(join(files, 'NAS'));
    await poll(() => page.locator('#settings-saved').textContent()).toMatch(/^Saved\./);
    expect(await mirrorError()).toBe('');
    await until(
      () => core.status().connection === 'online' && core.status().lastCompleteWalk !== null && !core.status().walk.running,
      'demo mirrored',
      90_000,
    );
    expect(readdirSync(join(files, 'NAS')).length).toBeGreaterThan(1);
  }, 120_000);

  it('changing the folder of a mirror moves it: placeholders and local files along, logged, sync goes on', async () => {
    const from = join(files, 'NAS');
    writeFileSync(join(from, 'my-notes.txt'), 'local only');
    const before = readdirSync(from).sort();
    // a folder that holds files is refused
    mkdirSync(join(files, 'busy'));
    writeFileSync(join(files, 'busy', 'x'), 'x');
    await saveMirror(join(files, 'busy'));
    await poll(() => mirrorError()).toMatch(/already holds files/);
    const to = join(files, 'Moved NAS');
    await saveMirror(to);
    await poll(() => page.locator('#settings-saved').textContent()).toBe(`Saved. The mirror folder is now ${to}.`);
    expect(existsSync(from)).toBe(false);
    expect(readdirSync(to).sort()).toEqual(before);
    await until(
      () => core.status().mirrorFolder === to && !core.status().mirrorMissing && core.status().connection === 'online',
      'sync on the new folder',
      30_000,
    );
    await page.click('#tab-activity');
    await poll(() => page.locator('#activity-list').textContent()).toContain(`Mirror folder moved to ${to}`);
    // nothing was replaced, deleted or sent because of the move
    const log = (await core.handlers.activity({ limit: 200 })).entries.map((e) => e.kind);
    expect(log.filter((k) => /deleted|replaced|held/.test(k))).toEqual([]);
    expect(core.status().outbox).toBe(0);
    // "Open mirror folder" opens the new place in the file manager
    await page.click('#tab-settings');
    await page.click('#open-mirror');
    await until(() => opened.includes(to), 'mirror folder opened');
  }, 60_000);

  it.skipIf(!twoDevices)(
    'to another disk (/tmp -> /dev/shm, EXDEV): copied with progress in the window, checked, switched, the old one removed; sync goes on, nothing looks replaced',
    async () => {
      const from = join(files, 'Moved NAS');
      const before = readdirSync(from).sort();
      const logBefore = (await core.handlers.activity({ limit: 500 })).entries.length;
      const to = join(shm, 'NAS on the other disk');
      // record what the window shows while the copy runs
      await page.evaluate(() => {
        const w = window as unknown as { moveTexts: string[] };
        w.moveTexts = [];
        const el = document.getElementById('move-progress-text')!;
        new MutationObserver(() => w.moveTexts.push(el.textContent ?? '')).observe(el, {
          childList: true,
          characterData: true,
          subtree: true,
        });
      });
      await saveMirror(to);
      // (the field's error, if any, is in the string: a failure says why)
      await poll(async () => `${await page.locator('#settings-saved').textContent()}${await mirrorError()}`, 60_000).toBe(
        `Saved. The mirror folder is now ${to}.`,
      );
      expect(await page.locator('#move-progress').isHidden()).toBe(true);
      const texts = await page.evaluate(() => (window as unknown as { moveTexts: string[] }).moveTexts);
      expect(texts).toContain('Checking the copy against the original…');
      expect(texts.some((t) => /^Copying to the other disk: [\d,]+ of [\d,]+ items/.test(t))).toBe(true);
      expect(existsSync(from)).toBe(false);
      expect(readdirSync(to).sort()).toEqual(before);
      expect(readFileSync(join(to, 'my-notes.txt'), 'utf8')).toBe('local only');
      await until(
        () =>
          core.status().mirrorFolder === to &&
          !core.status().mirrorMissing &&
          core.status().connection === 'online' &&
          !core.status().walk.running,
        'sync on the other disk',
        60_000,
      );
      await core.handlers.syncNow({});
      await until(() => core.status().connection === 'online' && !core.status().walk.running, 'a walk after the move', 60_000);
      // the move is one line in Activity; nothing was replaced, deleted, held or sent because of it
      const log = (await core.handlers.activity({ limit: 500 })).entries;
      expect(
        log
          .slice(0, log.length - logBefore)
          .map((e) => e.kind)
          .filter((k) => /deleted|replaced|held/.test(k)),
      ).toEqual([]);
      expect(log.some((e) => e.summary === `Mirror folder moved to ${to}` && /copied to another disk/.test(e.reason))).toBe(true);
      expect(core.status().outbox).toBe(0);
      expect(core.status().heldDeletes).toBe(0);
    },
    120_000,
  );
});
