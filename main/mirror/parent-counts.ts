/**
 * The folders' `childCount` after a change the app made itself (a move, a rename into
 * another folder, a delete, a new file or folder) or read by id: the NAS answers with the
 * object, not with its old and new parent, so the stored parents would keep their old counts
 * until a walk lists their own parents again (Browse said "153 items" of a folder that held
 * 152). A walk needs none of this: its listings bring each folder with its count.
 */
import { isFolder } from '../../app/model/remote-object.js';
import type { RemoteChange } from './changes.js';
import type { MirrorStore } from './store.js';

/** How many direct children each parent gained (+) or lost (-) in `changes`. */
export function childDeltas(changes: readonly RemoteChange[]): Map<string, number> {
  const d = new Map<string, number>();
  const add = (id: string, n: number): void => {
    d.set(id, (d.get(id) ?? 0) + n);
  };
  for (const c of changes) {
    if (c.kind === 'added') add(c.after.parentID, 1);
    else if (c.kind === 'removed') add(c.before.parentID, -1);
    else if (c.before.parentID !== c.after.parentID) {
      add(c.before.parentID, -1);
      add(c.after.parentID, 1);
    }
  }
  return d;
}

/**
 * The stored folders whose count `changes` moved, updated (read after `changes` are stored: a
 * parent removed in the same batch is gone, a parent added in it is counted from its own
 * answer). The root is left out: it is kept apart, and nothing shows its count.
 */
export function parentCountChanges(store: MirrorStore, changes: readonly RemoteChange[]): RemoteChange[] {
  const rootId = store.root()?.id;
  const out: RemoteChange[] = [];
  for (const [id, n] of childDeltas(changes)) {
    if (n === 0 || id === rootId || id === 'root') continue;
    const before = store.get(id);
    if (!before || !isFolder(before) || before.childCount === undefined) continue;
    const after = { ...before, childCount: Math.max(0, before.childCount + n) };
    out.push({ kind: 'updated', before, after, aspects: { renamed: false, moved: false, metadata: true } });
  }
  return out;
}
