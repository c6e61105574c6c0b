/**
 * The window from 900 to 1920 px, by keyboard and in its words (issue 25, points 7, 11, 13,
 * 14), on the real reference service and Debian's Chromium: the state line whole, a
 * 240-character name cut with an ellipsis (full name on hover) instead of scrolling
 * sideways, the names taking the width at 1920; Browse by arrow keys with
 * aria-activedescendant; counts grouped, real plurals, a camera make said once, bars
 * aligned; search rows dated by when the photo was taken. Screenshots at 1280x800 and
 * 1920x1080, light and dark, go to test-artifacts/e2e/layout-*.png.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a11yProblems, axeViolations } from './a11y.js';
import { ARTIFACTS, startRig, until, type Rig } from './harness.js';

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 50 });

/** 240 characters, no space to break at. */
const LONG = `${'Holiday_in_Rome_with_the_whole_family_'.repeat(7).slice(0, 236)}.jpg`;
const MANY = 1005;

let rig: Rig;
let page: Page;

beforeAll(async () => {
  rig = await startRig();
  const { admin } = rig.svc;
  const long = admin.createFolder(admin.rootId(), 'Long names');
  admin.createFile(long.id, LONG, {
    size: 4_321_000,
    mimeType: 'image/jpeg',
    mTime: Date.UTC(2024, 5, 1, 12),
    image: { date: '2019:07:14 10:20:30', cameraMake: 'Canon', cameraModel: 'Canon EOS R6' },
  });
  admin.createFile(long.id, 'zebra-notes.txt', { size: 1234, mimeType: 'text/plain', mTime: Date.UTC(2020, 2, 4, 12) });
  const many = admin.createFolder(admin.rootId(), 'Many');
  for (let i = 0; i < MANY; i++) admin.createFile(many.id, `item ${i}.txt`, { size: 10 });
  await rig.app.core.handlers.updateSettings({ patch: { location: rig.svc.baseUrl } });
  await rig.app.core.handlers.setToken({ token: rig.token });
  await until(async () => (await rig.app.core.handlers.status({})).lastCompleteWalk !== null, 'first walk', 90_000);
  page = await rig.newPage();
  await until(async () => (await page.locator('#conn-badge').textContent()) === 'Online', 'the window online');
}, 150_000);
afterAll(async () => {
  await rig?.close();
});

async function browseTo(...names: string[]): Promise<void> {
  await page.click('#tab-browse');
  if (await page.locator('#view-browse .crumbs button', { hasText: 'NAS' }).count())
    await page.locator('#view-browse .crumbs button', { hasText: 'NAS' }).click();
  await poll(() => page.locator('#view-browse .crumb.current').textContent()).toBe('NAS');
  for (const n of names) {
    await page.locator('#browse-rows button.name', { hasText: n }).click();
    await poll(() => page.locator('#view-browse .crumb.current').textContent()).toBe(n);
  }
}

async function search(q: string): Promise<void> {
  await page.click('#tab-search');
  await page.fill('#search-input', ''); // the last query's count goes, so the wait below is for this one
  await poll(() => page.locator('#result-count').count()).toBe(0);
  await page.fill('#search-input', q);
  await poll(
    async () =>
      (await page.locator('#result-count').count()) > 0 && /result/.test((await page.locator('#result-count').textContent()) ?? ''),
  ).toBe(true);
}

const scrollWidth = (): Promise<number> => page.evaluate(() => document.documentElement.scrollWidth);
const activeRowName = (): Promise<string> =>
  page.evaluate(() => {
    const id = document.getElementById('browse-table')?.getAttribute('aria-activedescendant') ?? '';
    return document.getElementById(id)?.querySelector('.name')?.textContent ?? '';
  });

describe('the window from 900 to 1920 px (issue 25)', () => {
  it('7: the state line whole, long names ellipsised with the full name on hover, no sideways scrolling, the names taking the width at 1920', async () => {
    // a state line of some length: "Paused: nothing is sent to the NAS until you resume · checked …"
    await rig.app.core.handlers.setPaused({ paused: true });
    await poll(() => page.locator('#state-line').textContent()).toMatch(/^Paused: nothing is sent/);
    for (const width of [900, 1024, 1280, 1600, 1920]) {
      await page.setViewportSize({ width, height: 800 });
      const line = await page
        .locator('#state-line')
        .evaluate((e) => ({ cut: e.scrollWidth > e.clientWidth + 1, right: e.getBoundingClientRect().right }));
      expect(line.cut, `state line cut at ${width}`).toBe(false);
      expect(line.right).toBeLessThanOrEqual(width);
      await browseTo('Long names');
      expect(await scrollWidth(), `Browse at ${width}`).toBeLessThanOrEqual(width);
      const name = page.locator('#browse-rows .name', { hasText: LONG.slice(0, 20) });
      expect(await name.getAttribute('title')).toBe(LONG);
      expect(await name.evaluate((e) => ({ o: getComputedStyle(e).textOverflow, cut: e.scrollWidth > e.clientWidth }))).toEqual({
        o: 'ellipsis',
        cut: true,
      });
      // the other columns are whole
      expect(
        await page
          .locator('#browse-rows tr')
          .first()
          .evaluate((tr) => Array.from(tr.querySelectorAll('td.num, td.actions')).every((td) => td.scrollWidth <= td.clientWidth + 1)),
      ).toBe(true);
      if (width === 1920) {
        const col = (await page.locator('#browse-table th.col-name').boundingBox())!;
        expect(col.width).toBeGreaterThan(width * 0.45);
      }
      await search('Holiday_in_Rome');
      await poll(() => page.locator('#results li .hit-name').count()).toBe(1);
      expect(await scrollWidth(), `search at ${width}`).toBeLessThanOrEqual(width);
      expect(await page.locator('#results li .hit-name').getAttribute('title')).toBe(LONG);
      expect(await page.locator('#results li .hit-path').getAttribute('title')).toBe(`/Long names/${LONG}`);
    }
    await rig.app.core.handlers.setPaused({ paused: false });
    await poll(() => page.locator('#state-line').textContent()).not.toMatch(/^Paused/);
  }, 90_000);

  it('11: a search row shows when the photo was taken, else when the file was modified', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await search('Holiday_in_Rome');
    const date = page.locator('#results li .hit-date');
    await poll(() => date.getAttribute('datetime')).toBe('2019-07-14T10:20:30');
    expect(await date.textContent()).toMatch(/^Taken Jul 14, 2019, 10:20/);
    await search('zebra');
    const notes = page.locator('#results li', { hasText: 'zebra-notes.txt' }).locator('.hit-date');
    await poll(() => notes.textContent()).toMatch(/^Modified Mar 4, 2020/);
    expect(await notes.getAttribute('datetime')).toMatch(/^2020-03-04T12:00:00/);
  });

  it('14: Browse by keyboard (arrows, Enter, Backspace) with aria-activedescendant; search results too; axe finds nothing in any view, light and dark', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await browseTo();
    await page.focus('#browse-table');
    await page.keyboard.press('Home');
    await poll(() => page.locator('#browse-table').getAttribute('aria-activedescendant')).toBe('browse-row-0');
    expect(await page.locator('#browse-row-0').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowDown');
    await poll(() => page.locator('#browse-table').getAttribute('aria-activedescendant')).toBe('browse-row-1');
    expect(await page.locator('#browse-row-0').getAttribute('aria-selected')).toBe('false');
    // down to "Long names", then Enter opens it (focus stays on the listing)
    for (let i = 0; i < 30 && (await activeRowName()) !== 'Long names'; i++) await page.keyboard.press('ArrowDown');
    expect(await activeRowName()).toBe('Long names');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('#view-browse .crumb.current').textContent()).toBe('Long names');
    await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('browse-table');
    // Enter on a file is Open
    for (let i = 0; i < 5 && (await activeRowName()) !== 'zebra-notes.txt'; i++) await page.keyboard.press('ArrowDown');
    expect(await activeRowName()).toBe('zebra-notes.txt');
    const before = rig.app.opened.length;
    await page.keyboard.press('Enter');
    await until(() => rig.app.opened.length > before, 'Enter opened the file');
    expect(rig.app.opened.at(-1)).toEqual({ what: 'open', path: join(rig.mirror, 'Long names', 'zebra-notes.txt') });
    // Tab reaches the active row's buttons, and the arrows bring the keyboard back to the list
    await page.focus('#browse-table');
    // (past the column headers' sort buttons)
    for (let i = 0; i < 5 && !(await page.evaluate(() => document.activeElement?.closest('#browse-rows') !== null)); i++)
      await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('tr')?.id)).toBe(
      await page.locator('#browse-table').getAttribute('aria-activedescendant'),
    );
    expect(await page.locator('#browse-rows tr:not(.active) td.actions button[tabindex="0"]').count()).toBe(0);
    await page.keyboard.press('ArrowUp');
    await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('browse-table');
    // Backspace: up a folder, the folder left is the active row
    await page.keyboard.press('Backspace');
    await poll(() => page.locator('#view-browse .crumb.current').textContent()).toBe('NAS');
    await poll(activeRowName).toBe('Long names');
    await page.screenshot({ path: join(ARTIFACTS, 'layout-browse-keyboard.png') });

    // search: the list and the field say the selected result
    await search('item');
    await poll(() => page.locator('#results').getAttribute('aria-activedescendant')).toBe('hit-0');
    expect(await page.locator('#search-input').getAttribute('aria-activedescendant')).toBe('hit-0');
    await page.focus('#search-input');
    await page.keyboard.press('ArrowDown');
    await poll(() => page.locator('#results').getAttribute('aria-activedescendant')).toBe('hit-1');
    expect(await page.locator('#hit-1').getAttribute('aria-selected')).toBe('true');

    // axe-core and our own checks: every view, both themes, at 1280 and 1920 (Browse with its active row)
    const problems: string[] = [];
    for (const [width, height] of [
      [1280, 800],
      [1920, 1080],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const view of ['search', 'browse', 'organize', 'storage', 'activity', 'conflicts', 'settings'] as const) {
          if (view === 'search') await search('canon');
          else if (view === 'browse') {
            await browseTo('Long names');
            await page.focus('#browse-table');
          } else await page.click(`#tab-${view}`);
          if (view === 'organize') {
            await page.fill('#organize-q', 'canon');
            await page.fill('#organize-rename', '{name}-x.{ext}');
            await page.click('#organize-preview');
            await poll(() => page.locator('#organize-rows tr').count()).toBeGreaterThan(0);
          }
          if (view === 'storage') await poll(() => page.locator('#treemap > *').count()).toBeGreaterThan(0);
          await page.waitForFunction(() => !document.querySelector('.toast'), undefined, { timeout: 15_000 }).catch(() => undefined);
          problems.push(...(await axeViolations(page)).map((p) => `${width} ${scheme} ${view}: axe ${p}`));
          problems.push(...(await a11yProblems(page)).map((p) => `${width} ${scheme} ${view}: ${p}`));
          if (view === 'search' || view === 'browse' || view === 'storage')
            await page.screenshot({ path: join(ARTIFACTS, `layout-${view}-${width}-${scheme}.png`) });
        }
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(problems).toEqual([]);
  }, 180_000);

  it('13: counts with thousands separators, real plurals, the camera make once, one size format, storage bars aligned', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await browseTo();
    await poll(() => page.locator('#browse-rows tr', { hasText: 'Many' }).locator('td.num').textContent()).toBe('1,005 items');
    // a camera make repeated in its model is said once ("Canon EOS R6", not "Canon Canon EOS R6")
    await search('canon');
    const frags = await page
      .locator('#results li .hit-frags')
      .evaluateAll((fs) => fs.map((f) => Array.from(f.querySelectorAll('.frag')).map((s) => s.textContent ?? '')));
    expect(frags.length).toBeGreaterThan(0);
    for (const f of frags) expect(f.some((t) => t === 'Canon') && f.some((t) => t.startsWith('Canon '))).toBe(false);
    expect(frags.some((f) => f.some((t) => t.startsWith('Canon EOS')))).toBe(true);
    // one size format: the same file says the same size in Browse and in search
    await search('Holiday_in_Rome');
    const inSearch = (await page.locator('#results li .hit-side span').first().textContent())!;
    await browseTo('Long names');
    expect(await page.locator('#browse-rows tr', { hasText: 'Holiday_in_Rome' }).locator('td.num').textContent()).toBe(inSearch);
    expect(inSearch).toBe('4.1 MB');
    // "Keep" on a folder: Activity says what was downloaded in real plurals (older records say "file(s)")
    await rig.app.core.handlers.pin({
      id: (await rig.app.core.handlers.list({ folderId: 'root' })).files.find((f) => f.name === 'Long names')!.id,
    });
    await until(
      async () => (await rig.app.core.handlers.activity({ limit: 50 })).entries.some((e) => e.kind === 'kept'),
      'the kept folder downloaded',
      30_000,
    );
    await page.click('#tab-activity');
    await poll(() => page.locator('#activity-list li.kind-kept .summary').first().textContent()).toMatch(
      /^Kept on this device: downloaded (1 file|\d+ files)$/,
    );
    await page.locator('#activity-list li.kind-kept details summary').first().click();
    for (const view of ['activity', 'search', 'browse', 'storage', 'conflicts', 'settings'] as const) {
      if (view !== 'activity') await page.click(`#tab-${view}`);
      const text = await page.locator(`#view-${view}`).evaluate((v) => v.textContent ?? '');
      expect(text, view).not.toMatch(/[a-z]\(s\)/);
    }
    expect(await page.locator('header').textContent()).not.toMatch(/[a-z]\(s\)/);
    // Storage: every bar starts and ends at the same place in its panel; counts say what they count
    await page.click('#tab-storage');
    await poll(() => page.locator('#storage-kinds meter').count()).toBeGreaterThan(1);
    for (const panel of ['#storage-kinds', '#storage-years']) {
      const boxes = await page.locator(`${panel} meter`).evaluateAll((ms) =>
        ms.map((m) => {
          const r = m.getBoundingClientRect();
          return `${Math.round(r.left)}-${Math.round(r.right)}`;
        }),
      );
      expect(new Set(boxes).size, `${panel}: ${boxes.join(' ')}`).toBe(1);
    }
    expect(await page.locator('#storage-kinds .bar-value').first().textContent()).toMatch(/^[\d.,]+ [KMGT]?B · [\d,]+ files?$/);
    expect(await page.locator('#storage-total').textContent()).toMatch(/ in 1,\d{3} files under \//);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(ARTIFACTS, `layout-storage-bars-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }, 90_000);
});
