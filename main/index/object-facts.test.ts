/**
 * The columnar object facts under churn: random batches of adds, moves, renames and
 * removals (folders with their children, children before their parents, parents never
 * seen), after each batch equal to a fresh build of the store (facts, children, isUnder,
 * the ids that have a slot), while slots freed by removals are reused: the slots in use
 * stay within the most objects (and parent ids) held at once, not the ids ever seen.
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
import { ObjectFacts } from './object-facts.js';

let dir = '';
let db: Db | undefined;
afterEach(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const T = '2020-01-01T00:00:00Z';
const obj = (id: string, parentID: string, folder: boolean, name = id): RemoteObject => ({
  id,
  parentID,
  eTag: 'e',
  mimeType: folder ? FOLDER_MIME : 'image/jpeg',
  name,
  mTime: T,
  cTime: T,
  hidden: 'none',
  ...(folder ? {} : { size: 1 }),
});

describe('ObjectFacts', () => {
  it('equal a fresh build after every batch of churn, and reuse the slots removals free', () => {
    dir = mkdtempSync(join(tmpdir(), 'facts-slots-'));
    db = openStateDb(dir);
    const store = new MirrorStore(db);
    store.setRoot(obj('R', '', true));
    const facts = ObjectFacts.build(store);
    const live = new Map<string, RemoteObject>();
    const r = prng(9);
    let next = 0,
      peak = 0;
    const folders = (): string[] => ['R', ...[...live.values()].filter((o) => o.mimeType === FOLDER_MIME).map((o) => o.id)];
    const pickOf = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    for (let batch = 0; batch < 60; batch++) {
      const changes: RemoteChange[] = [];
      const steps = 5 + Math.floor(r() * 40);
      for (let k = 0; k < steps; k++) {
        const c = r();
        const ids = [...live.keys()];
        if (c < 0.45 || ids.length < 10) {
          // a new object; now and then under a parent id not seen yet (it arrives later, or never)
          const folder = r() < 0.2;
          const parent = r() < 0.1 ? `later${next}` : pickOf(folders());
          const o = obj(`o${next++}`, parent, folder);
          live.set(o.id, o);
          changes.push({ kind: 'added', after: o });
          if (parent.startsWith('later') && r() < 0.5) {
            const p = obj(parent, 'R', true);
            live.set(p.id, p);
            changes.push({ kind: 'added', after: p });
          }
        } else if (c < 0.65) {
          const before = live.get(pickOf(ids))!;
          const to = pickOf(folders());
          // never into itself or below itself
          let up = to,
            cycle = false;
          for (let g = 0; up !== 'R' && live.has(up) && g < 1000; g++, up = live.get(up)!.parentID) if (up === before.id) cycle = true;
          if (cycle) continue;
          const after = { ...before, parentID: to, name: `${before.name}-m` };
          live.set(after.id, after);
          changes.push({ kind: 'updated', before, after, aspects: aspectsOf(before, after) });
        } else {
          // a removal: a folder goes with everything below it, children first or last
          const top = live.get(pickOf(ids))!;
          const gone = [top.id];
          for (let i = 0; i < gone.length; i++) for (const o of live.values()) if (o.parentID === gone[i]) gone.push(o.id);
          if (r() < 0.5) gone.reverse();
          for (const id of gone) {
            changes.push({ kind: 'removed', before: live.get(id)! });
            live.delete(id);
          }
        }
      }
      store.apply(changes);
      facts.apply(changes);
      peak = Math.max(peak, live.size + [...live.values()].filter((o) => !live.has(o.parentID)).length);
      const fresh = ObjectFacts.build(store);
      expect(new Map(facts.byId), `batch ${batch}`).toEqual(new Map(fresh.byId));
      for (const f of folders()) {
        expect(new Set(facts.children(f)), `children of ${f}`).toEqual(new Set(fresh.children(f)));
        for (const id of ids3(live, r)) expect(facts.isUnder(id, f), `${id} under ${f}`).toBe(fresh.isUnder(id, f));
      }
      // an id has a slot exactly when it is present or the parent of a present object
      for (let i = 0; i < next; i++) {
        const id = `o${i}`;
        const wanted = live.has(id) || [...live.values()].some((o) => o.parentID === id);
        expect(facts.slotOfId(id) !== undefined, `slot of ${id}`).toBe(wanted);
      }
    }
    expect(next).toBeGreaterThan(2 * peak); // many more ids seen than held at once
    expect(facts.columns().slots).toBeLessThanOrEqual(peak + 1); // + the root
  });
});

/** Three random live ids. */
function ids3(live: Map<string, RemoteObject>, r: () => number): string[] {
  const ids = [...live.keys()];
  return ids.length === 0 ? [] : [0, 1, 2].map(() => ids[Math.floor(r() * ids.length)]!);
}
