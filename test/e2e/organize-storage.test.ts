/**
 * The window's issue-12 features, end to end in Debian's Chromium against browser mode (real
 * service with the demo library, real engine and mirror folder): search operators as chips
 * (offline-only said, a chip removed), Organize from a search (preview with flags, apply as
 * ONE activity entry, one Undo restoring the NAS), and the storage treemap (drill down and
 * back up by breadcrumbs), and Organize from a hand-picked selection (two rows ticked, by a
 * click and by Space; the ticks survive "More results" and clear on a new query; the preview
 * lists exactly those two; the NAS gets the new names; the view at 380 px). Screenshots go
 * to test-artifacts/e2e/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteOperator } from '../../app/filters/filters.js';
import { axeViolations } from './a11y.js';
import { ARTIFACTS, startRig, until, type Rig } from './harness.js';

const poll = <T>(fn: () => T | Promise<T>, o: { timeout?: number } = {}) => expect.poll(fn, { timeout: 20_000, interval: 50, ...o });

let rig: Rig;
/** A folder name the in:"..." quoting must carry: quotes, a backslash, spaces, non-ASCII. */
const ODD = 'Ärger "quoted" \\ 写真';
let oddFile = '';
let page: Page;
const shot = async (name: string): Promise<void> => {
  await page.evaluate(() => document.querySelectorAll('.toast').forEach((t) => t.remove()));
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false });
};

const ids = (): Promise<(string | null)[]> => page.locator('#results li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')));
const ticked = (): Promise<(string | null)[]> =>
  page.locator('#results li[aria-checked=true]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')));

beforeAll(async () => {
  rig = await startRig({ objects: 1500 });
  const odd = rig.svc.admin.createFolder('root', ODD);
  oddFile = rig.svc.admin.createFile(odd.id, 'inside.txt', { mimeType: 'text/plain', size: 10 }).id;
  const h = rig.app.core.handlers;
  await h.updateSettings({ patch: { location: rig.svc.baseUrl } });
  await h.setToken({ token: rig.token });
  await until(async () => (await h.status({})).lastCompleteWalk !== null, 'first walk', 90_000);
  page = await rig.newPage();
}, 150_000);
afterAll(async () => {
  await rig?.close();
});

describe('search filters, organize and storage in the window', () => {
  it('shows operators as removable chips and says the answer is offline-only', async () => {
    await page.fill('#search-input', 'IMG kind:photo date:2021 camera:canon');
    await poll(() => page.locator('#filter-chips .chip').count()).toBe(3);
    await poll(() => page.locator('#offline-only').isVisible()).toBe(true);
    const want = await rig.app.core.handlers.search({ q: 'IMG kind:photo date:2021 camera:canon', limit: 50 });
    expect(want.offlineOnly).toBe(true);
    expect(want.matches.length).toBeGreaterThan(0);
    await poll(() => page.locator('#results li').count()).toBe(want.matches.length);
    await shot('search-filters');
    await page.click('[aria-label="Remove filter camera: canon"]');
    await poll(() => page.inputValue('#search-input')).toBe('IMG kind:photo date:2021');
    await poll(() => page.locator('#filter-chips .chip').count()).toBe(2);
    const wider = await rig.app.core.handlers.search({ q: 'IMG kind:photo date:2021', limit: 50 });
    await poll(() => page.locator('#results li').count()).toBe(wider.matches.length);
    // without operators: no chip, no offline-only note
    await page.fill('#search-input', 'IMG');
    await poll(() => page.locator('#filter-chips .chip').count()).toBe(0);
    expect(await page.locator('#offline-only').count()).toBe(0);
  }, 60_000);

  it('organizes a search: preview with flags, apply as one activity entry, one Undo', async () => {
    const q = 'IMG ext:jpg date:2021';
    await page.fill('#search-input', q);
    await poll(() => page.locator('#organize-results').isVisible()).toBe(true);
    await page.click('#organize-results');
    await poll(() => page.inputValue('#organize-q')).toBe(q);
    await page.fill('#organize-rename', '{date:YYYY-MM-DD} {counter:3}.{ext:lower}');
    await page.fill('#organize-move', 'Photos/{date:YYYY}/Sorted');
    await page.click('#organize-preview');
    await poll(() => page.locator('#organize-missing').textContent()).toContain('/Photos/2021/Sorted');
    await poll(() => page.locator('#organize-rows tr[data-status=missing-folder]').count()).toBeGreaterThan(0);
    expect(await page.isDisabled('#organize-apply')).toBe(true);
    await page.fill('#organize-move', '');
    await page.click('#organize-preview');
    await poll(() => page.locator('#organize-counts').textContent()).toMatch(/selected: \d+ will change/);
    const plan = await rig.app.core.handlers.organizePreview({ q, rename: '{date:YYYY-MM-DD} {counter:3}.{ext:lower}' });
    expect(plan.counts.ok).toBeGreaterThan(3);
    await shot('organize-preview');
    await page.click('#organize-apply');
    await poll(() => page.locator('#organize-done').isVisible()).toBe(true);
    const first = plan.items.find((i) => i.status === 'ok')!;
    await until(() => rig.svc.admin.get(first.id)?.name === first.to.split('/').pop(), 'renamed on the NAS', 60_000);
    await until(async () => (await rig.app.core.handlers.status({})).outbox === 0, 'batch sent', 60_000);
    await page.click('#tab-activity');
    const entry = page.locator('li.kind-organized');
    await poll(() => entry.count()).toBe(1);
    await poll(() => entry.locator('button.undo').count(), { timeout: 30_000 }).toBe(1);
    await shot('organize-activity');
    const batchWords = (await entry.locator('.summary').textContent())!;
    await entry.locator('button.undo').click();
    // every inverse change is sent: each item's NAS name is its name before the batch (issue 25 point 2)
    const ok = plan.items.filter((i) => i.status === 'ok');
    const nameOf = (p: string): string => p.split('/').pop()!;
    await until(() => ok.every((i) => rig.svc.admin.get(i.id)?.name === nameOf(i.from)), 'every change undone on the NAS', 60_000);
    // the undo's own line names the batch in words, and says it is done on the NAS (never “” nor waiting for good)
    const undo = page.locator('li.kind-undo');
    await poll(() => undo.count()).toBe(1);
    const undoWords = (await undo.locator('.summary').textContent())!;
    expect(undoWords).not.toContain('“”');
    expect(undoWords).toMatch(new RegExp(`^Undid the Organize batch of ${ok.length} items \\(.+\\)`));
    expect(batchWords).toContain(undoWords.replace(/^Undid the Organize batch of \d+ items \((.+)\):.*$/, '$1'));
    await poll(() => undo.locator('.state').textContent(), { timeout: 30_000 }).toBe('Done on the NAS');
    // the batch's own line is marked undone and has no Undo any more
    await poll(() => entry.locator('button.undo').count()).toBe(0);
    await poll(() => entry.locator('.undone').textContent()).toBe('Undone');
    await shot('organize-undone');
  }, 150_000);

  it('shows where the space goes: treemap, drill-down, breadcrumbs, kinds, years, largest, duplicates', async () => {
    await page.click('#tab-storage');
    await poll(() => page.locator('#treemap .cell').count()).toBeGreaterThan(3);
    await poll(() => page.locator('#storage-kinds li').count()).toBeGreaterThan(2);
    expect(await page.locator('#storage-years li').count()).toBeGreaterThan(2);
    expect(await page.locator('#storage-largest li').count()).toBeGreaterThan(5);
    const top = await rig.app.core.handlers.storage({});
    expect(await page.locator('#storage-total').textContent()).toContain(`${top.files.toLocaleString('en')} files`);
    await shot('storage');
    const folder = top.children.find((c) => c.folder)!;
    await page.click(`#treemap .cell[data-id="${folder.id}"]`);
    await poll(() => page.locator('#storage-crumbs .crumb.current').textContent()).toBe(folder.name);
    await shot('storage-drilled');
    await page.click('#storage-crumbs button.crumb');
    await poll(() => page.locator('#storage-crumbs .crumb.current').textContent()).toBe('NAS');
  }, 60_000);

  it('opens Organize on a folder from Browse, and every control of the new views is labelled', async () => {
    await page.click('#tab-browse');
    await page.locator('#browse-rows button.link.name', { hasText: /^Photos$/ }).click();
    await poll(() => page.locator('.browse-view .crumb.current').textContent()).toBe('Photos');
    await page.click('#organize-folder');
    await poll(() => page.inputValue('#organize-q')).toBe('in:"Photos"');
    // a folder name with ", \\, spaces and non-ASCII: quoted so the view finds exactly its file
    await page.click('#tab-browse');
    await page.locator('.browse-view button.crumb').first().click();
    await page.locator('#browse-rows button.link.name', { hasText: ODD }).click();
    await poll(() => page.locator('.browse-view .crumb.current').textContent()).toBe(ODD);
    await page.click('#organize-folder');
    await poll(() => page.inputValue('#organize-q')).toBe(quoteOperator('in', ODD));
    await page.fill('#organize-rename', '{name} renamed.{ext}');
    await page.fill('#organize-move', '');
    await page.click('#organize-preview');
    await poll(() => page.locator('#organize-counts').textContent()).toBe('1 selected: 1 will change');
    expect(await page.locator('#organize-rows td.entry-path').allTextContents()).toEqual([
      `/${ODD}/inside.txt`,
      `/${ODD}/inside renamed.txt`,
    ]);
    await page.click('#organize-apply');
    await until(() => rig.svc.admin.get(oddFile)?.name === 'inside renamed.txt', 'renamed on the NAS', 60_000);
    for (const view of ['organize', 'storage']) {
      await page.click(`#tab-${view}`);
      const unlabelled = await page.evaluate(() =>
        Array.from(document.querySelectorAll('input, select, button, [role=tab], [role=button]'))
          .filter((e) => (e as HTMLElement).offsetParent !== null || e.closest('svg') !== null)
          .filter((e) => {
            const labels = (e as HTMLInputElement).labels;
            return !((labels && labels.length > 0) || e.getAttribute('aria-label') || (e.tagName === 'BUTTON' && e.textContent?.trim()));
          })
          .map((e) => e.outerHTML.slice(0, 80)),
      );
      expect(unlabelled, view).toEqual([]);
    }
  }, 60_000);
});

describe('organize a selection in the window', () => {
  it('ticks rows by click and keyboard; the ticks survive paging, clear on a new query; Select all ticks every loaded row', async () => {
    await page.click('#tab-search');
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
    // Select all: every loaded row, then Unselect all; Ctrl+A on the list does the same
    const loaded = await ids();
    expect(await page.locator('#pick-all').textContent()).toBe(`Select all ${loaded.length}`);
    await page.locator('#results li').nth(4).locator('.pick').click();
    await page.click('#pick-all');
    await poll(ticked).toEqual(loaded);
    expect(await page.locator('#picked-count').textContent()).toBe(`${loaded.length} selected`);
    expect(await page.locator('#pick-all').textContent()).toBe('Unselect all');
    expect(await axeViolations(page)).toEqual([]);
    await shot('search-select-all');
    await page.click('#pick-all');
    await poll(() => page.locator('#pick-bar').isVisible()).toBe(false);
    expect(await ticked()).toEqual([]);
    await page.focus('#results');
    await page.keyboard.press('Control+A');
    await poll(ticked).toEqual(loaded);
    // More results: the new rows are not ticked until Select all again
    await page.click('.search-view button.more');
    await poll(async () => (await ids()).length).toBeGreaterThan(loaded.length);
    expect(await ticked()).toEqual(loaded);
    expect(await page.locator('#pick-all').textContent()).toBe(`Select all ${(await ids()).length}`);
    await page.click('#pick-all');
    await poll(ticked).toEqual(await ids());
    await page.click('#clear-picked');
    await poll(() => page.locator('#pick-bar').isVisible()).toBe(false);
  }, 90_000);

  it('Organize selected: the preview lists exactly the two, apply renames them on the NAS', async () => {
    const q = 'IMG ext:jpg';
    const want = await rig.app.core.handlers.search({ q, limit: 50 });
    const a = want.matches[3]!.file,
      b = want.matches[7]!.file;
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
    const paths = await page
      .locator('#organize-rows tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td.entry-path')).map((td) => td.textContent)));
    const dir = (p: string): string => p.slice(0, p.lastIndexOf('/') + 1);
    const pathOf = async (id: string): Promise<string> =>
      (await rig.app.core.handlers.organizePreview({ ids: [id], rename: '{name}' })).items[0]!.from;
    const pa = await pathOf(a.id),
      pb = await pathOf(b.id);
    // in the order ticked: b first
    expect(paths).toEqual([
      [`/${pb}`, `/${dir(pb)}picked 1.jpg`],
      [`/${pa}`, `/${dir(pa)}picked 2.jpg`],
    ]);
    expect(await axeViolations(page)).toEqual([]);
    await shot('organize-selection-preview');
    await page.click('#organize-apply');
    await poll(() => page.locator('#organize-done').isVisible()).toBe(true);
    await until(
      () => rig.svc.admin.get(b.id)?.name === 'picked 1.jpg' && rig.svc.admin.get(a.id)?.name === 'picked 2.jpg',
      'renamed on the NAS',
      60_000,
    );
    // "Use a search instead" brings the query field back
    await page.click('#organize-use-query');
    await poll(() => page.locator('#organize-q').isVisible()).toBe(true);
    expect(await page.locator('#organize-source').isVisible()).toBe(false);
  }, 90_000);
});
