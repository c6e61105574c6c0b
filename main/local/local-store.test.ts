/**
 * The local model survives a flush and a load unchanged, whatever its fields hold; local-only
 * rows are keyed by their folder (a rename above carries them), migrated from paths.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openStateDb } from '../state/db.js';
import { heldContentOf, LOCAL_MIGRATIONS, LocalStore } from './local-store.js';
import { LocalModel, type LocalEntry } from './model.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const entry = (id: string, over: Partial<LocalEntry> = {}): LocalEntry => ({
  id,
  kind: 'file',
  lparent: 'root',
  lname: `${id}.jpg`,
  ino: `9${id.length}`,
  filled: false,
  rparent: 'root',
  rname: `${id}.jpg`,
  etag: `e-${id}`,
  mtime: '2026-01-02T03:04:05.000Z',
  setag: `e-${id}`,
  state: 'ok',
  ...over,
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
      entry('e', { content: { etag: 'e-e', nasMtime: '2026-01-02T03:04:05.000Z', size: 1234, mtimeMs: 1767323045000, ino: '95' } }),
    ];
    const db = openStateDb(dir);
    const store = new LocalStore(db);
    const m = new LocalModel('root', entries);
    m.setStamp('d1', '77:123');
    store.flush(m);
    const back = new LocalStore(db).loadModel('root');
    expect([...back.entries()].sort((x, y) => x.id.localeCompare(y.id))).toEqual([...entries].sort((x, y) => x.id.localeCompare(y.id)));
    expect(back.children('d1').sort()).toEqual(['b', 'c']);
    expect(back.byIno('92')?.id).toBe('d1');
    expect(back.stamp('d1')).toBe('77:123');
    expect(back.filledCount).toBe(1);
    expect([...back.withContent]).toEqual(['e']);
    db.close();
  });

  it('a damaged content record reads as none (a placeholder is never guessed to hold content); downloads in progress round-trip', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nm-local-store-'));
    dirs.push(dir);
    const db = openStateDb(dir);
    const store = new LocalStore(db);
    store.flush(new LocalModel('root', [entry('root', { kind: 'dir', lparent: '', lname: '', rparent: '', rname: '' }), entry('a')]));
    db.prepare("UPDATE local_entries SET content = '{\"etag\": 5}' WHERE id = 'a'").run();
    expect(new LocalStore(db).loadModel('root').get('a')!.content).toBeUndefined();
    expect(heldContentOf('not json')).toBeUndefined();
    store.setDownload({ id: 'a', etag: '"x"', size: 10, file: 'f.part' });
    store.setDownload({ id: 'a', etag: '"y"', size: 12, file: 'f.part' });
    expect(store.downloads()).toEqual([{ id: 'a', etag: '"y"', size: 12, file: 'f.part' }]);
    store.removeDownload('a');
    expect(store.download('a')).toBeUndefined();
    expect(store.idAtPath('root', ['a.jpg'])).toBe('a');
    expect(store.idAtPath('root', ['nope'])).toBeUndefined();
    db.close();
  });

  it('landing records round-trip (a damaged one reads as no content) and go when removed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nm-local-store-'));
    dirs.push(dir);
    const db = openStateDb(dir);
    const store = new LocalStore(db);
    const content = { etag: '"v1"', nasMtime: '2021-01-01T00:00:00.000Z', size: 20, mtimeMs: 1609459200000, ino: '123' };
    store.addLandings([
      { id: 'a', content: { ...content, size: 1 } },
      { id: 'b', content },
    ]);
    store.addLandings([{ id: 'a', content }]);
    db.prepare("UPDATE local_landings SET content = 'not json' WHERE id = 'b'").run();
    expect(new LocalStore(db).landings().sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual([
      { id: 'a', content },
      { id: 'b', content: undefined },
    ]);
    store.removeLandings(['a', 'b']);
    expect(store.landings()).toEqual([]);
    db.close();
  });
});

describe('LocalStore local-only rows (issue 21: keyed by their folder, not a path)', () => {
  const open = (): ReturnType<typeof openStateDb> => {
    const dir = mkdtempSync(join(tmpdir(), 'nm-local-only-'));
    dirs.push(dir);
    return openStateDb(dir);
  };
  const tree = (): LocalModel =>
    new LocalModel('root', [
      entry('root', { kind: 'dir', lparent: '', lname: '', rparent: '', rname: '' }),
      entry('top', { kind: 'dir', lname: 'Top', rname: 'Top' }),
      entry('mid', { kind: 'dir', lparent: 'top', lname: 'Mid', rparent: 'top', rname: 'Mid' }),
      entry('leaf', { kind: 'dir', lparent: 'mid', lname: 'Leaf', rparent: 'mid', rname: 'Leaf' }),
    ]);

  it('computes the path when read: a rename of the folder or of any folder above carries the row along', () => {
    const db = open();
    const store = new LocalStore(db);
    const m = tree();
    store.flush(m);
    store.addLocalOnly({ parent: 'leaf', name: 'mine.txt' }, 'file', 'created locally');
    store.addLocalOnly({ parent: 'root', name: 'New folder' }, 'dir', 'created locally');
    store.addLocalOnly({ path: '.nas-mirror/local-only/t1/Top/kept.jpg' }, 'moved', 'the NAS deleted its folder');
    expect(store.localOnly(m).map((r) => r.path)).toEqual([
      '.nas-mirror/local-only/t1/Top/kept.jpg',
      'New folder',
      'Top/Mid/Leaf/mine.txt',
    ]);
    m.update('leaf', { lname: 'Leaf2' });
    m.update('mid', { lname: 'Mid (NAS)' });
    // found again in its renamed folder: the same row, not a second one
    store.addLocalOnly({ parent: 'leaf', name: 'mine.txt' }, 'file', 'created locally');
    expect(store.localOnly(m).map((r) => r.path)).toEqual([
      '.nas-mirror/local-only/t1/Top/kept.jpg',
      'New folder',
      'Top/Mid (NAS)/Leaf2/mine.txt',
    ]);
    expect(store.localOnlyCount()).toBe(3);
    const moved = store.localOnly(m)[0]!;
    expect(moved).toMatchObject({ parent: null, name: '.nas-mirror/local-only/t1/Top/kept.jpg', kind: 'moved' });
    store.removeLocalOnly(moved);
    expect(store.localOnlyCount()).toBe(2);
    db.close();
  });

  it('a folder leaving the model takes its rows at the next flush', () => {
    const db = open();
    const store = new LocalStore(db);
    const m = tree();
    store.flush(m);
    store.addLocalOnly({ parent: 'leaf', name: 'mine.txt' }, 'file', 'created locally');
    store.addLocalOnly({ parent: 'mid', name: 'other.txt' }, 'file', 'created locally');
    m.remove('leaf');
    // not flushed yet: the row is kept, but the list cannot place it
    expect(store.localOnly(m).map((r) => r.path)).toEqual(['Top/Mid/other.txt']);
    store.flush(m);
    expect(store.localOnlyStored().map((r) => r.name)).toEqual(['other.txt']);
    expect(store.localOnlyCount()).toBe(1);
    db.close();
  });

  it('migration v4: a path that resolves through the stored folders becomes (folder id, name); the rest keep a literal path', () => {
    const db = open();
    migrate(
      db,
      'local',
      LOCAL_MIGRATIONS.filter((x) => x.version <= 3),
    );
    const put = db.prepare(`INSERT INTO local_entries (id, kind, lparent, lname, ino, filled, rparent, rname, etag, mtime, setag, state)
      VALUES (@id, @kind, @lparent, @lname, @ino, @filled, @rparent, @rname, @etag, @mtime, @setag, @state)`);
    for (const e of tree().entries()) put.run({ ...e, filled: 0 });
    put.run({ ...entry('f', { lparent: 'mid', lname: 'Leaf.txt' }), filled: 0 });
    const old = db.prepare('INSERT INTO local_only (path, kind, reason, at) VALUES (?, ?, ?, ?)');
    old.run('Top/Mid/Leaf/mine.txt', 'file', 'created locally', '2026-01-01T00:00:00.000Z');
    old.run('New folder', 'dir', 'created locally', '2026-01-01T00:00:01.000Z');
    old.run('Top/Gone/old.txt', 'file', 'created locally', '2026-01-01T00:00:02.000Z'); // its folder was renamed since: left behind
    old.run('Top/Mid/Leaf.txt/x', 'file', 'created locally', '2026-01-01T00:00:03.000Z'); // a file is no folder
    old.run('.nas-mirror/local-only/t1/Top/kept.jpg', 'moved', 'the NAS deleted its folder', '2026-01-01T00:00:04.000Z');
    const store = new LocalStore(db);
    expect((db.prepare("SELECT version FROM schema_versions WHERE component = 'local'").get() as { version: number }).version).toBe(
      LOCAL_MIGRATIONS.at(-1)!.version,
    );
    const rows = store.localOnlyStored().sort((a, b) => a.at.localeCompare(b.at));
    expect(rows).toEqual([
      { parent: 'leaf', name: 'mine.txt', kind: 'file', reason: 'created locally', at: '2026-01-01T00:00:00.000Z' },
      { parent: 'root', name: 'New folder', kind: 'dir', reason: 'created locally', at: '2026-01-01T00:00:01.000Z' },
      { parent: null, name: 'Top/Gone/old.txt', kind: 'file', reason: 'created locally', at: '2026-01-01T00:00:02.000Z' },
      { parent: null, name: 'Top/Mid/Leaf.txt/x', kind: 'file', reason: 'created locally', at: '2026-01-01T00:00:03.000Z' },
      {
        parent: null,
        name: '.nas-mirror/local-only/t1/Top/kept.jpg',
        kind: 'moved',
        reason: 'the NAS deleted its folder',
        at: '2026-01-01T00:00:04.000Z',
      },
    ]);
    const m = store.loadModel('root');
    m.update('leaf', { lname: 'Renamed' });
    expect(store.localOnly(m).find((r) => r.parent === 'leaf')?.path).toBe('Top/Mid/Renamed/mine.txt');
    db.close();
  });

  it('migration v4 with no stored entries: every row keeps its literal path', () => {
    const db = open();
    migrate(
      db,
      'local',
      LOCAL_MIGRATIONS.filter((x) => x.version <= 3),
    );
    db.prepare('INSERT INTO local_only (path, kind, reason, at) VALUES (?, ?, ?, ?)').run(
      'a/b.txt',
      'file',
      'created locally',
      '2026-01-01T00:00:00.000Z',
    );
    const store = new LocalStore(db);
    expect(store.localOnly(new LocalModel('')).map((r) => [r.parent, r.path])).toEqual([[null, 'a/b.txt']]);
    db.close();
  });
});
