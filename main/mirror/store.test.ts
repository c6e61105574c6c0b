import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RemoteObject } from '../../app/model/remote-object.js';
import { migrate, openStateDb } from '../state/db.js';
import { MIRROR_MIGRATIONS, MirrorStore } from './store.js';

const obj = (id: string, name: string, parentID: string): RemoteObject => ({
  id,
  parentID,
  name,
  eTag: '"Ag"',
  mimeType: 'text/plain',
  mTime: '2020-01-01T00:00:00Z',
  cTime: '2020-01-01T00:00:00Z',
  hidden: 'none',
});

describe('MirrorStore', () => {
  it('migrates a v1 database to v2 keeping every row', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    try {
      const db = openStateDb(dir);
      migrate(db, 'mirror', MIRROR_MIGRATIONS.slice(0, 1));
      db.prepare(
        "INSERT INTO mirror_objects (id, parent_id, name, etag, is_folder, mime, json) VALUES ('a', 'r', 'x.txt', '\"Ag\"', 0, 'text/plain', ?)",
      ).run(JSON.stringify(obj('a', 'x.txt', 'r')));
      const store = new MirrorStore(db);
      expect(store.get('a')?.name).toBe('x.txt');
      expect(store.childByName('r', 'x.txt')?.id).toBe('a');
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads rows back through the one object schema: a damaged row is StateCorrupt, never a wrong-shaped object', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    try {
      const db = openStateDb(dir);
      const store = new MirrorStore(db);
      store.apply([
        { kind: 'added', after: obj('a', 'x.txt', 'r') },
        { kind: 'added', after: obj('b', 'y.txt', 'r') },
      ]);
      db.prepare("UPDATE mirror_objects SET json = ? WHERE id = 'b'").run(JSON.stringify({ ...obj('b', 'y.txt', 'r'), eTag: 7 }));
      expect(store.get('a')?.name).toBe('x.txt');
      expect(() => store.get('b')).toThrow(
        expect.objectContaining({ code: 'StateCorrupt', message: expect.stringMatching(/\(b\): eTag: expected a string/) }),
      );
      expect(() => [...store.all()]).toThrow(expect.objectContaining({ code: 'StateCorrupt' }));
      // a field deep inside, and text that is no JSON at all
      db.prepare("UPDATE mirror_objects SET json = ? WHERE id = 'b'").run(
        JSON.stringify({ ...obj('b', 'y.txt', 'r'), image: { width: 'wide' } }),
      );
      expect(() => store.children('r')).toThrow(
        expect.objectContaining({ code: 'StateCorrupt', message: expect.stringMatching(/image\.width: expected a finite number/) }),
      );
      db.prepare("UPDATE mirror_objects SET json = '{\"id\":' WHERE id = 'a'").run();
      expect(() => store.get('a')).toThrow(expect.objectContaining({ code: 'StateCorrupt' }));
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a parent cycle a NAS served is an unknown path, never an error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    try {
      const db = openStateDb(dir);
      const store = new MirrorStore(db);
      store.setRoot({ ...obj('r', 'home', ''), mimeType: 'application/x.service.dir' });
      store.apply([
        { kind: 'added', after: obj('c1', 'one', 'c2') },
        { kind: 'added', after: obj('c2', 'two', 'c1') },
        { kind: 'added', after: obj('c3', 'keep', 'c3') },
        { kind: 'added', after: obj('k', 'keep.txt', 'r') },
      ]);
      expect(store.pathOf('c1')).toBeUndefined();
      expect(store.pathOf('c3')).toBeUndefined();
      expect(store.pathOf('k')).toEqual(['keep.txt']);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers by id, children, name and path; a rename is one row update', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    try {
      const db = openStateDb(dir);
      const store = new MirrorStore(db);
      store.setRoot({ ...obj('r', 'home', ''), mimeType: 'application/x.service.dir' });
      store.apply([
        { kind: 'added', after: { ...obj('f', 'Docs', 'r'), mimeType: 'application/x.service.dir' } },
        { kind: 'added', after: obj('a', 'x.txt', 'f') },
      ]);
      expect(store.pathOf('a')).toEqual(['Docs', 'x.txt']);
      expect(store.children('root').map((o) => o.id)).toEqual(['f']);
      const gen = store.generation();
      store.apply([
        {
          kind: 'updated',
          before: { ...obj('f', 'Docs', 'r'), mimeType: 'application/x.service.dir' },
          after: { ...obj('f', 'Papers', 'r'), mimeType: 'application/x.service.dir' },
          aspects: { renamed: true, moved: false, metadata: false },
        },
      ]);
      expect(store.pathOf('a')).toEqual(['Papers', 'x.txt']);
      expect(store.generation()).toBe(gen + 1);
      store.apply([]);
      expect(store.generation()).toBe(gen + 1);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a bulk fill drops the parent index and builds it at the end; an interrupted one gets it back on open', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    try {
      const hasIndex = (db: ReturnType<typeof openStateDb>): boolean =>
        db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'mirror_objects_parent'").get() !== undefined;
      let db = openStateDb(dir);
      let store = new MirrorStore(db);
      store.beginBulkFill();
      expect(hasIndex(db)).toBe(false);
      store.apply([{ kind: 'added', after: obj('a', 'x.txt', 'r') }]);
      expect(store.childByName('r', 'x.txt')?.id).toBe('a');
      store.endBulkFill();
      expect(hasIndex(db)).toBe(true);
      store.beginBulkFill();
      db.close();
      db = openStateDb(dir);
      store = new MirrorStore(db);
      expect(hasIndex(db)).toBe(true);
      expect(store.children('r').map((o) => o.id)).toEqual(['a']);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps a folder's listing with what it held only while the store holds exactly that; every change of its children drops it", () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    try {
      const db = openStateDb(dir);
      const store = new MirrorStore(db);
      const dirObj = (id: string, name: string, parentID: string, childCount?: number): RemoteObject => ({
        ...obj(id, name, parentID),
        mimeType: 'application/x.service.dir',
        ...(childCount !== undefined ? { childCount } : {}),
      });
      store.setRoot(dirObj('r', 'home', ''));
      store.apply([
        { kind: 'added', after: dirObj('A', 'A', 'r', 2) },
        { kind: 'added', after: dirObj('B', 'B', 'r', 0) },
        { kind: 'added', after: dirObj('S', 'S', 'A', 0) },
        { kind: 'added', after: obj('x', 'x.txt', 'A') },
      ]);
      const chain = [{ etag: '"p1"', next: '' }];
      const heldA = { count: 2, folders: [{ id: 'S', childCount: 0 }] };
      const record = (id: string, children: { count: number; folders: { id: string; childCount: number | undefined }[] }) =>
        store.setListings(new Map([[id, { chain, children }]]));
      const kept = (): string[] => [...store.listings(['r', 'A', 'B', 'S']).keys()].sort();

      record('A', heldA);
      record('B', { count: 0, folders: [] });
      record('S', { count: 0, folders: [] });
      expect(store.listings(['A', 'nope'])).toEqual(new Map([['A', { chain, children: heldA }]]));
      // a listing that showed fewer children than the store holds (one its pages left out, read again later) is not kept
      record('A', { count: 1, folders: [{ id: 'S', childCount: 0 }] });
      expect(kept()).toEqual(['B', 'S']);
      record('A', heldA);

      // a file renamed in its folder changes nothing A holds
      const x = obj('x', 'x.txt', 'A');
      store.apply([
        { kind: 'updated', before: x, after: { ...x, name: 'y.txt' }, aspects: { renamed: true, moved: false, metadata: false } },
      ]);
      expect(kept()).toEqual(['A', 'B', 'S']);
      // a subfolder's childCount changed: its parent's listing goes (its own stays)
      store.apply([
        {
          kind: 'updated',
          before: dirObj('S', 'S', 'A', 0),
          after: dirObj('S', 'S', 'A', 4),
          aspects: { renamed: false, moved: false, metadata: true },
        },
      ]);
      expect(kept()).toEqual(['B', 'S']);
      record('A', { count: 2, folders: [{ id: 'S', childCount: 4 }] });
      // a move: both folders' listings go
      store.apply([
        {
          kind: 'updated',
          before: { ...x, name: 'y.txt' },
          after: { ...x, parentID: 'B' },
          aspects: { renamed: true, moved: true, metadata: false },
        },
      ]);
      expect(kept()).toEqual(['S']);
      // an object added, an object removed: its folder's listing goes
      record('B', { count: 1, folders: [] });
      store.apply([{ kind: 'added', after: obj('z', 'z.txt', 'S') }]);
      expect(kept()).toEqual(['B']);
      store.apply([{ kind: 'removed', before: { ...x, parentID: 'B' } }]);
      expect(kept()).toEqual([]);

      // a listing stored before v6 has no children: read from the objects
      db.prepare('INSERT INTO mirror_listings (folder_id, pages) VALUES (?, ?)').run('S', JSON.stringify(chain));
      expect(store.listings(['S']).get('S')).toEqual({ chain, children: undefined });
      expect(store.childSummary('S')).toEqual({ count: 1, folders: [] });
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a walk's preloaded listings answer as the table does, less every row written or dropped since; released, the table again", () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    try {
      const db = openStateDb(dir);
      const store = new MirrorStore(db);
      const dirObj = (id: string, name: string, parentID: string): RemoteObject => ({
        ...obj(id, name, parentID),
        mimeType: 'application/x.service.dir',
      });
      store.setRoot(dirObj('r', 'home', ''));
      const x = obj('x', 'x.txt', 'A');
      store.apply([
        { kind: 'added', after: dirObj('A', 'A', 'r') },
        { kind: 'added', after: dirObj('B', 'B', 'r') },
        { kind: 'added', after: dirObj('C', 'C', 'r') },
        { kind: 'added', after: x },
      ]);
      const chain = [{ etag: '"p1"', next: '' }];
      const none = { count: 0, folders: [] };
      store.setListings(
        new Map([
          ['r', { chain, children: { count: 3, folders: ['A', 'B', 'C'].map((id) => ({ id, childCount: undefined })) } }],
          ['A', { chain, children: { count: 1, folders: [] } }],
          ['B', { chain, children: none }],
          ['C', { chain, children: none }],
        ]),
      );
      const ids = ['r', 'A', 'B', 'C', 'nope'];
      const table = store.listings(ids);
      expect([...table.keys()].sort()).toEqual(['A', 'B', 'C', 'r']);
      store.preloadListings();
      expect(store.listings(ids)).toEqual(table);
      // x moved from A to B: both rows go, from the preloaded ones too
      store.apply([
        { kind: 'updated', before: x, after: { ...x, parentID: 'B' }, aspects: { renamed: false, moved: true, metadata: false } },
      ]);
      expect([...store.listings(ids).keys()].sort()).toEqual(['C', 'r']);
      // a row written meanwhile is not answered from the preload (never a row other than the table's)
      store.setListings(new Map([['B', { chain: [{ etag: '"p2"', next: '' }], children: { count: 1, folders: [] } }]]));
      store.forgetListings(['C']);
      expect([...store.listings(ids).keys()]).toEqual(['r']);
      store.releaseListings();
      expect([...store.listings(ids).keys()].sort()).toEqual(['B', 'r']);
      expect(store.listings(['B']).get('B')!.chain[0]!.etag).toBe('"p2"');
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
