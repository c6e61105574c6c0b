/** The local model survives a flush and a load unchanged, whatever its fields hold. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateDb } from '../state/db.js';
import { LocalStore } from './local-store.js';
import { LocalModel, type LocalEntry } from './model.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

const entry = (id: string, over: Partial<LocalEntry> = {}): LocalEntry => ({
  id, kind: 'file', lparent: 'root', lname: `${id}.jpg`, ino: `9${id.length}`, filled: false,
  rparent: 'root', rname: `${id}.jpg`, etag: `e-${id}`, mtime: '2026-01-02T03:04:05.000Z', setag: `e-${id}`, state: 'ok', ...over,
});

describe('LocalStore.loadModel', () => {
  it('reads back every field: shared values, differing values, every state', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nm-local-store-'));
    dirs.push(dir);
    const entries: LocalEntry[] = [
      entry('root', { kind: 'dir', lparent: '', lname: '', rparent: '', rname: '', ino: '1' }),
      entry('d1', { kind: 'dir', lname: 'Photos', rname: 'Photos' }),
      entry('a'),
      entry('b', { lparent: 'd1', rparent: 'root', rname: 'b-on-nas.jpg', setag: 'older', filled: true, ino: null }),
      entry('c', { lparent: 'd1', rparent: 'd1', state: 'held' }),
      entry('d', { state: 'deleting', etag: 'x', setag: 'x' }),
    ];
    const db = openStateDb(dir);
    const store = new LocalStore(db);
    const m = new LocalModel('root', entries);
    m.setStamp('d1', '77:123');
    store.flush(m);
    const back = new LocalStore(db).loadModel('root');
    expect([...back.byId.values()].sort((x, y) => x.id.localeCompare(y.id))).toEqual([...entries].sort((x, y) => x.id.localeCompare(y.id)));
    expect(back.children('d1').sort()).toEqual(['b', 'c']);
    expect(back.byIno('92')?.id).toBe('d1');
    expect(back.stamp('d1')).toBe('77:123');
    expect(back.filledCount).toBe(1);
    db.close();
  });
});
