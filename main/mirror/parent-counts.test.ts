import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import { openStateDb, type Db } from '../state/db.js';
import { ChangeApplier } from './apply.js';
import { aspectsOf } from './changes.js';
import { MirrorStore } from './store.js';

const T = '2020-01-01T00:00:00Z';
const file = (id: string, parentID: string): RemoteObject => ({
  id,
  parentID,
  name: `${id}.txt`,
  eTag: '"f"',
  mimeType: 'text/plain',
  mTime: T,
  cTime: T,
  hidden: 'none',
});
const folder = (id: string, parentID: string, childCount: number): RemoteObject => ({
  id,
  parentID,
  name: id,
  eTag: '"d"',
  mimeType: FOLDER_MIME,
  mTime: T,
  cTime: T,
  hidden: 'none',
  childCount,
});

describe('parent counts follow the app’s own changes', () => {
  let dir: string;
  let db: Db;
  let store: MirrorStore;
  let applier: ChangeApplier;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'counts-'));
    db = openStateDb(dir);
    store = new MirrorStore(db);
    store.setRoot(folder('R', '', 2));
    applier = new ChangeApplier(store);
    // a listing brings each folder with its count: nothing adjusted
    applier.apply([
      { kind: 'added', after: folder('A', 'R', 2) },
      { kind: 'added', after: folder('B', 'R', 0) },
      { kind: 'added', after: file('a1', 'A') },
      { kind: 'added', after: file('a2', 'A') },
    ]);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const count = (id: string): number | undefined => store.get(id)?.childCount;

  it('a listing’s batch keeps the counts it brings', () => {
    expect([count('A'), count('B'), count('R')]).toEqual([2, 0, 2]);
  });

  it('a move takes one from the folder it left and gives one to the folder it entered', () => {
    const before = store.get('a1')!;
    const after = { ...before, parentID: 'B' };
    applier.applyOwn([{ kind: 'updated', before, after, aspects: aspectsOf(before, after) }]);
    expect([count('A'), count('B')]).toEqual([1, 1]);
    // a rename in place changes no count
    const b2 = store.get('a2')!;
    applier.applyOwn([{ kind: 'updated', before: b2, after: { ...b2, name: 'z.txt' }, aspects: aspectsOf(b2, { ...b2, name: 'z.txt' }) }]);
    expect([count('A'), count('B')]).toEqual([1, 1]);
  });

  it('a delete, a new file, a new folder with what it holds; a removed folder’s subtree counts once; the root is left alone', () => {
    applier.applyOwn([{ kind: 'removed', before: store.get('a1')! }]);
    expect(count('A')).toBe(1);
    applier.applyOwn([{ kind: 'added', after: file('b1', 'B') }]);
    expect(count('B')).toBe(1);
    applier.applyOwn([
      { kind: 'added', after: folder('C', 'B', 0) },
      { kind: 'added', after: file('c1', 'C') },
    ]);
    expect([count('B'), count('C')]).toEqual([2, 1]);
    applier.applyOwn([
      { kind: 'removed', before: store.get('c1')! },
      { kind: 'removed', before: store.get('C')! },
    ]);
    expect(count('B')).toBe(1);
    expect(store.get('C')).toBeUndefined();
    applier.applyOwn([{ kind: 'added', after: file('r1', 'R') }]);
    expect(count('R')).toBe(2);
    expect(store.count()).toBe(5); // A, B, a2, b1, r1
  });
});
