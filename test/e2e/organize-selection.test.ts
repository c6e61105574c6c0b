/**
 * Organize a hand-picked selection, end to end in Debian's Chromium against browser mode
 * (real service with the demo library, real engine): search, tick two rows (a click and the
 * keyboard's Space), the ticks survive "More results" and clear on a new query, "Organize
 * selected…" shows "2 selected objects" as the source, the preview lists exactly those two,
 * apply, and the NAS has the new names. Screenshots (normal and 380 px) go to test-artifacts/e2e/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './a11y.js';
import { ARTIFACTS, startRig, until, type Rig } from './harness.js';

const poll = <T>(fn: () => T | Promise<T>, o: { timeout?: number } = {}) => expect.poll(fn, { timeout: 20_000, interval: 50, ...o });

let rig: Rig;
let page: Page;
const shot = async (name: string): Promise<void> => {
  await page.evaluate(() => document.querySelectorAll('.toast').forEach((t) => t.remove()));
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false });
};
const ids = (): Promise<(string | null)[]> => page.locator('#results li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')));
const ticked = (): Promise<(string | null)[]> => page.locator('#results li[aria-checked=true]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')));

beforeAll(async () => {
  rig = await startRig({ objects: 1500 });
  const h = rig.app.core.handlers;
  await h.updateSettings({ patch: { location: rig.svc.baseUrl } });
  await h.setToken({ token: rig.token });
  await until(async () => (await h.status({})).lastCompleteWalk !== null, 'first walk', 90_000);
  page = await rig.newPage();
}, 150_000);
afterAll(async () => { await rig?.close(); });

describe('organize a selection in the window', () => {
  it('ticks rows by click and keyboard; the ticks survive paging, clear on a new query', async () => {
    const q = 'IMG ext:jpg';
    const want = await rig.app.core.handlers.search({ q, limit: 50 });
    expect(want.pageToken).not.toBe(''); // more than one page
    await page.fill('#search-input', q);
    await poll(ids).toEqual(want.matches.map((m) => m.file.id));
    expect(await page.locator('#pick-bar').isVisible()).toBe(false);
    // a click on the first row's tick
    const first = page.locator('#results li').nth(0);
    await first.locator('.pick').click();
    await poll(() => page.locator('#picked-count').textContent()).toBe('1 selected');
    expect(await first.locator('.pick').getAttribute('aria-label')).toBe(`Select ${want.matches[0]!.file.name}`);
    // the keyboard: the list, down twice, Space (Enter still opens, arrows still move)
    await page.focus('#results');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await poll(() => page.locator('#results li.selected').getAttribute('data-id')).toBe(want.matches[2]!.file.id);
    await page.keyboard.press('Space');
    await poll(() => page.locator('#picked-count').textContent()).toBe('2 selected');
    await page.keyboard.press('Space');
    await poll(() => page.locator('#picked-count').textContent()).toBe('1 selected');
    await page.keyboard.press('Space');
    const two = [want.matches[0]!.file.id, want.matches[2]!.file.id];
    await poll(ticked).toEqual(two);
    expect(await axeViolations(page)).toEqual([]);
    await shot('search-selection');
    // 380 px: nothing scrolls sideways
    await page.setViewportSize({ width: 380, height: 700 });
    await poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(380);
    await shot('search-selection-380');
    await page.setViewportSize({ width: 1280, height: 800 });
    // More results: the ticks stay
    await page.click('.search-view button.more');
    await poll(async () => (await ids()).length).toBeGreaterThan(50);
    expect(await ticked()).toEqual(two);
    expect(await page.locator('#picked-count').textContent()).toBe('2 selected');
    // a new query clears them; the same query again does not bring them back
    await page.fill('#search-input', 'IMG');
    await poll(() => page.locator('#pick-bar').isVisible()).toBe(false);
    await page.fill('#search-input', q);
    await poll(ids).toEqual(want.matches.map((m) => m.file.id));
    expect(await ticked()).toEqual([]);
    // Clear
    await page.locator('#results li').nth(1).locator('.pick').click();
    await poll(() => page.locator('#picked-count').textContent()).toBe('1 selected');
    await page.click('#clear-picked');
    await poll(() => page.locator('#pick-bar').isVisible()).toBe(false);
    expect(await ticked()).toEqual([]);
  }, 90_000);

  it('Organize selected: the preview lists exactly the two, apply renames them on the NAS', async () => {
    const q = 'IMG ext:jpg';
    const want = await rig.app.core.handlers.search({ q, limit: 50 });
    const a = want.matches[3]!.file, b = want.matches[7]!.file;
    await page.locator(`#results li[data-id="${b.id}"] .pick`).click();
    await page.locator(`#results li[data-id="${a.id}"] .pick`).click();
    await poll(() => page.locator('#picked-count').textContent()).toBe('2 selected');
    await page.click('#organize-picked');
    await poll(() => page.locator('#organize-source-count').textContent()).toBe('2 selected objects');
    expect(await page.locator('#organize-q').isVisible()).toBe(false);
    expect(await page.locator('#organize-source-names').textContent()).toBe(`${b.name}, ${a.name}`);
    await page.fill('#organize-rename', 'picked {counter}.{ext:lower}');
    await page.fill('#organize-move', '');
    await page.click('#organize-preview');
    await poll(() => page.locator('#organize-counts').textContent()).toBe('2 selected: 2 will change');
    const paths = await page.locator('#organize-rows tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td.entry-path')).map((td) => td.textContent)));
    const dir = (p: string): string => p.slice(0, p.lastIndexOf('/') + 1);
    const pathOf = async (id: string): Promise<string> => (await rig.app.core.handlers.organizePreview({ ids: [id], rename: '{name}' })).items[0]!.from;
    const pa = await pathOf(a.id), pb = await pathOf(b.id);
    // in the order ticked: b first
    expect(paths).toEqual([[`/${pb}`, `/${dir(pb)}picked 1.jpg`], [`/${pa}`, `/${dir(pa)}picked 2.jpg`]]);
    expect(await axeViolations(page)).toEqual([]);
    await shot('organize-selection-preview');
    await page.click('#organize-apply');
    await poll(() => page.locator('#organize-done').isVisible()).toBe(true);
    await until(() => rig.svc.admin.get(b.id)?.name === 'picked 1.jpg' && rig.svc.admin.get(a.id)?.name === 'picked 2.jpg', 'renamed on the NAS', 60_000);
    // "Use a search instead" brings the query field back
    await page.click('#organize-use-query');
    await poll(() => page.locator('#organize-q').isVisible()).toBe(true);
    expect(await page.locator('#organize-source').isVisible()).toBe(false);
  }, 90_000);
});
