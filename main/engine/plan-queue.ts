/**
 * What the placeholders must follow next (remote -> disk): the ids the mirror store changed
 * since the last reconcile (in apply order: folders before what they hold), entries changed
 * outside a reconcile, ids to try again (failed placements, objects met before their
 * folder; persisted), and whether everything must be planned. The store writes each applied
 * id to its `unfollowed` table in the apply's transaction, and a settled slice clears them,
 * so a stop or a crash between the two plans just those ids again. Only when the disk is
 * behind a bulk fill (a first walk's, which writes no ids) is everything planned, known from
 * `reconciledGen` against the store's `fillGen`. Bookkeeping only: the engine takes a slice
 * under its lock, reconciles it and settles it here.
 */
import type { LocalStore } from '../local/local-store.js';
import type { LocalModel } from '../local/model.js';
import type { MirrorStore } from '../mirror/store.js';

/** Retry ids kept in the state db; beyond this, everything is planned again instead. */
const RETRY_KEEP = 10_000;

/** A slice taken for one reconcile: everything, or these ids. */
export interface PlanSlice {
  all: boolean;
  only: Set<string>;
}

export class PlanQueue {
  private dirty = new Set<string>();
  private retry = new Set<string>();
  private everything: boolean;

  constructor(
    private readonly local: LocalStore,
    private readonly store: MirrorStore,
  ) {
    const reconciled = Number(local.meta('reconciledGen') ?? '-1');
    this.everything = store.generation() > 0 && reconciled !== store.generation() && reconciled < store.fillGen();
    for (const id of store.unfollowed.ids()) this.dirty.add(id);
    for (const id of JSON.parse(local.meta('retryIds') ?? '[]') as string[]) this.retry.add(id);
  }

  /** Ids the store changed (the applier's listener). */
  note(ids: Iterable<string>): void {
    for (const id of ids) this.dirty.add(id);
  }

  /** Everything is planned at the next reconcile (after the user acted on held deletes or conflicts). */
  planEverything(): void {
    this.everything = true;
  }

  get pending(): number {
    return this.dirty.size;
  }

  /** True when a catch-up reconcile has work even with no new change. */
  get behind(): boolean {
    return this.everything || this.retry.size > 0 || this.dirty.size > 0;
  }

  /** The next slice (at most `limit` ids), with the model's own changes and, if asked, the retries. */
  take(model: LocalModel, withRetries: boolean, limit: number): PlanSlice | undefined {
    // Entries changed outside a reconcile (settled conflicts, the user's moves) are planned again too.
    for (const id of model.takeTouched()) this.dirty.add(id);
    if (withRetries && this.retry.size) {
      for (const id of this.retry) this.dirty.add(id);
      this.retry.clear();
    }
    const all = this.everything;
    if (!all && this.dirty.size === 0) return undefined;
    let only = this.dirty;
    if (all || only.size <= limit) this.dirty = new Set();
    else {
      only = new Set();
      for (const id of this.dirty) {
        if (only.size >= limit) break;
        only.add(id);
      }
      for (const id of only) this.dirty.delete(id);
    }
    this.everything = false;
    return { all, only };
  }

  /** A reconcile of `slice` failed: nothing is lost, it is planned again next time. */
  putBack(slice: PlanSlice): void {
    for (const id of slice.only) this.dirty.add(id);
    if (slice.all) this.everything = true;
  }

  /** A reconcile of `slice` is done: keep what must be tried again; record how far the disk follows. */
  settle(slice: PlanSlice, retry: readonly string[], stale: ReadonlySet<string>, withRetries: boolean): void {
    const before = this.retry.size;
    for (const id of retry) this.retry.add(id);
    for (const id of stale) if (slice.all || slice.only.has(id)) this.retry.add(id);
    if (this.retry.size !== before || withRetries) this.local.setMeta('retryIds', JSON.stringify([...this.retry].slice(0, RETRY_KEEP)));
    if (this.retry.size > RETRY_KEEP) this.everything = true;
    // after the retries are kept: a crash in between plans these ids once more, never less
    this.store.unfollowed.followed(slice.all ? 'all' : slice.only);
    if (this.dirty.size === 0 && !this.everything) this.local.setMeta('reconciledGen', String(this.store.generation()));
  }
}
