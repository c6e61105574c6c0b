/**
 * Issue 25 point 13, "153 vs 152 items for the same folder": Browse said a folder held as
 * many items as its parent's listing had said before the user moved, deleted or added
 * something in it (the app's own changes did not move its parents' counts; only a later walk
 * of their parents did). The real service, a real mirror folder, Debian's Chromium: a file
 * moved and one deleted in the mirror folder, a new one dropped in; the counts on the NAS
 * root's rows equal the rows each folder shows when opened.
 */
import { readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectedRigForFile, until } from './harness.js';

const t = connectedRigForFile();
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 30_000, interval: 100 });

/** The "N items" of each folder row at the NAS's top, as the window shows them. */
async function rootCounts(): Promise<Map<string, number>> {
  const { page } = t;
  await page.click('#tab-browse');
  const home = page.locator('#view-browse .crumbs button', { hasText: 'NAS' });
  if (await home.count()) await home.click();
  await poll(() => page.locator('#view-browse .crumb.current').textContent()).toBe('NAS');
  const rows = await page
    .locator('#browse-rows tr.folder')
    .evaluateAll((trs) =>
      trs.map((tr) => [tr.querySelector('.name')?.textContent ?? '', tr.querySelector('td.num')?.textContent ?? ''] as const),
    );
  return new Map(rows.map(([n, c]) => [n, Number(c.replace(/[^0-9]/g, ''))]));
}

/** The rows the window shows inside a folder of the NAS's top. */
async function rowsIn(name: string): Promise<number> {
  const { page } = t;
  await page.locator('#browse-rows button.name', { hasText: name }).first().click();
  await poll(() => page.locator('#view-browse .crumb.current').textContent()).toBe(name);
  return page.locator('#browse-rows tr').count();
}

const isFile = (p: string): boolean => statSync(p).isFile();

describe('Browse counts a folder’s items as opening it shows them (issue 25, point 13)', () => {
  it('after a move, a delete and a new file in the mirror folder, every folder row says what the folder holds', async () => {
    const { rig } = t;
    const dir = rig.mirror;
    const top = readdirSync(dir).filter((n) => !n.startsWith('.') && !isFile(join(dir, n)));
    // the folder holding the most files (one delete there is never a mass delete), and another
    const filesIn = (n: string): number => readdirSync(join(dir, n)).filter((m) => isFile(join(dir, n, m))).length;
    const from = [...top].sort((a, b) => filesIn(b) - filesIn(a) || (a < b ? -1 : 1))[0]!;
    const to = top.filter((n) => n !== from).sort()[0]!;
    const before = await rootCounts();
    expect(before.get(from)).toBe(await rowsIn(from));

    const [moved, deleted] = readdirSync(join(dir, from)).filter((m) => isFile(join(dir, from, m)));
    const h = rig.app.core.handlers;
    const ids = new Map((await h.list({ folderId: 'root' })).files.map((f) => [f.name, f.id]));
    const names = async (n: string): Promise<Set<string>> => new Set((await h.list({ folderId: ids.get(n)! })).files.map((f) => f.name));
    const sent = async (): Promise<boolean> => {
      const s = await h.status({});
      return s.outbox === 0 && s.uploads.waiting === 0 && s.heldDeletes === 0;
    };
    // one after the other: a file gone while a new one appears is asked about (renamed, or deleted?)
    renameSync(join(dir, from, moved!), join(dir, to, moved!));
    rmSync(join(dir, from, deleted!));
    await until(
      async () => (await sent()) && (await names(to)).has(moved!) && !(await names(from)).has(moved!) && !(await names(from)).has(deleted!),
      'the move and the delete sent to the NAS',
      60_000,
    );
    writeFileSync(join(dir, to, 'a new note.txt'), 'written here\n');
    await until(async () => (await sent()) && (await names(to)).has('a new note.txt'), 'the new file sent to the NAS', 60_000);

    const after = await rootCounts();
    expect(after.get(from)).toBe(before.get(from)! - 2);
    expect(after.get(to)).toBe(before.get(to)! + 2);
    for (const name of [from, to]) {
      await rootCounts();
      expect(await rowsIn(name), name).toBe(after.get(name));
    }
  }, 120_000);
});
