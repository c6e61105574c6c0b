/**
 * The window, end to end, in Debian's Chromium against browser mode: real service, real
 * engine, real mirror folder. The tests run in order on one rig (each builds on the last):
 * token entry, search (same results and highlights as the service), completion and "did
 * you mean", browse, a rename on disk in Activity and on the NAS, undo, a conflict resolved,
 * held deletes rejected and approved, settings surviving a restart. Screenshots of every
 * view go to test-artifacts/e2e/.
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeBothThemes } from './a11y.js';
import { ARTIFACTS, servicePatch, serviceSearch, startRig, until, type Rig } from './harness.js';

/** expect.poll with a deadline that tolerates a loaded machine (it asserts nothing about speed). */
const poll = <T>(fn: () => T | Promise<T>, o: { timeout?: number } = {}) => expect.poll(fn, { timeout: 20_000, interval: 50, ...o });

let rig: Rig;
let page: Page;

const shot = async (name: string, p: Page = page): Promise<void> => {
  await p.evaluate(() => document.querySelectorAll('.toast').forEach((t) => t.remove()));
  await p.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false });
};
const tab = (name: string) => page.getByRole('tab', { name: new RegExp(`^${name}`) });

beforeAll(async () => {
  rig = await startRig();
  page = await rig.newPage();
}, 120_000);
afterAll(async () => {
  await rig?.close();
});

describe('NAS Mirror window (browser mode, Chromium)', () => {
  it('starts unconfigured, takes the NAS address and the token in Settings, and never shows the token back', async () => {
    await poll(() => page.locator('#conn-badge').textContent()).toBe('Not set up');
    await tab('Settings').click();
    await poll(() => page.locator('#token-state').textContent()).toContain('No keychain is available');
    await page.fill('#set-location', rig.svc.baseUrl);
    await page.click('#save-settings');
    await poll(() => page.locator('#settings-saved').textContent()).toBe('Saved.');
    await page.fill('#set-token', rig.token);
    await page.click('#store-token');
    await poll(() => page.locator('#token-state').textContent()).toContain('memory only');
    expect(await page.inputValue('#set-token')).toBe('');
    await until(async () => (await rig.app.core.handlers.status({})).lastCompleteWalk !== null, 'first walk', 60_000);
    await poll(() => page.locator('#conn-badge').textContent(), { timeout: 30_000 }).toBe('Online');
    const html = await page.content();
    expect(html).not.toContain(rig.token);
    const settings = await rig.app.core.handlers.getSettings({});
    expect(JSON.stringify(settings)).not.toContain(rig.token);
  }, 90_000);

  it("search as you type shows the service's own results and highlights", async () => {
    await tab('Search').click();
    const q = '2018';
    await page.fill('#search-input', q);
    const expected = await serviceSearch(rig.svc, rig.token, q, 50);
    expect(expected.matches.length).toBeGreaterThan(0);
    await poll(async () => page.locator('#results li').count()).toBe(expected.matches.length);
    const ids = await page.locator('#results li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')));
    expect(ids).toEqual(expected.matches.map((m) => m.file.id));
    // highlights: the <mark>s of each row's name are the service's name-fragment locations
    const marks = await page
      .locator('#results li')
      .evaluateAll((lis) => lis.map((li) => Array.from(li.querySelectorAll('.hit-name mark')).map((m) => m.textContent)));
    const want = expected.matches.map((m) => {
      const frag = m.fragments.find((f) => f.text === m.file.name);
      return frag ? frag.locations.map((l) => frag.text.slice(l.index, l.index + l.length)) : [];
    });
    expect(marks).toEqual(want);
    // more queries: phrase, camera make and mimeType matches; every fragment's highlights
    for (const more of ['"in iceland"', 'canon', 'x.service', 'img_2', 'jpg 2021']) {
      await page.fill('#search-input', more);
      const exp = await serviceSearch(rig.svc, rig.token, more, 50);
      expect(exp.matches.length, more).toBeGreaterThan(0);
      await poll(async () => page.locator('#results li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')))).toEqual(
        exp.matches.map((m) => m.file.id),
      );
      const got = await page
        .locator('#results li')
        .evaluateAll((lis) =>
          lis.map((li) =>
            [li.querySelector('.hit-name'), ...Array.from(li.querySelectorAll('.hit-frags .frag'))].map((f) =>
              Array.from(f!.querySelectorAll('mark')).map((m) => m.textContent),
            ),
          ),
        );
      const wanted = exp.matches.map((m) => {
        const nameFrag = m.fragments.find((f) => f.text === m.file.name);
        const marksOf = (f: { text: string; locations: { index: number; length: number }[] }) =>
          f.locations.map((l) => f.text.slice(l.index, l.index + l.length));
        // a camera make its model repeats ("Canon", "Canon EOS R6") is shown once, as the model
        const img = (m.file as { image?: { cameraMake?: unknown; cameraModel?: unknown } }).image;
        const make = typeof img?.cameraMake === 'string' ? img.cameraMake.trim().toLowerCase() : '';
        const model = typeof img?.cameraModel === 'string' ? img.cameraModel.trim().toLowerCase() : '';
        const others = m.fragments.filter((f) => f !== nameFrag);
        const repeated = make !== '' && model.startsWith(make) && others.some((f) => f.text.trim().toLowerCase() === model);
        return [
          nameFrag ? marksOf(nameFrag) : [],
          ...others.filter((f) => !(repeated && f.text.trim().toLowerCase() === make)).map(marksOf),
        ];
      });
      expect(got, more).toEqual(wanted);
    }
    await page.fill('#search-input', q);
    await poll(async () => page.locator('#results li').count()).toBe(expected.matches.length);
    await page.locator('#results li').first().locator('.act', { hasText: 'Reveal' }).click();
    await until(() => rig.app.opened.length > 0, 'reveal recorded');
    expect(rig.app.opened[0]).toMatchObject({ what: 'reveal' });
    expect(rig.app.opened[0]!.path.startsWith(rig.mirror)).toBe(true);
    expect(existsSync(rig.app.opened[0]!.path)).toBe(true);
    await shot('search');
  });

  it('completes words (Tab) and offers "did you mean"', async () => {
    await page.fill('#search-input', 'icel');
    const words = page.locator('#completion .word');
    await poll(async () => (await words.count()) > 0 && (await words.first().textContent())!.toLowerCase().startsWith('icel')).toBe(true);
    const first = await words.first().textContent();
    await page.focus('#search-input');
    await page.keyboard.press('Tab');
    expect(await page.inputValue('#search-input')).toBe(`${first} `);
    // a Tab before the completions of new text arrive never takes a word of the text before
    await page.fill('#search-input', 'icel');
    await poll(() => words.count()).toBeGreaterThan(0);
    const after = await page.evaluate(() => {
      const input = document.getElementById('search-input') as HTMLInputElement;
      input.value = 'rome';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab', bubbles: true, cancelable: true }));
      return input.value;
    });
    expect(after).toBe('rome');
    await page.fill('#search-input', 'icelnad');
    await poll(() => page.locator('#did-you-mean').count()).toBe(1);
    const suggestion = await page.locator('#did-you-mean').textContent();
    expect(suggestion).toBeTruthy();
    await shot('did-you-mean');
    await page.click('#did-you-mean');
    await poll(() => page.inputValue('#search-input')).toBe(suggestion);
    await poll(() => page.locator('#results li').count()).toBeGreaterThan(0);
  });

  it('a search the engine refuses clears the results it would misattribute and says why in words', async () => {
    await page.fill('#search-input', 'rome');
    await poll(() => page.locator('#results li').count()).toBeGreaterThan(0);
    await page.fill('#search-input', 'x'.repeat(1100));
    await poll(() => page.locator('#search-error').textContent()).toBe(
      'The search is too long: at most 1,024 characters. Shorten it to search.',
    );
    expect(await page.locator('#results li').count()).toBe(0);
    expect(await page.locator('#search-meta').textContent()).not.toMatch(/args\.q/);
  });

  it('works from the keyboard, and every control has a label', async () => {
    await page.keyboard.press('Alt+2');
    await poll(() => page.locator('#tab-browse').getAttribute('aria-selected')).toBe('true');
    await page.locator('body').click({ position: { x: 5, y: 400 } });
    await page.keyboard.press('/');
    await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('search-input');
    await page.fill('#search-input', '.pdf');
    // wait for the .pdf results themselves, not the previous query's rows
    await poll(async () => {
      const n = await page.locator('#results li .hit-name').allTextContents();
      return n.length > 1 && n.every((t) => t.endsWith('.pdf'));
    }).toBe(true);
    const before = rig.app.opened.length;
    await page.keyboard.press('ArrowDown');
    await poll(() => page.locator('#results li.selected').getAttribute('aria-selected')).toBe('true');
    const id = await page.locator('#results li.selected').getAttribute('data-id');
    const name = (await page.locator('#results li.selected .hit-name').textContent()) ?? '';
    await page.keyboard.press('Enter');
    // a placeholder is downloaded (generated content from the demo NAS), then opened in its app
    await until(() => rig.app.opened.length > before, 'open recorded');
    expect(rig.app.opened.at(-1)!.what).toBe('open');
    expect(rig.app.opened.at(-1)!.path.endsWith(name)).toBe(true);
    expect(statSync(rig.app.opened.at(-1)!.path).size).toBe(rig.svc.admin.get(id!)!.size);
    expect(await axeBothThemes(page)).toEqual([]);
    expect(id).toBeTruthy();
    // content of the user's own: Open opens it as it is
    writeFileSync(rig.app.opened.at(-1)!.path, 'content of my own');
    await until(async () => (await rig.app.core.handlers.open({ id: id! })).opened, 'a filled file opens', 20_000);
    expect(rig.app.opened.at(-1)!.what).toBe('open');
    for (const view of ['search', 'browse', 'activity', 'conflicts', 'settings']) {
      await page.click(`#tab-${view}`);
      const unlabelled = await page.evaluate(() =>
        Array.from(document.querySelectorAll('input, select, button, [role=tab], [role=listbox]'))
          .filter((e) => (e as HTMLElement).offsetParent !== null)
          .filter((e) => {
            const labels = (e as HTMLInputElement).labels;
            const named =
              (labels && labels.length > 0) ||
              e.getAttribute('aria-label') ||
              e.getAttribute('aria-labelledby') ||
              (e.tagName === 'BUTTON' && e.textContent?.trim());
            return !named;
          })
          .map((e) => e.outerHTML.slice(0, 80)),
      );
      expect(unlabelled, view).toEqual([]);
    }
    await page.click('#tab-search');
  });

  it('browses the offline folder tree', async () => {
    await tab('Browse').click();
    const rootNames = readdirSync(rig.mirror)
      .filter((n) => !n.startsWith('.'))
      .sort();
    await poll(() =>
      page
        .locator('#browse-rows .name')
        .allTextContents()
        .then((t) => [...t].sort()),
    ).toEqual(rootNames);
    const folder = page.locator('#browse-rows tr.folder .name').first();
    const folderName = (await folder.textContent())!;
    await folder.click();
    await poll(() => page.locator('.crumb.current').textContent()).toBe(folderName);
    const inside = readdirSync(join(rig.mirror, folderName)).length;
    await poll(() => page.locator('#browse-rows tr').count()).toBe(inside);
    // go down until a folder holds files, for a screenshot worth looking at
    for (let depth = 0; depth < 4 && (await page.locator('#browse-rows tr.file').count()) < 3; depth++) {
      const sub = page.locator('#browse-rows tr.folder .name').first();
      if ((await sub.count()) === 0) break;
      const subName = (await sub.textContent())!;
      await sub.click();
      await poll(() => page.locator('.crumb.current').textContent()).toBe(subName);
    }
    await shot('browse');
    await page.locator('.crumbs button', { hasText: 'NAS' }).click();
    await poll(() => page.locator('.crumb.current').textContent()).toBe('NAS');
  });

  it('a rename on disk reaches the NAS and Activity, and can be undone', async () => {
    const { dir, name } = someFile(rig.mirror);
    const id = await idOf(dir, name);
    const to = `Renamed ${name}`;
    renameSync(join(rig.mirror, dir, name), join(rig.mirror, dir, to));
    await until(() => rig.svc.admin.get(id)?.name === to, 'rename on the NAS');
    await tab('Activity').click();
    // one line per action, in words, with whether the NAS took it; the engine's record under Details
    const entry = page
      .locator('#activity-list li', { hasText: `Renamed “${name}” to “${to}”` })
      .filter({ has: page.locator('button.undo') });
    await poll(() => entry.count(), { timeout: 15_000 }).toBe(1);
    await poll(() => entry.locator('.state').textContent(), { timeout: 15_000 }).toBe('Done on the NAS');
    expect(await entry.locator('.summary').textContent()).toBe(`Renamed “${name}” to “${to}”`);
    expect(await entry.locator('.reason').first().isVisible()).toBe(false);
    await entry.locator('details summary').click();
    expect(await entry.locator('.reason').first().isVisible()).toBe(true);
    expect(await entry.locator('details').textContent()).toMatch(/If-Match/);
    for (const line of await page.locator('#activity-list li .summary').allTextContents())
      expect(line).not.toMatch(/If-Match|eTag|inode|#\d+|\(local\)/);
    // filter and search
    await page.selectOption('#activity-filter', 'nas');
    await poll(() => page.locator('#activity-list li', { hasText: to }).count()).toBe(0);
    await page.selectOption('#activity-filter', 'mine');
    await page.fill('#activity-search', to);
    await poll(() => page.locator('#activity-list li').count()).toBe(1);
    await page.fill('#activity-search', '');
    await page.selectOption('#activity-filter', 'all');
    await shot('activity');
    expect(await axeBothThemes(page)).toEqual([]);
    // narrow (380 px): nothing scrolls sideways
    await page.setViewportSize({ width: 380, height: 700 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(380);
    await page.setViewportSize({ width: 1180, height: 780 });
    await entry.locator('button.undo').click();
    await until(() => rig.svc.admin.get(id)?.name === name, 'undo on the NAS');
    await until(() => existsSync(join(rig.mirror, dir, name)) && !existsSync(join(rig.mirror, dir, to)), 'undo on disk');
  }, 60_000);

  it('a rename that waits to be sent (sync paused) shows on its search result under the new name, marked as waiting', async () => {
    const { dir, name } = someFile(rig.mirror, 3);
    const id = await idOf(dir, name);
    await rig.app.core.handlers.setPaused({ paused: true });
    const to = `Waiting ${name}`;
    renameSync(join(rig.mirror, dir, name), join(rig.mirror, dir, to));
    await until(async () => (await rig.app.core.handlers.status({})).outbox === 1, 'the rename queued');
    await tab('Search').click();
    await page.fill('#search-input', name.replace(/\.[^.]*$/, ''));
    const row = page.locator(`#results li[data-id="${id}"]`);
    await poll(() => row.locator('.hit-pending').textContent()).toBe(`Renamed here from “${name}”: waits to be sent to the NAS`);
    expect(await row.locator('.hit-name').textContent()).toBe(to);
    await rig.app.core.handlers.setPaused({ paused: false });
    await until(() => rig.svc.admin.get(id)?.name === to, 'sent once resumed');
    await page.fill('#search-input', to.replace(/\.[^.]*$/, ''));
    const sent = page.locator('#results li').filter({ has: page.locator('.hit-name', { hasText: to }) });
    await poll(() => sent.count()).toBeGreaterThan(0);
    await poll(() => sent.first().locator('.hit-pending').count()).toBe(0);
  }, 60_000);

  it('conflicts appear in Conflicts; one is re-applied, the other dropped', async () => {
    const a = someFile(rig.mirror, 1);
    const b = someFile(rig.mirror, 2);
    const idA = await idOf(a.dir, a.name);
    const idB = await idOf(b.dir, b.name);
    await page.click('#pause-toggle');
    await until(async () => (await rig.app.core.handlers.status({})).paused, 'paused from the window');
    await poll(() => page.locator('#pause-toggle').textContent()).toBe('Resume');
    renameSync(join(rig.mirror, a.dir, a.name), join(rig.mirror, a.dir, `Mine ${a.name}`));
    renameSync(join(rig.mirror, b.dir, b.name), join(rig.mirror, b.dir, `Mine ${b.name}`));
    await until(async () => (await rig.app.core.handlers.status({})).outbox >= 2, 'local renames queued');
    expect(await servicePatch(rig.svc, rig.token, idA, { name: `Theirs ${a.name}` })).toBe(204);
    expect(await servicePatch(rig.svc, rig.token, idB, { name: `Theirs ${b.name}` })).toBe(204);
    // browser mode notifies through the Notifications API (recorded here; permission granted)
    await page.evaluate(() => {
      const w = window as unknown as { notes: string[]; Notification: unknown };
      w.notes = [];
      w.Notification = class {
        static permission = 'granted';
        onclick: unknown = null;
        constructor(title: string) {
          w.notes.push(title);
        }
      };
    });
    await page.click('#pause-toggle');
    await until(async () => (await rig.app.core.handlers.status({})).conflicts >= 2, 'conflicts recorded');
    await poll(() => page.evaluate(() => (window as unknown as { notes: string[] }).notes.join('; '))).toMatch(/new conflict/);
    await tab('Conflicts').click();
    await poll(() => page.locator('#conflict-count').textContent()).toBe('2');
    await poll(() => page.locator('#conflicts tbody tr').count()).toBe(2);
    await shot('conflicts');
    expect(await axeBothThemes(page)).toEqual([]);
    const rowOf = (name: string) => page.locator('#conflicts tbody tr', { hasText: `Mine ${name}` });
    // headers, the original name, a button pair per row
    expect(await page.locator('#conflicts thead th').allTextContents()).toEqual(['Select', 'Your change', 'On the NAS', 'When', 'Actions']);
    expect(await rowOf(a.name).locator('.name').textContent()).toBe(`Theirs ${a.name}`); // as on disk now
    expect(existsSync(join(rig.mirror, a.dir, `Theirs ${a.name}`))).toBe(true);
    await rowOf(a.name).locator('[data-row-action="keep-mine"]').click();
    await until(() => rig.svc.admin.get(idA)?.name === `Mine ${a.name}`, 're-applied on the NAS');
    await poll(() => page.locator('#conflicts tbody tr').count()).toBe(1);
    await page.check('#conflicts-all');
    await page.click('#conflicts [data-action="keep-nas"]');
    await poll(() => page.locator('#conflicts tbody tr').count()).toBe(0);
    expect(rig.svc.admin.get(idB)?.name).toBe(`Theirs ${b.name}`);
    await until(() => existsSync(join(rig.mirror, b.dir, `Theirs ${b.name}`)), 'the NAS version on disk');
    await until(() => existsSync(join(rig.mirror, a.dir, `Mine ${a.name}`)), 'the re-applied name on disk');
  }, 60_000);

  it('a large delete is held; rejecting restores it, approving deletes it on the NAS', async () => {
    const dir = bigFolder(rig.mirror, 6);
    const id = await idOf('', dir);
    const entries = countTree(join(rig.mirror, dir));
    rmSync(join(rig.mirror, dir), { recursive: true });
    await until(async () => (await rig.app.core.handlers.status({})).heldDeletes > 0, 'delete held');
    await tab('Conflicts').click();
    await poll(() => page.locator('#held tbody tr').count()).toBeGreaterThan(0);
    await shot('held-deletes');
    expect(await axeBothThemes(page)).toEqual([]);
    expect(await page.locator('#held thead th').allTextContents()).toEqual(['Select', 'Deleted here', 'Size', 'Since', 'Actions']);
    expect(await page.locator('#held tbody tr .name').first().textContent()).toBe(dir);
    await page.check('#held-all');
    await poll(() => page.locator('#state-line').textContent()).toMatch(/held deletes? waits? for you/);
    const keptAt = Date.now();
    await page.click('#held [data-action="keep"]');
    // every view follows within a second of the click, from the one status (issue 25 point 9): the
    // header's state line and badge, the tab's count, the Conflicts list, and Activity
    const inTime = (what: string, fn: () => Promise<boolean>) => withinOf(keptAt, 1_000, what, fn);
    await inTime('the tab count gone', async () => (await page.locator('#conflict-count').count()) === 0);
    await inTime('the held rows gone', async () => (await page.locator('#held tbody tr').count()) === 0);
    await inTime('the state line', async () => !/held delete|for you/.test((await page.locator('#state-line').textContent()) ?? ''));
    await inTime('the badge', async () => (await page.locator('#conn-badge').textContent()) === 'Online');
    await tab('Activity').click();
    await inTime(
      'the Activity line',
      async () => (await page.locator('#activity-list li', { hasText: `You kept “${dir}”: the delete was cancelled` }).count()) === 1,
    );
    await tab('Conflicts').click();
    await until(() => existsSync(join(rig.mirror, dir)) && countTree(join(rig.mirror, dir)) === entries, 'placeholders restored');
    expect(rig.svc.admin.get(id)).toBeDefined();
    await until(async () => {
      const st = await rig.app.core.handlers.status({});
      return st.heldDeletes === 0 && st.outbox === 0 && !st.walk.running;
    }, 'engine settled');

    rmSync(join(rig.mirror, dir), { recursive: true });
    await until(async () => (await rig.app.core.handlers.status({})).heldDeletes > 0, 'delete held again');
    await poll(() => page.locator('#held tbody tr').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    // deleting from the NAS asks first, naming how much goes; Cancel deletes nothing
    await page.check('#held-all');
    await page.click('#held [data-action="delete-from-nas"]');
    await poll(() => page.locator('#held-confirm').isVisible()).toBe(true);
    expect(await page.locator('#held-confirm-title').textContent()).toMatch(
      new RegExp(`^Delete (“${dir}” and the \\d+ items in it|\\d+ entries \\(\\d+ items in all\\)) from the NAS\\?$`),
    );
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('held-confirm-no');
    await shot('held-confirm');
    expect(await axeBothThemes(page)).toEqual([]);
    await page.click('#held-confirm-no');
    await poll(() => page.locator('#held-confirm').isVisible()).toBe(false);
    expect(rig.svc.admin.get(id)).toBeDefined();
    expect(await page.locator('#held tbody tr').count()).toBeGreaterThan(0);
    await page.check('#held-all');
    await page.click('#held [data-action="delete-from-nas"]');
    await page.click('#held-confirm-yes');
    await until(() => rig.svc.admin.get(id) === undefined, 'deleted on the NAS');
  }, 60_000);

  it('settings survive a restart', async () => {
    await tab('Settings').click();
    await poll(() => page.inputValue('#set-mirror')).toBe(rig.mirror);
    await page.fill('#set-interval', '120');
    await page.fill('#set-thr-count', '7');
    await page.selectOption('#set-theme', 'dark');
    await page.click('#save-settings');
    await poll(() => page.locator('#settings-saved').textContent()).toBe('Saved.');
    await rig.app.close();
    rig.app = await rig.startApp();
    page = await rig.newPage({ colorScheme: 'dark' });
    await page.getByRole('tab', { name: /^Settings/ }).click();
    await poll(() => page.inputValue('#set-interval')).toBe('120');
    expect(await page.inputValue('#set-thr-count')).toBe('7');
    expect(await page.inputValue('#set-theme')).toBe('dark');
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
    // no keychain here: the token was in memory only, and the window says so
    await poll(() => page.locator('#token-state').textContent()).toContain('memory only');
    await shot('settings');
    // offline search still answers from the index with no engine running (dark theme)
    await page.getByRole('tab', { name: /^Search/ }).click();
    await page.fill('#search-input', 'iceland');
    await poll(() => page.locator('#results li').count()).toBeGreaterThan(0);
    await shot('search-dark');
  }, 60_000);
});

/** Polls `fn` until true; fails when it is not by `ms` after `since` (a user's click). */
async function withinOf(since: number, ms: number, what: string, fn: () => Promise<boolean>): Promise<void> {
  for (;;) {
    const late = Date.now() - since;
    if (await fn()) return;
    if (late > ms) throw new Error(`${what}: not within ${ms} ms of the click (${Date.now() - since} ms)`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A file placeholder below a top-level folder (the `skip`-th found). */
function someFile(root: string, skip = 0): { dir: string; name: string } {
  let seen = 0;
  for (const top of readdirSync(root)
    .filter((n) => !n.startsWith('.'))
    .sort()) {
    if (!statSync(join(root, top)).isDirectory()) continue;
    for (const f of readdirSync(join(root, top)).sort()) {
      if (f.startsWith('Renamed ') || f.startsWith('Mine ')) continue;
      if (statSync(join(root, top, f)).isFile() && seen++ === skip) return { dir: top, name: f };
    }
  }
  throw new Error('no file placeholder in the mirror');
}

/** Entries below a folder, all levels. */
function countTree(p: string): number {
  return readdirSync(p).reduce((n, e) => n + 1 + (statSync(join(p, e)).isDirectory() ? countTree(join(p, e)) : 0), 0);
}

/** A top-level folder holding at least `min` entries in all. */
function bigFolder(root: string, min: number): string {
  for (const top of readdirSync(root)
    .filter((n) => !n.startsWith('.'))
    .sort()) {
    if (statSync(join(root, top)).isDirectory() && countTree(join(root, top)) >= min) return top;
  }
  throw new Error('no big folder');
}

/** The NAS id of `dir/name` (dir '' = top level), through the window's own contract. */
async function idOf(dir: string, name: string): Promise<string> {
  const h = rig.app.core.handlers;
  let folder = (await h.list({ folderId: 'root' })).folder.id;
  if (dir) folder = (await h.list({ folderId: folder })).files.find((f) => f.name === dir)!.id;
  const hit = (await h.list({ folderId: folder })).files.find((f) => f.name === name);
  if (!hit) throw new Error(`no ${dir}/${name} in the index`);
  return hit.id;
}
