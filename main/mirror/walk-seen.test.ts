/**
 * WalkSeen against a real store: a 304 folder's children are seen without their ids, the
 * count of stored objects seen is exact whatever overlaps (an id seen both ways, a seen id
 * removed since, a forgotten child of a 304 folder), and the unseen ids are the store's rest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import { openStateDb } from '../state/db.js';
import { MirrorStore } from './store.js';
import { WalkSeen } from './walk-seen.js';

const obj = (id: string, parentID: string, folder = false): RemoteObject => ({
  id,
  parentID,
  name: id,
  eTag: '"Ag"',
  mimeType: folder ? FOLDER_MIME : 'text/plain',
  mTime: '2020-01-01T00:00:00Z',
  cTime: '2020-01-01T00:00:00Z',
  hidden: 'none',
  ...(folder ? { childCount: 0 } : { size: 1 }),
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A store holding R/{A/{a1,a2,S/{s1}}, B/{b1,b2}, c}: folders A, S, B. */
function storeOf(): MirrorStore {
  const dir = mkdtempSync(join(tmpdir(), 'walk-seen-'));
  dirs.push(dir);
  const store = new MirrorStore(openStateDb(dir));
  store.setRoot({ ...obj('R', ''), mimeType: FOLDER_MIME });
  const rows = [
    obj('A', 'R', true),
    obj('a1', 'A'),
    obj('a2', 'A'),
    obj('S', 'A', true),
    obj('s1', 'S'),
    obj('B', 'R', true),
    obj('b1', 'B'),
    obj('b2', 'B'),
    obj('c', 'R'),
  ];
  store.apply(rows.map((after) => ({ kind: 'added', after })));
  return store;
}

const none = { gone: new Set<string>(), touched: new Set<string>() };
/** As the walk does at a 304: the folder's stored children counted then. */
const unchanged = (seen: WalkSeen, store: MirrorStore, folderId: string): void => seen.addUnchanged(folderId, store.childCount(folderId));

describe('WalkSeen', () => {
  it("a 304 folder's children are seen as its children; the store's child summary names its folders only", () => {
    const store = storeOf();
    expect(store.childSummary('A')).toEqual({ count: 3, folders: [{ id: 'S', childCount: 0 }] });
    expect(store.childSummary('root').count).toBe(3);
    expect(
      store
        .childSummary('root')
        .folders.map((f) => f.id)
        .sort(),
    ).toEqual(['A', 'B']);
    const seen = new WalkSeen();
    for (const id of ['A', 'B', 'c', 's1', 'b1', 'b2']) seen.add(id);
    unchanged(seen, store, 'A');
    expect(seen.has('a1', 'A')).toBe(true);
    expect(seen.has('a1', 'B')).toBe(false);
    expect(seen.countSeen(store, none)).toBe(store.count());
    expect(seen.unseenIds(store)).toEqual([]);
  });

  it('counts exactly: an id seen both by id and as a 304 child counts once; a missing one is found', () => {
    const store = storeOf();
    const seen = new WalkSeen();
    // a1 also seen by id (the app read it during the walk); b2 seen nowhere
    for (const id of ['A', 'B', 'c', 's1', 'b1', 'a1', 'S']) seen.add(id);
    unchanged(seen, store, 'A');
    expect(seen.countSeen(store, none)).toBe(store.count() - 1);
    expect(seen.unseenIds(store)).toEqual(['b2']);
  });

  it('a seen id removed since is not counted: it can never hide an unseen one (the app deleted x, the NAS deleted b2)', () => {
    const store = storeOf();
    const seen = new WalkSeen();
    for (const id of ['A', 'a1', 'a2', 'S', 's1', 'B', 'b1', 'c', 'x']) seen.add(id);
    // without 304 folders
    expect(seen.countSeen(store, { gone: new Set(['x']), touched: new Set() })).toBe(store.count() - 1);
    // with one
    unchanged(seen, store, 'S');
    expect(seen.countSeen(store, { gone: new Set(['x']), touched: new Set() })).toBe(store.count() - 1);
    expect(seen.unseenIds(store)).toEqual(['b2']);
  });

  it('a forgotten child of a 304 folder (gone when listed) is unseen, until it is seen by id again', () => {
    const store = storeOf();
    const seen = new WalkSeen();
    for (const id of ['A', 'B', 'b1', 'b2', 'c']) seen.add(id);
    unchanged(seen, store, 'A');
    seen.forget('S');
    seen.forget('s1');
    expect(seen.countSeen(store, none)).toBe(store.count() - 2);
    expect(seen.unseenIds(store).sort()).toEqual(['S', 's1']);
    seen.add('S');
    expect(seen.unseenIds(store)).toEqual(['s1']);
  });

  it('a 304 folder whose children moved since they were counted is counted again (a child moved out to a listed folder, another in)', () => {
    const store = storeOf();
    const seen = new WalkSeen();
    for (const id of ['A', 'B', 'c', 'S', 's1']) seen.add(id);
    unchanged(seen, store, 'A');
    // B is listed: b1 and b2 seen; then the NAS moves b1 under A (read by id: seen) and a1 under B (listed: seen)
    for (const id of ['b1', 'b2']) seen.add(id);
    const a1 = store.get('a1')!;
    const b1 = store.get('b1')!;
    store.apply([
      { kind: 'updated', before: a1, after: { ...a1, parentID: 'B' }, aspects: { renamed: false, moved: true, metadata: false } },
      { kind: 'updated', before: b1, after: { ...b1, parentID: 'A' }, aspects: { renamed: false, moved: true, metadata: false } },
    ]);
    seen.add('a1');
    expect(seen.countSeen(store, { gone: new Set(), touched: new Set(['A', 'B']) })).toBe(store.count());
    expect(seen.unseenIds(store)).toEqual([]);
    // and one stored under A after its count, never seen: found
    store.apply([{ kind: 'added', after: obj('n', 'A') }]);
    expect(seen.countSeen(store, { gone: new Set(), touched: new Set(['A']) })).toBe(store.count());
    seen.forget('n');
    expect(seen.countSeen(store, { gone: new Set(), touched: new Set(['A']) })).toBe(store.count() - 1);
    expect(seen.unseenIds(store)).toEqual(['n']);
  });

  it('a pass over an empty store keeps no ids: everything stored is seen but what a gone folder brought', () => {
    const store = storeOf();
    const seen = new WalkSeen(true);
    expect(seen.add('a1')).toBe(true);
    expect(seen.countSeen(store, none)).toBe(store.count());
    expect(seen.unseenIds(store)).toEqual([]);
    seen.forget('S');
    seen.forget('s1');
    seen.forget('never-stored');
    expect(seen.countSeen(store, none)).toBe(store.count() - 2);
    expect(seen.unseenIds(store).sort()).toEqual(['S', 's1']);
    expect(seen.has('s1', 'S')).toBe(false);
    seen.add('S');
    expect(seen.unseenIds(store)).toEqual(['s1']);
  });
});
