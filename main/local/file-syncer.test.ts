/**
 * The file syncer on a real temp folder: a batch of files made durable through its worker in
 * one hand-off, one file through the thread pool; a file that cannot be synced fails alone;
 * once closed, it still syncs (through the thread pool).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileSyncer } from './file-syncer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function files(n: number): string[] {
  const d = mkdtempSync(join(tmpdir(), 'nm-sync-'));
  dirs.push(d);
  return Array.from({ length: n }, (_, i) => {
    const p = join(d, `f${i}`);
    writeFileSync(p, `file ${i}`);
    return p;
  });
}

describe('FileSyncer', () => {
  it('syncs a batch in one hand-off to its worker, one file through the thread pool; a missing file fails alone', async () => {
    const s = new FileSyncer();
    const ps = files(50);
    expect((await s.sync(ps)).size).toBe(0);
    expect((await s.sync(ps.slice(0, 1))).size).toBe(0);
    const gone = join(ps[0]!, '..', 'missing');
    const failed = await s.sync([...ps.slice(0, 3), gone]);
    expect([...failed]).toEqual([[gone, 'ENOENT']]);
    expect([...(await s.sync([gone]))]).toEqual([[gone, 'ENOENT']]);
    s.close();
    // closed: the thread pool does it
    expect((await s.sync(ps.slice(0, 5))).size).toBe(0);
  });
});
