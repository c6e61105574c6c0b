/**
 * The object facts built in chunks: other work runs between chunks, changes that land
 * meanwhile (adds, moves, renames, removals) are in the result, and the result equals a
 * one-pass build of the store as it ends; concurrent callers share one build.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import { prng } from '../../app/util/prng.js';
import { aspectsOf, type RemoteChange } from '../mirror/changes.js';
import { MirrorStore } from '../mirror/store.js';
import { openStateDb, type Db } from '../state/db.js';
import { FactsKeeper } from './facts-keeper.js';
import { ObjectFacts } from './object-facts.js';

let dir = '';
let db: Db | undefined;
afterEach(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const T = '2020-01-01T00:00:00Z';
const obj = (id: string, parentID: string, folder: boolean, size = 1, name = id): RemoteObject => ({
  id,
  parentID,
  eTag: 'e',
  mimeType: folder ? FOLDER_MIME : 'image/jpeg',
  name,
  mTime: T,
  cTime: T,
  hidden: 'none',
  ...(folder ? {} : { size }),
});

describe('FactsKeeper', () => {
  it.each([
    ['100 rows', 100],
    ["chunks sized by time (the engine's way)", { targetMs: 0.2 }],
  ] as const)('builds in chunks (%s) that let other work run, and keeps every change that lands meanwhile', async (_, chunk) => {
    dir = mkdtempSync(join(tmpdir(), 'facts-'));
    db = openStateDb(dir);
    const store = new MirrorStore(db);
    store.setRoot(obj('R', '', true));
    const live = new Map<string, RemoteObject>();
    const seed: RemoteChange[] = [];
    for (let i = 0; i < 2000; i++) {
      const o = obj(`o${i}`, i < 50 ? 'R' : `o${i % 50}`, i < 50, i);
      live.set(o.id, o);
      seed.push({ kind: 'added', after: o });
    }
    store.apply(seed);
    const keeper = new FactsKeeper(store, chunk);
    const r = prng(4);
    let turns = 0;
    // a change batch lands on every turn of the loop while the build runs
    let done = false;
    const churn = (): void => {
      if (done) return;
      turns++;
      const changes: RemoteChange[] = [];
      for (let k = 0; k < 5; k++) {
        const ids = [...live.keys()].filter((id) => live.get(id)!.mimeType !== FOLDER_MIME);
        const before = live.get(ids[Math.floor(r() * ids.length)]!)!;
        const c = r();
        if (c < 0.4) {
          const after = { ...before, parentID: `o${Math.floor(r() * 50)}`, name: `${before.name}-m`, size: Math.floor(r() * 1e6) };
          live.set(after.id, after);
          changes.push({ kind: 'updated', before, after, aspects: aspectsOf(before, after) });
        } else if (c < 0.7) {
          live.delete(before.id);
          changes.push({ kind: 'removed', before });
        } else {
          const o = obj(`n${turns}-${k}`, `o${Math.floor(r() * 50)}`, false, k);
          live.set(o.id, o);
          changes.push({ kind: 'added', after: o });
        }
      }
      store.apply(changes);
      keeper.apply(changes);
      setImmediate(churn);
    };
    setImmediate(churn);
    const [a, b] = [keeper.ready(), keeper.ready()];
    expect(a).toBe(b);
    const facts = await a;
    done = true;
    expect(turns).toBeGreaterThan(5);
    expect(keeper.current()).toBe(facts);
    const fresh = ObjectFacts.build(store);
    expect(new Map(facts.byId)).toEqual(new Map(fresh.byId));
    for (const id of ['R', 'o0', 'o7']) expect(new Set(facts.children(id))).toEqual(new Set(fresh.children(id)));
    expect(keeper.get()).toBe(facts);
  });

  it('a one-pass get() during a chunked build wins; the build then answers with it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'facts-'));
    db = openStateDb(dir);
    const store = new MirrorStore(db);
    store.setRoot(obj('R', '', true));
    store.apply(Array.from({ length: 500 }, (_, i): RemoteChange => ({ kind: 'added', after: obj(`o${i}`, 'R', false) })));
    const keeper = new FactsKeeper(store, 50);
    const pending = keeper.ready();
    const now = keeper.get();
    expect(now.size).toBe(500);
    expect(await pending).toBe(now);
  });
});
