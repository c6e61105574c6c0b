import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RemoteObject } from '../../app/model/remote-object.js';
import { LocalStore } from '../local/local-store.js';
import { migrate, openStateDb, type Db } from '../state/db.js';
import { aspectsOf } from '../mirror/changes.js';
import { MIRROR_MIGRATIONS, MirrorStore } from '../mirror/store.js';
import { PlanQueue } from './plan-queue.js';

const obj = (id: string, name = `${id}.txt`): RemoteObject => ({
  id,
  parentID: 'r',
  name,
  eTag: '"Ag"',
  mimeType: 'text/plain',
  mTime: '2020-01-01T00:00:00Z',
  cTime: '2020-01-01T00:00:00Z',
  hidden: 'none',
});

describe('PlanQueue across restarts (what a stop or kill -9 leaves to place)', () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'plans-'));
    db = openStateDb(dir);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  /** A new queue over the same database, as the next start builds it; its first slice. */
  const restart = (): { queue: PlanQueue; behind: boolean; slice: ReturnType<PlanQueue['take']> } => {
    const local = new LocalStore(db);
    const store = new MirrorStore(db);
    const queue = new PlanQueue(local, store);
    const behind = queue.behind;
    return { queue, behind, slice: queue.take(local.loadModel('r'), false, Infinity) };
  };
  /** A first walk's bulk fill of `n` objects, followed by the disk. */
  const firstWalk = (n: number): void => {
    const store = new MirrorStore(db);
    store.beginBulkFill();
    store.apply(Array.from({ length: n }, (_, i) => ({ kind: 'added' as const, after: obj(`o${i}`) })));
    store.endBulkFill();
    const { queue, slice } = restart();
    expect(slice?.all).toBe(true);
    queue.settle(slice!, [], new Set(), false);
  };

  it('after a re-walk applied changes the disk did not follow, plans just those ids, then nothing', () => {
    firstWalk(50);
    expect(restart().behind).toBe(false);
    // a re-walk applies three changes; the engine stops (or is killed) before placing them
    new MirrorStore(db).apply([
      { kind: 'updated', before: obj('o1'), after: obj('o1', 'renamed.txt'), aspects: aspectsOf(obj('o1'), obj('o1', 'renamed.txt')) },
      { kind: 'removed', before: obj('o2') },
      { kind: 'added', after: obj('n1') },
    ]);
    const { queue, behind, slice } = restart();
    expect(behind).toBe(true);
    expect(slice?.all).toBe(false);
    expect([...slice!.only].sort()).toEqual(['n1', 'o1', 'o2']);
    queue.settle(slice!, [], new Set(), false);
    const again = restart();
    expect(again.behind).toBe(false);
    expect(again.slice).toBeUndefined();
  });

  it('a slice that failed stays planned; one settled in part leaves the rest', () => {
    firstWalk(5);
    new MirrorStore(db).apply([
      { kind: 'added', after: obj('a') },
      { kind: 'added', after: obj('b') },
    ]);
    const first = restart();
    first.queue.putBack(first.slice!);
    expect([...restart().slice!.only].sort()).toEqual(['a', 'b']);
    const second = restart();
    second.queue.settle({ all: false, only: new Set(['a']) }, [], new Set(), false);
    expect([...restart().slice!.only]).toEqual(['b']);
  });

  it('a bulk fill the disk did not follow to its end plans everything (kill -9 in a first walk)', () => {
    const store = new MirrorStore(db);
    store.beginBulkFill();
    store.apply([{ kind: 'added', after: obj('a') }]);
    store.endBulkFill();
    expect(restart().slice?.all).toBe(true);
    expect(new MirrorStore(db).unfollowed.ids()).toEqual([]);
  });

  it('a store from before the table existed, behind its disk, plans everything; one in step plans nothing', () => {
    migrate(db, 'mirror', MIRROR_MIGRATIONS.slice(0, 3));
    db.prepare("INSERT INTO mirror_meta (key, value) VALUES ('generation', '7')").run();
    const local = new LocalStore(db);
    local.setMeta('reconciledGen', '6');
    expect(restart().slice?.all).toBe(true);
    local.setMeta('reconciledGen', '7');
    expect(restart().behind).toBe(false);
  });
});
