/**
 * The two lists that wait for the user, in the contract's shapes (app/contract/shapes.ts):
 * conflicts and held deletes. The window gets exactly these (engine actions), and so does
 * `nas-mirror conflicts|held --json`: one mapping from the stored rows, never the rows.
 */
import type { ConflictEntry, HeldDelete, HeldUpload } from '../../app/contract/shapes.js';
import type { CreatesStore } from './creates-store.js';
import type { LocalStore } from './local-store.js';

export function conflictEntries(local: LocalStore): ConflictEntry[] {
  return local.conflicts().map((c) => {
    const e: ConflictEntry = {
      id: String(c.seq),
      at: c.at,
      kind: c.kind,
      path: c.path,
      intent: c.intent,
      remote: c.remote,
      reason: c.reason,
    };
    if (c.op.op !== 'content') return e;
    // a file changed on both sides: the two versions, yours by the name of its conflicted copy
    const { copyName, mine, nas, note } = c.op;
    return {
      ...e,
      versions: { yours: { name: copyName, size: mine.size, modified: mine.mtime }, nas: { size: nas.size, modified: nas.mtime } },
      ...(note !== undefined ? { note } : {}),
    };
  });
}

export function heldDeletes(local: LocalStore, rootId: string): HeldDelete[] {
  // the root can only be held by a NAS that suddenly looks empty (holdEmptyNas)
  return local.held().map((h) => ({
    id: h.id,
    at: h.at,
    path: h.path,
    folder: h.folder,
    objects: h.objects,
    cause: h.id === rootId ? ('nas-looks-empty' as const) : h.candidates ? ('renamed-or-deleted' as const) : ('threshold' as const),
    reason: h.reason.slice(0, 4096),
    ...(h.candidates ? { candidates: h.candidates.slice(0, 16) } : {}),
  }));
}

/**
 * New entries waiting for the user's word before they upload; `pathOf` gives a folder's path
 * by its id (the model when the engine runs; the stored rows for the command line).
 */
export function heldUploads(creates: CreatesStore, pathOf: (id: string) => string | undefined): HeldUpload[] {
  return creates.held().map((r) => {
    const dir = pathOf(r.parent);
    return { id: String(r.seq), at: r.at, path: dir === undefined || dir === '' ? r.name : `${dir}/${r.name}`, folder: r.kind === 'dir' };
  });
}
