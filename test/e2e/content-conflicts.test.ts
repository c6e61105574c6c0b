/**
 * A kept file changed on both sides, in the window, end to end (Debian's Chromium, browser
 * mode, real service, real engine, real mirror folder): two files kept on this device (Keep
 * on a search result) are edited here while a colleague saves a new version of each on the
 * NAS; both versions are kept (the NAS's at the name, yours beside it as a conflicted copy),
 * the header and the tab's count lead to Conflicts, where each row says both versions in
 * words with three choices. "Keep mine" makes yours the NAS version (the copy goes, here and
 * on the NAS); "Keep the NAS version" removes the copy. Screenshots of the rows (light, dark,
 * 420 px) go to test-artifacts/e2e/.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../main/client/service-client.js';
import { axeBothThemes } from './a11y.js';
import { ARTIFACTS, startRig, until, type Rig } from './harness.js';

let rig: Rig;
let page: Page;
let client: ServiceClient;
let folder = '';
const ids: Record<string, string> = {};

const FOLDER = 'Team notes';
const FILES = { 'budget.txt': 'budget v1\n', 'minutes.txt': 'minutes v1\n' };
const MINE = { 'budget.txt': 'budget v2, edited here\n', 'minutes.txt': 'minutes v2, edited here\n' };
const THEIRS = { 'budget.txt': 'budget v2 from a colleague on the NAS\n', 'minutes.txt': 'minutes v2 from a colleague\n' };
type Name = keyof typeof FILES;

const status = () => rig.app.core.handlers.status({});
const onDisk = (name: string): string | null => {
  try {
    return readFileSync(join(rig.mirror, FOLDER, name), 'utf8');
  } catch {
    return null;
  }
};
const copies = (): string[] => readdirSync(join(rig.mirror, FOLDER)).filter((n) => n.includes('(conflicted copy '));

/** The NAS's content of a file (null: not there any more). */
async function nasText(id: string): Promise<string | null> {
  const res = await fetch(`${rig.svc.baseUrl}/sdk/v2/files/${encodeURIComponent(id)}/content`, {
    headers: { authorization: `Bearer ${rig.token}` },
  });
  if (res.status === 404) return null;
  return Buffer.from(await res.arrayBuffer()).toString();
}

/** The NAS's children of the folder, by name. */
async function nasNames(): Promise<string[]> {
  const out: string[] = [];
  for await (const p of client.pages(folder)) for (const o of p.files) out.push(o.name);
  return out.sort();
}

beforeAll(async () => {
  rig = await startRig();
  folder = rig.svc.admin.createFolder(rig.svc.admin.rootId(), FOLDER).id;
  for (const [name, text] of Object.entries(FILES)) ids[name] = rig.svc.admin.createFile(folder, name, { content: Buffer.from(text) }).id;
  await rig.app.core.handlers.updateSettings({ patch: { location: rig.svc.baseUrl } });
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

describe('a kept file changed here and on the NAS, in the window (browser mode, Chromium)', () => {
  it('both versions are kept and listed in Conflicts with three choices; "Keep mine" and "Keep the NAS version" do what they say', async () => {
    // kept on this device from the window: Keep on each search result
    for (const name of Object.keys(FILES) as Name[]) {
      await page.fill('#search-input', name.replace('.txt', ''));
      const row = page.locator('#results li', { hasText: name }).first();
      await until(async () => (await row.count()) > 0, `${name} found`);
      await row.locator('.act', { hasText: 'Keep' }).click();
      await until(() => onDisk(name) === FILES[name], `${name} kept here`);
    }
    await until(async () => (await status()).outbox === 0 && (await status()).uploads.waiting === 0, 'settled');

    // edited here; a colleague saves a new version of each on the NAS meanwhile
    for (const name of Object.keys(FILES) as Name[]) {
      writeFileSync(join(rig.mirror, FOLDER, name), MINE[name]);
      await client.startVersion(ids[name]!, { ifMatch: rig.svc.admin.get(ids[name]!)!.eTag });
      await client.putContent(ids[name]!, 0, Buffer.from(THEIRS[name]), true);
    }
    await until(async () => (await status()).conflicts === 2, 'both conflicts listed', 60_000);
    // both are kept: the NAS's at the name (kept here, downloaded again), yours beside it, uploaded as a new file
    await until(
      async () =>
        onDisk('budget.txt') === THEIRS['budget.txt'] &&
        onDisk('minutes.txt') === THEIRS['minutes.txt'] &&
        copies().length === 2 &&
        (await nasNames()).length === 4 &&
        (await status()).uploads.waiting === 0,
      'both versions here and on the NAS',
      60_000,
    );
    const copyOf = (name: Name): string => copies().find((c) => c.startsWith(name.replace('.txt', ' (conflicted copy ')))!;
    expect(onDisk(copyOf('budget.txt'))).toBe(MINE['budget.txt']);

    // the header and the tab lead there
    await until(async () => (await page.locator('#state-line').textContent()) === '2 conflicts wait for you', 'the header in words');
    expect(await page.locator('#conflict-count').textContent()).toBe('2');
    await page.click('#state-fix');
    const rows = page.locator('#conflicts tbody tr');
    await until(async () => (await rows.count()) === 2, 'the two rows');
    const rowOf = (name: Name) => page.locator('#conflicts tbody tr', { has: page.locator('.name', { hasText: name }) });
    const budget = rowOf('budget.txt');
    expect(await budget.locator('.summary').first().textContent()).toBe('Changed here and on the NAS: both kept');
    expect(await budget.locator('.version-mine').textContent()).toMatch(
      new RegExp(`^Your version: “${escape(copyOf('budget.txt'))}”, ${MINE['budget.txt'].length} B, changed .+$`),
    );
    expect(await budget.locator('.version-nas').textContent()).toMatch(
      new RegExp(`^NAS version: ${THEIRS['budget.txt'].length} B, changed .+$`),
    );
    expect(await budget.locator('.entry-path').textContent()).toBe(`in /${FOLDER}`);
    expect(await budget.locator('td.actions button').allTextContents()).toEqual(['Keep mine', 'Keep the NAS version', 'Keep both']);
    expect(await budget.locator('[data-row-action="keep-both"]').getAttribute('aria-label')).toBe('Keep both: budget.txt');
    expect(await page.locator('#conflicts [data-action="keep-both"]').isVisible()).toBe(true);
    // no protocol words
    expect(await page.locator('#conflicts').textContent()).not.toMatch(/eTag|If-Match|412|inode/);

    await page.evaluate(() => document.querySelectorAll('.toast').forEach((t) => t.remove()));
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(ARTIFACTS, `content-conflicts-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await axeBothThemes(page)).toEqual([]);
    await page.setViewportSize({ width: 420, height: 800 });
    await page.evaluate(() => document.querySelector('#conflicts tbody tr')?.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: join(ARTIFACTS, 'content-conflicts-420.png') });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });

    // Keep mine: yours is the NAS version of budget.txt, here too; its copy goes from the disk and the NAS
    const budgetCopy = copyOf('budget.txt');
    await budget.locator('[data-row-action="keep-mine"]').click();
    await until(async () => (await rows.count()) === 1, 'the row gone');
    await until(async () => (await page.locator('.toast', { hasText: 'Kept your version: 1 item.' }).count()) > 0, 'the toast');
    expect(await nasText(ids['budget.txt']!)).toBe(MINE['budget.txt']);
    expect(onDisk('budget.txt')).toBe(MINE['budget.txt']);
    expect(existsSync(join(rig.mirror, FOLDER, budgetCopy))).toBe(false);
    await until(async () => !(await nasNames()).includes(budgetCopy), 'the copy gone from the NAS');

    // Keep the NAS version: minutes.txt stays theirs, its copy goes
    const minutesCopy = copyOf('minutes.txt');
    await rowOf('minutes.txt').locator('[data-row-action="keep-nas"]').click();
    await until(async () => (await rows.count()) === 0, 'no rows left');
    expect(await page.locator('#conflicts .empty').textContent()).toBe('No conflicts.');
    expect(existsSync(join(rig.mirror, FOLDER, minutesCopy))).toBe(false);
    await until(async () => (await nasNames()).join('|') === 'budget.txt|minutes.txt', 'the NAS holds the two files only', 30_000);
    expect(await nasText(ids['minutes.txt']!)).toBe(THEIRS['minutes.txt']);
    expect(onDisk('minutes.txt')).toBe(THEIRS['minutes.txt']);
    await until(async () => (await page.locator('#state-line').textContent())?.startsWith('Up to date') ?? false, 'the header up to date');
    expect(await page.locator('#conflict-count').count()).toBe(0);
    // the activity says what happened, in words
    await page.click('#tab-activity');
    await until(
      async () => (await page.locator('#activity-list').textContent())?.includes('You kept your version of “budget.txt”') ?? false,
      'the activity line',
    );
  }, 240_000);
});

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
