/**
 * Step 2 of the remote pipeline (walk -> diff -> apply): compares what a walk saw with the
 * store and says what changed. A page gives `added`/`updated` (same id = rename/move, never
 * remove+add); identical objects give nothing, so an unchanged re-walk writes nothing.
 * `removalsOf` is only called after a COMPLETE walk and the re-check of unseen subtrees.
 */
import type { RemoteObject } from '../../app/model/remote-object.js';
import { aspectsOf, jsonOf, type RemoteChange } from './changes.js';
import type { MirrorStore } from './store.js';
import type { PassChanges, WalkSeen } from './walk-seen.js';
import { storedObject } from './stored-object.js';

/**
 * The changes one listing page brings. `pending` holds changes diffed but not yet written
 * (the walk batches writes): they count as the stored state.
 */
export function diffPage(
  store: MirrorStore,
  objects: readonly RemoteObject[],
  pending?: ReadonlyMap<string, string>,
  storeEmpty = false,
): RemoteChange[] {
  if (objects.length === 0) return [];
  // one query for the whole page (none while filling an empty store), then what is pending overrides it
  const stored = storeEmpty ? new Map<string, string>() : store.getManyJson(objects.map((o) => o.id));
  if (pending)
    for (const o of objects) {
      const j = pending.get(o.id);
      if (j !== undefined) stored.set(o.id, j);
    }
  const out: RemoteChange[] = [];
  for (const o of objects) {
    const before = stored.get(o.id);
    if (before === undefined) out.push({ kind: 'added', after: o });
    else if (before !== jsonOf(o)) {
      const b = storedObject(before, o.id);
      out.push({ kind: 'updated', before: b, after: o, aspects: aspectsOf(b, o) });
    }
  }
  return out;
}

/**
 * The ids of the store a complete walk did not see, as subtrees: each root is an unseen
 * object whose parent was seen (or is the root folder); `members` are the root and its
 * unseen descendants, children before parents.
 */
export function unseenSubtrees(store: MirrorStore, seen: WalkSeen, pass: PassChanges): { root: RemoteObject; members: RemoteObject[] }[] {
  // Every object a walk saw is stored, or was removed since (`pass.gone`), so when the stored
  // objects seen are as many as the store holds nothing is unseen: no read of every id (1.5 s
  // at 1M after each re-walk). A count that drifted low only delays a delete to a recount.
  if (seen.countSeen(store, pass) === store.count()) return [];
  const ids = seen.unseenIds(store);
  if (ids.length === 0) return [];
  const unseen = new Map<string, RemoteObject>();
  for (let i = 0; i < ids.length; i += 500) for (const [id, o] of store.getMany(ids.slice(i, i + 500))) unseen.set(id, o);
  const kids = new Map<string, RemoteObject[]>();
  for (const o of unseen.values()) {
    const k = kids.get(o.parentID);
    if (k) k.push(o);
    else kids.set(o.parentID, [o]);
  }
  const out: { root: RemoteObject; members: RemoteObject[] }[] = [];
  for (const o of unseen.values()) {
    if (unseen.has(o.parentID)) continue;
    const members: RemoteObject[] = [];
    const stack: RemoteObject[] = [o];
    // pre-order, then reversed: children before parents
    while (stack.length) {
      const x = stack.pop()!;
      members.push(x);
      for (const c of kids.get(x.id) ?? []) stack.push(c);
    }
    out.push({ root: o, members: members.reverse() });
  }
  return out;
}

/** `removed` changes for objects known gone (children before parents as given). */
export function removalsOf(members: readonly RemoteObject[]): RemoteChange[] {
  return members.map((before) => ({ kind: 'removed', before }));
}
