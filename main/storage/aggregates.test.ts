/**
 * Storage totals kept incrementally equal totals computed from scratch, after random batches
 * of adds, renames, moves of files and folders, size changes and removals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import { prng } from '../../app/util/prng.js';
import { ObjectFacts } from '../index/object-facts.js';
import type { RemoteChange } from '../mirror/changes.js';
import { aspectsOf } from '../mirror/changes.js';
import { MirrorStore } from '../mirror/store.js';
import { openStateDb, type Db } from '../state/db.js';
import { StorageAggregates } from './aggregates.js';

let dir = '';
let db: Db | undefined;
afterEach(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const T = '2020-01-01T00:00:00Z';
const obj = (id: string, parentID: string, folder: boolean, size: number, mime = 'image/jpeg'): RemoteObject => ({
  id,
  parentID,
  eTag: 'e',
  mimeType: folder ? FOLDER_MIME : mime,
  name: id,
  mTime: T,
  cTime: T,
  hidden: 'none',
  ...(folder ? {} : { size }),
});

describe('storage aggregates', () => {
  it('kept incrementally, they equal a fresh computation after every batch', () => {
    dir = mkdtempSync(join(tmpdir(), 'agg-'));
    db = openStateDb(dir);
    const store = new MirrorStore(db);
    store.setRoot(obj('R', '', true, 0));
    const r = prng(9);
    const live = new Map<string, RemoteObject>();
    const folders = ['R'];
    const batch0: RemoteChange[] = [];
    for (let i = 0; i < 300; i++) {
      const folder = r() < 0.2;
      const o = obj(
        `o${i}`,
        folders[Math.floor(r() * folders.length)]!,
        folder,
        Math.floor(r() * 1e6),
        ['image/jpeg', 'video/mp4', 'audio/mpeg', 'application/pdf', 'x/y'][i % 5],
      );
      if (folder) folders.push(o.id);
      live.set(o.id, o);
      batch0.push({ kind: 'added', after: o });
    }
    store.apply(batch0);
    const facts = ObjectFacts.build(store);
    const agg = new StorageAggregates(() => facts);
    agg.view();
    const under = (id: string, anc: string): boolean => {
      for (let cur: string | undefined = id; cur && cur !== 'R'; cur = live.get(cur)?.parentID) if (cur === anc) return true;
      return false;
    };
    for (let round = 0; round < 40; round++) {
      const changes: RemoteChange[] = [];
      for (let k = 0; k < 8; k++) {
        const ids = [...live.keys()];
        const before = live.get(ids[Math.floor(r() * ids.length)]!)!;
        const c = r();
        if (c < 0.5) {
          const to = folders.filter((f) => f === 'R' || live.has(f))[
            Math.floor(r() * folders.length) % folders.filter((f) => f === 'R' || live.has(f)).length
          ]!;
          if (to === before.id || under(to, before.id)) continue;
          const after = { ...before, parentID: to, ...(before.mimeType === FOLDER_MIME ? {} : { size: Math.floor(r() * 1e6) }) };
          live.set(after.id, after);
          changes.push({ kind: 'updated', before, after, aspects: aspectsOf(before, after) });
        } else if (c < 0.8 && before.mimeType !== FOLDER_MIME) {
          live.delete(before.id);
          changes.push({ kind: 'removed', before });
        } else {
          const o = obj(`n${round}-${k}`, before.mimeType === FOLDER_MIME ? before.id : before.parentID, r() < 0.3, Math.floor(r() * 1e6));
          if (o.mimeType === FOLDER_MIME) folders.push(o.id);
          live.set(o.id, o);
          changes.push({ kind: 'added', after: o });
        }
      }
      store.apply(changes);
      facts.apply(changes);
      const fresh = new StorageAggregates(() => ObjectFacts.build(store));
      for (const f of ['R', ...folders.filter((x) => live.has(x))]) {
        const a = agg.totalsOf(f)!,
          b = fresh.totalsOf(f)!;
        expect(a, `round ${round} folder ${f}`).toEqual(b);
      }
      expect(agg.view().bytes).toBe(fresh.view().bytes);
      // an oracle outside the code: the root holds every live file's size
      const files = [...live.values()].filter((o) => o.mimeType !== FOLDER_MIME);
      expect(agg.totalsOf('R')).toMatchObject({ bytes: files.reduce((n, o) => n + (o.size ?? 0), 0), files: files.length });
    }
  });

  it("in chunks (the engine's way) gives the same views as in one go", async () => {
    dir = mkdtempSync(join(tmpdir(), 'agg-'));
    db = openStateDb(dir);
    const store = new MirrorStore(db);
    store.setRoot(obj('R', '', true, 0));
    const batch: RemoteChange[] = [];
    for (let i = 0; i < 60_000; i++) {
      const o =
        i < 40
          ? obj(`d${i}`, i < 8 ? 'R' : `d${i % 8}`, true, 0)
          : { ...obj(`f${i}`, `d${i % 40}`, false, (i % 50) * 1000 + 1), name: `n${i % 500}` };
      batch.push({ kind: 'added', after: o });
    }
    store.apply(batch);
    const facts = ObjectFacts.build(store);
    const chunked = new StorageAggregates(
      () => facts,
      async () => facts,
      0,
    );
    const oneGo = new StorageAggregates(() => facts);
    let turns = 0;
    let done = false;
    const tick = (): void => {
      if (!done) {
        turns++;
        setImmediate(tick);
      }
    };
    setImmediate(tick);
    const a = await chunked.viewReady();
    done = true;
    expect(turns).toBeGreaterThan(10);
    const b = oneGo.view();
    expect({ ...a, computedMs: 0 }).toEqual({ ...b, computedMs: 0 });
    expect(a.duplicates.length).toBeGreaterThan(0);
    const folder = a.children.find((c) => c.folder)!.id;
    expect({ ...(await chunked.viewReady(folder)), computedMs: 0 }).toEqual({ ...oneGo.view(folder), computedMs: 0 });
  });
});
