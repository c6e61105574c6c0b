import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDemo } from '../demo/load.js';
import { openServiceDb } from './schema.js';
import { Store } from './store.js';
import { wireFromIndex, wireJsonFromIndex } from './wire-index.js';

let dir: string;
let store: Store;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'nas-store-'));
  store = new Store(openServiceDb(dir));
  loadDemo(store, 'demo', { objects: 2000, seed: 3 });
});
afterAll(() => {
  store.db.close();
  rmSync(dir, { recursive: true, force: true });
});

const allEqual = () => {
  const rows = store.db.prepare('SELECT row FROM objects WHERE deleting = 0').pluck().all() as number[];
  for (const r of rows) {
    const w = store.wire(store.get(r)!);
    expect(wireFromIndex(store.index, r)).toEqual(w);
    expect(wireJsonFromIndex(store.index, r)).toBe(JSON.stringify(w));
  }
};

describe('the in-memory wire form', () => {
  it('equals the row form after load, creates, patches and deletes', () => {
    allEqual();
    const dirs = store.db.prepare('SELECT row FROM objects WHERE dir = 1 AND parent <> 0').pluck().all() as number[];
    const files = store.db.prepare('SELECT row FROM objects WHERE dir = 0').pluck().all() as number[];
    for (let i = 0; i < 200; i++) {
      const f = files[i * 7]!;
      if (i % 4 === 0) store.patch(f, { name: `renamed-${i}.txt`, mtime: 1_500_000_000_123 + i });
      else if (i % 4 === 1) store.patch(f, { parent: dirs[i % dirs.length]!, hidden: 'mac' });
      else if (i % 4 === 2) store.remove(f);
      else store.create(dirs[(i * 3) % dirs.length]!, { name: `new-${i}`, dir: i % 2 === 0, size: i, image: { width: i } });
    }
    store.remove(dirs[5]!);
    allEqual();
    // a reload gives the same
    store.index.load(store.db);
    allEqual();
  });
});
