/**
 * New files dropped into the mirror folder, in the window, end to end (Debian's Chromium,
 * browser mode, real service, real engine, real mirror folder, the default limit of 50):
 * a few upload without asking while the header says "Uploading…"; many at once (60) wait in
 * Conflicts ("New files waiting for your OK") with the header and the tab's count pointing
 * there, then "Upload" for all sends every one to the NAS; "Keep on this computer only"
 * sends none; a new folder is one row that covers everything in it; more than the window
 * lists are decided all at once. Screenshots of the held uploads (1280x800 light and dark,
 * 520 and 380 px) go to test-artifacts/e2e/.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFolder, type RemoteObject } from '../../app/model/remote-object.js';
import { HELD_UPLOADS_SHOWN } from '../../app/contract/methods.js';
import { ServiceClient } from '../../main/client/service-client.js';
import { axeBothThemes } from './a11y.js';
import { ARTIFACTS, startRig, until, type Rig } from './harness.js';

let rig: Rig;
let page: Page;
let client: ServiceClient;

const status = () => rig.app.core.handlers.status({});
const stateLine = async (): Promise<string> => (await page.locator('#state-line').textContent()) ?? '';
const tab = (name: string) => page.getByRole('tab', { name: new RegExp(`^${name}`) });

/** The NAS's children of a folder, by name. */
const nasChildren = async (parentId: string): Promise<Map<string, RemoteObject>> => {
  const out = new Map<string, RemoteObject>();
  for await (const p of client.pages(parentId)) for (const o of p.files) out.set(o.name, o);
  return out;
};

/** Top-level folders of the demo NAS that are in the mirror folder, by name. */
const nasFolders = async (): Promise<RemoteObject[]> =>
  [...(await nasChildren(rig.svc.admin.rootId())).values()].filter((o) => isFolder(o) && readdirSync(rig.mirror).includes(o.name));

/** Writes `n` new files into a folder of the mirror (distinct sizes); their names and sizes. */
const drop = (dir: string, prefix: string, n: number): Map<string, number> => {
  const out = new Map<string, number>();
  for (let i = 1; i <= n; i++) {
    const name = `${prefix} ${String(i).padStart(2, '0')}.txt`;
    const body = `${prefix} ${i}\n`.repeat(i);
    writeFileSync(join(rig.mirror, dir, name), body);
    out.set(name, Buffer.byteLength(body));
  }
  return out;
};

/** Every dropped file is on the NAS in that folder, complete. */
const allOnNas = async (folderId: string, files: Map<string, number>): Promise<boolean> => {
  const kids = await nasChildren(folderId);
  return [...files].every(([name, size]) => kids.get(name)?.size === size);
};

const settled = async (): Promise<boolean> => {
  const st = await status();
  return st.outbox === 0 && st.uploads.waiting === 0 && st.uploads.held === 0 && !st.walk.running;
};

beforeAll(async () => {
  rig = await startRig();
  // the harness's delete limit is 5; these tests use the app's default (50): 60 new files cross it, 3 do not
  await rig.app.core.handlers.updateSettings({ patch: { location: rig.svc.baseUrl, deleteThresholdCount: 50 } });
  await rig.app.core.handlers.setToken({ token: rig.token });
  await until(async () => (await status()).lastCompleteWalk !== null, 'first walk', 60_000);
  client = new ServiceClient({ baseUrl: rig.svc.baseUrl, token: rig.token, retries: 1, timeoutMs: 5000 });
  page = await rig.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
}, 120_000);
afterAll(async () => {
  client?.close();
  await rig?.close();
});

describe('new files in the mirror folder, in the window (browser mode, Chromium)', () => {
  it('a few new files upload without asking; the header says so while they go, then up to date', async () => {
    expect((await rig.app.core.handlers.getSettings({})).deleteThresholdCount).toBe(50);
    await until(settled, 'engine settled');
    const [folder] = await nasFolders();
    expect(folder).toBeDefined();
    // every line the header shows from now on
    await page.evaluate(() => {
      const line = document.getElementById('state-line')!;
      const seen: string[] = [];
      (window as unknown as { seenLines: string[] }).seenLines = seen;
      new MutationObserver(() => {
        seen.push(line.textContent ?? '');
      }).observe(line, { childList: true, characterData: true, subtree: true });
    });
    const files = drop(folder!.name, 'Small drop', 3);
    await until(
      async () => (await allOnNas(folder!.id, files)) && (await settled()) && (await stateLine()).startsWith('Up to date'),
      'the 3 files on the NAS and the header up to date',
      60_000,
    );
    const lines = await page.evaluate(() => (window as unknown as { seenLines: string[] }).seenLines);
    // while they went, the header said so, in words
    expect(lines.some((l) => /^Uploading [1-3] new items? to the NAS…$/.test(l))).toBe(true);
    expect(lines.some((l) => /wait for your OK/.test(l))).toBe(false);
    expect(await page.locator('#conflict-count').count()).toBe(0);
    for (const name of files.keys()) expect(statSync(join(rig.mirror, folder!.name, name)).size).toBe(files.get(name));
  }, 90_000);

  it('60 new files at once wait for your OK in Conflicts; "Upload" for all sends every one to the NAS', async () => {
    const [, folder] = await nasFolders();
    expect(folder).toBeDefined();
    const files = drop(folder!.name, 'Holiday photo', 60);
    await until(async () => (await status()).uploads.held === 60, 'the 60 new files held', 30_000);
    // the header leads to them: in words, the tab's count, the Resolve button
    await until(async () => (await stateLine()) === '60 new items wait for your OK to upload', 'the header in words');
    expect(await page.locator('#conflict-count').textContent()).toBe('60');
    expect(await page.locator('body').getAttribute('data-tray')).toBe('attention');
    await page.click('#state-fix');
    expect(await tab('Conflicts').getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('#state-fix').isVisible()).toBe(false);
    await until(async () => (await page.locator('#uploads tbody tr').count()) === 60, 'the 60 rows');
    expect(await page.locator('#uploads h2').textContent()).toBe('New files waiting for your OK');
    expect(await page.locator('#uploads .intro').first().textContent()).toContain("A folder's row covers everything in it.");
    expect(await page.locator('#uploads thead th').allTextContents()).toEqual(['Select', 'New here', 'What', 'Since', 'Actions']);
    const first = page.locator('#uploads tbody tr').first();
    expect(await first.locator('.name').textContent()).toBe('Holiday photo 01.txt');
    expect(await first.locator('.entry-path').textContent()).toBe(`in /${folder!.name}`);
    expect(await first.locator('td').nth(2).textContent()).toBe('file');
    expect(await first.locator('[data-row-action="upload"]').getAttribute('aria-label')).toBe('Upload: Holiday photo 01.txt');
    expect(await first.locator('[data-row-action="keep-here"]').textContent()).toBe('Keep on this computer only');
    // nothing went up meanwhile
    expect(await allOnNas(folder!.id, new Map([['Holiday photo 01.txt', files.get('Holiday photo 01.txt')!]]))).toBe(false);

    await page.evaluate(() => document.querySelectorAll('.toast').forEach((t) => t.remove()));
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(ARTIFACTS, `held-uploads-${scheme}.png`) });
      await page.evaluate(() => window.scrollBy(0, 600));
      await page.screenshot({ path: join(ARTIFACTS, `held-uploads-rows-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await axeBothThemes(page)).toEqual([]);
    // narrow windows: the rows and their buttons stay whole, nothing scrolls sideways
    for (const width of [520, 380]) {
      await page.setViewportSize({ width, height: 800 });
      await page.evaluate(() => document.getElementById('uploads')?.scrollIntoView());
      await page.screenshot({ path: join(ARTIFACTS, `held-uploads-${width}.png`) });
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      const box = await page.locator('#uploads tbody tr').first().locator('[data-row-action="keep-here"]').boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.check('#uploads-all');
    expect(await page.locator('#uploads [data-action="upload"]').isEnabled()).toBe(true);
    await page.click('#uploads [data-action="upload"]');
    await until(async () => (await page.locator('#uploads tbody tr').count()) === 0, 'the rows gone');
    expect(await page.locator('#uploads .empty').textContent()).toBe('No new files are waiting.');
    await until(async () => (await page.locator('.toast', { hasText: 'Upload approved: 60 items.' }).count()) > 0, 'the toast');
    await until(async () => (await allOnNas(folder!.id, files)) && (await settled()), 'the 60 files on the NAS', 90_000);
    await until(async () => (await stateLine()).startsWith('Up to date'), 'the header up to date');
    expect(await page.locator('#conflict-count').count()).toBe(0);
    // each went up once
    const names = [...(await nasChildren(folder!.id)).keys()].filter((n) => n.startsWith('Holiday photo'));
    expect(names.length).toBe(60);
  }, 180_000);

  it('"Keep on this computer only" sends none of them: they stay in the mirror folder', async () => {
    const [, , folder] = await nasFolders();
    expect(folder).toBeDefined();
    const files = drop(folder!.name, 'Scan', 55);
    await until(async () => (await status()).uploads.held === 55, 'the 55 new files held', 30_000);
    await tab('Conflicts').click();
    await until(async () => (await page.locator('#uploads tbody tr').count()) === 55, 'the 55 rows');
    // one row alone first, then the rest
    await page.locator('#uploads tbody tr').first().locator('[data-row-action="keep-here"]').click();
    await until(async () => (await page.locator('#uploads tbody tr').count()) === 54, 'one row decided');
    await page.check('#uploads-all');
    await page.click('#uploads [data-action="keep-here"]');
    await until(async () => (await page.locator('#uploads tbody tr').count()) === 0 && (await status()).uploads.held === 0, 'all decided');
    await until(async () => (await status()).outbox === 0, 'nothing to send');
    const kids = await nasChildren(folder!.id);
    expect([...files.keys()].filter((n) => kids.has(n))).toEqual([]);
    for (const name of files.keys()) expect(statSync(join(rig.mirror, folder!.name, name)).size).toBe(files.get(name));
    await until(async () => (await stateLine()).startsWith('Up to date'), 'the header up to date');
  }, 120_000);

  it('a new folder with many files in it is one row, "folder, with everything in it"; its Upload sends the folder and its files', async () => {
    const [folder] = await nasFolders();
    mkdirSync(join(rig.mirror, folder!.name, 'Trip 2026'));
    const files = drop(join(folder!.name, 'Trip 2026'), 'Day', 60);
    await until(async () => (await status()).uploads.held === 1, 'the new folder held', 30_000);
    await tab('Conflicts').click();
    await until(async () => (await page.locator('#uploads tbody tr').count()) === 1, 'one row');
    const row = page.locator('#uploads tbody tr').first();
    expect(await row.locator('.name').textContent()).toBe('Trip 2026');
    expect(await row.locator('td').nth(2).textContent()).toBe('folder, with everything in it');
    await page.evaluate(() => {
      document.querySelectorAll('.toast').forEach((t) => t.remove());
      document.getElementById('uploads')?.scrollIntoView();
    });
    await page.screenshot({ path: join(ARTIFACTS, 'held-uploads-folder.png') });
    await row.locator('[data-row-action="upload"]').click();
    await until(async () => (await page.locator('#uploads tbody tr').count()) === 0, 'decided');
    let tripId: string | undefined;
    await until(async () => (tripId = (await nasChildren(folder!.id)).get('Trip 2026')?.id) !== undefined, 'the folder on the NAS', 30_000);
    await until(async () => (await allOnNas(tripId!, files)) && (await settled()), 'its 60 files on the NAS', 90_000);
  }, 150_000);

  it('more held than the window lists (a whole disk copied in): with every row selected, the choice covers them all', async () => {
    const [, , , folder] = await nasFolders();
    expect(folder).toBeDefined();
    const n = HELD_UPLOADS_SHOWN + 5;
    const files = drop(folder!.name, 'Copied', n);
    await until(async () => (await status()).uploads.held === n, `the ${n} new files held`, 60_000);
    await tab('Conflicts').click();
    await until(async () => (await page.locator('#uploads tbody tr').count()) === HELD_UPLOADS_SHOWN, 'the rows listed');
    expect(await page.locator('#uploads-more').textContent()).toBe(
      'Showing the first 1,000 of 1,005: with every row selected, your choice covers all 1,005.',
    );
    await page.check('#uploads-all');
    await page.click('#uploads [data-action="keep-here"]');
    await until(async () => (await status()).uploads.held === 0 && (await page.locator('#uploads tbody tr').count()) === 0, 'all decided');
    expect(await page.locator('#uploads-more').isVisible()).toBe(false);
    await until(
      async () =>
        (await page.locator('.toast', { hasText: `Kept on this computer only: ${n.toLocaleString('en-US')} items.` }).count()) > 0,
      'the toast',
    );
    const kids = await nasChildren(folder!.id);
    expect([...files.keys()].filter((f) => kids.has(f))).toEqual([]);
  }, 120_000);
});
