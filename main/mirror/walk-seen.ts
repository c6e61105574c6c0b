/**
 * What a pass has seen, kept without reading what did not change. A folder that answered 304
 * holds, by the NAS's word, exactly its stored children: they are seen as "the stored
 * children of a 304 folder", not id by id (a quiet 1M restart read a million ids out of the
 * store and kept them in a set only to find nothing unseen: ~1.5 s of the engine's CPU and
 * ~100 MB while its walk ran). Ids the walk's pages brought, or the app read or made itself,
 * are seen by id.
 *
 * A stored object is seen when its id was seen, or when its parent (as stored at the end)
 * answered 304 and the object is not one a gone folder's listing brought (`forget`).
 * `countSeen` counts the stored objects seen, exactly: only when it falls short of the store's
 * count is anything unseen, and only then is every stored id read (`unseenIds`).
 *
 * A pass that began over an empty store (a first walk) keeps no ids at all: everything stored
 * since came from this pass (its pages, what the app made or read by id), so every stored
 * object is seen except the forgotten ones (at 1M, a set of a million ids was ~70 MB of a
 * first walk's live heap).
 */
import type { MirrorStore } from './store.js';

/** What the pass changed in the store while it ran (the applier's batches). */
export interface PassChanges {
  /** Ids removed (the walk may have seen them before). */
  readonly gone: ReadonlySet<string>;
  /** Folders a child left or entered (their children counted at a 304 are counted again). */
  readonly touched: ReadonlySet<string>;
}

export class WalkSeen {
  /** `fill`: the pass began over an empty store (see above). */
  constructor(private readonly fill = false) {}

  /** Ids seen one by one: listed in a page, read by id, made or changed by the app. */
  private readonly ids = new Set<string>();
  /** Folders whose every page answered 304 (their stored children are seen), with their children counted then. */
  private readonly unchanged = new Map<string, number>();
  /** Ids no longer seen (a folder gone while it was listed, and what its pages brought); wins over `unchanged`. */
  private readonly forgotten = new Set<string>();

  /** Sees `id`; false when it was seen by id already (a fill cannot tell: true, unless it was forgotten). */
  add(id: string): boolean {
    if (this.fill) {
      this.forgotten.delete(id);
      return true;
    }
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    return true;
  }

  /** `folderId`'s listing answered 304 in full: its `count` stored children are seen. */
  addUnchanged(folderId: string, count: number): void {
    this.unchanged.set(folderId, count);
  }

  /** `id` is not seen after all (its folder was gone when listed), unless seen by id again later. */
  forget(id: string): void {
    this.ids.delete(id);
    this.forgotten.add(id);
  }

  /** Whether the stored object `id` under `parentId` is seen. */
  has(id: string, parentId: string): boolean {
    if (this.fill) return !this.forgotten.has(id);
    return this.ids.has(id) || (this.unchanged.has(parentId) && !this.forgotten.has(id));
  }

  /**
   * How many stored objects are seen, exactly, given what the pass changed since (a seen id
   * may be gone: the app deleted it after it was listed; a 304 folder's children may have
   * moved in or out since they were counted).
   */
  countSeen(store: MirrorStore, pass: PassChanges): number {
    if (this.fill) {
      let n = store.count();
      for (const _ of store.parentsOf(this.forgotten)) n--;
      return n;
    }
    if (this.unchanged.size === 0) {
      let n = this.ids.size;
      for (const id of pass.gone) if (this.ids.has(id) && !store.has(id)) n--;
      return n;
    }
    // the stored children of the 304 folders, plus the stored ids seen one by one that are
    // not among them, minus the forgotten ones among them
    let n = 0;
    for (const [folderId, count] of this.unchanged) n += pass.touched.has(folderId) ? store.childCount(folderId) : count;
    for (const [, parentId] of store.parentsOf(this.ids)) if (!this.unchanged.has(parentId)) n++;
    for (const [id, parentId] of store.parentsOf(this.forgotten)) if (this.unchanged.has(parentId) && !this.ids.has(id)) n--;
    return n;
  }

  /** The stored ids not seen (reads every stored id and parent: only when `countSeen` fell short). */
  unseenIds(store: MirrorStore): string[] {
    if (this.fill) return [...store.parentsOf(this.forgotten)].map(([id]) => id);
    const out: string[] = [];
    for (const [id, parentId] of store.idsAndParents()) if (!this.has(id, parentId)) out.push(id);
    return out;
  }
}
