/**
 * One mirror pass, the remote pipeline end to end: walk -> diff -> apply per page, then,
 * only if the walk was COMPLETE, the objects it did not see: each unseen subtree's top is
 * fetched by id (it may have moved into a folder listed earlier in the walk); gone (404)
 * means removed, found means moved (its subtree is walked again). An incomplete walk removes nothing.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { IdFilter } from '../../app/util/id-filter.js';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import type { ServiceClient } from '../client/service-client.js';
import type { ChangeApplier } from './apply.js';
import { jsonOf, type RemoteChange } from './changes.js';
import { diffPage, removalsOf, unseenSubtrees } from './diff.js';
import type { MirrorStore } from './store.js';
import { walk, type WalkOptions, type WalkProgress } from './walk.js';
import { WalkSeen } from './walk-seen.js';
import type { StoredListing } from './store.js';

export interface SyncSummary {
  complete: boolean;
  objects: number;
  folders: number;
  added: number;
  updated: number;
  removed: number;
  elapsedMs: number;
  error?: AppError;
}

export interface SyncOptions {
  concurrency?: number;
  pageSize?: number;
  signal?: AbortSignal;
  onProgress?: (p: WalkProgress) => void;
  /** Something odd the NAS did that the walk survived (an invalid object skipped, a repeated page token). */
  onWarning?: (message: string, folderId: string) => void;
  /**
   * A complete walk that finds the NAS root empty while the store holds more than this many
   * objects removes nothing and ends with `NasLooksEmpty` (a wipe, a wrong account or device:
   * the user decides). Absent = no guard.
   */
  holdEmptyAbove?: number;
  /** Changes written per transaction (default 1000: each batch is one short pause of the thread). */
  batchSize?: number;
}

export async function syncOnce(
  client: ServiceClient,
  store: MirrorStore,
  applier: ChangeApplier,
  opts: SyncOptions = {},
): Promise<SyncSummary> {
  // What the app itself made or read by id meanwhile (new files and folders it uploaded, its
  // renames and moves as the NAS answered them): as fresh as anything this walk lists, so not
  // "unseen" when a listing taken before them missed them (a 10,000-file drop overlapping a
  // walk had each of its files read again by id: 2.1-2.4 requests a file instead of 2), and
  // never taken back by a listing the NAS answered before them (PassWrites).
  const own = new Set<string>();
  const run: SyncRun = {
    client,
    store,
    applier,
    opts,
    t0: Date.now(),
    before: { ...applier.totals },
    writes: new PassWrites(store, applier, opts, own),
    seen: new WalkSeen(store.count() === 0),
    changed: { gone: new Set<string>(), touched: new Set<string>() },
  };
  const offOwn = applier.onOwn((cs) => {
    for (const c of cs) own.add(c.kind === 'removed' ? c.before.id : c.after.id);
  });
  const offChanged = applier.onChanges((cs) => {
    for (const c of cs) {
      if (c.kind === 'removed') run.changed.gone.add(c.before.id);
      if (c.kind !== 'added') run.changed.touched.add(c.before.parentID);
      if (c.kind !== 'removed') run.changed.touched.add(c.after.parentID);
    }
  });
  try {
    return await walkAndSettle(run, own);
  } finally {
    offOwn();
    offChanged();
  }
}

/** The pass itself: the walk, its writes, then the unseen objects (`own` counts as seen). */
async function walkAndSettle(run: SyncRun, own: ReadonlySet<string>): Promise<SyncSummary> {
  const { client, store, opts, writes } = run;
  // a re-walk asks nearly every stored listing: read at once (a fresh mirror has none)
  if (store.count() > 0) store.preloadListings();
  const r = await walk(client, {
    concurrency: opts.concurrency,
    pageSize: opts.pageSize,
    signal: opts.signal,
    onPage: (objs) => writes.page(objs),
    onProgress: opts.onProgress,
    onWarning: opts.onWarning,
    onRoot: (root) => store.setRoot(root),
    conditional: writes.conditional,
    seen: run.seen,
  }).finally(() => {
    store.releaseListings();
    writes.flush();
    writes.endBulkFill();
  });
  if (r.root) store.setRoot(r.root);
  if (!r.complete) return summaryOf(run, false, r.progress.objects, r.progress.folders, r.error);
  const seen = r.seen;
  if (opts.holdEmptyAbove !== undefined && r.progress.objects === 0 && store.count() > opts.holdEmptyAbove) {
    // the root's empty listing is not applied: its chain is dropped, so the next walk asks it
    // in full (never a 304 that would bring back the stored children)
    if (r.root) store.setListings(new Map([[r.root.id, { chain: [], children: undefined }]]));
    const why =
      `the NAS now looks empty: its root lists nothing, the mirror holds ${store.count()} objects; ` +
      'nothing is removed until you approve';
    return summaryOf(run, false, 0, r.progress.folders, new AppError('NasLooksEmpty', why));
  }
  const tally: Tally = { objects: r.progress.objects, folders: r.progress.folders };
  for (const id of own) seen.add(id);
  let error: AppError | undefined;
  try {
    error = await recheckUnseen(run, seen, tally);
  } catch (e) {
    return summaryOf(run, false, tally.objects, tally.folders, toAppError(e));
  }
  if (error) return summaryOf(run, false, tally.objects, tally.folders, error);
  store.setLastWalk({ completedAt: new Date().toISOString(), objects: tally.objects, folders: tally.folders });
  return summaryOf(run, true, tally.objects, tally.folders);
}

/** One pass: what it works on and what it started from (for the summary). */
interface SyncRun {
  readonly client: ServiceClient;
  readonly store: MirrorStore;
  readonly applier: ChangeApplier;
  readonly opts: SyncOptions;
  readonly t0: number;
  readonly before: ChangeApplier['totals'];
  readonly writes: PassWrites;
  /** What the pass's walks saw. */
  readonly seen: WalkSeen;
  /** What the pass's changes did to the store (`WalkSeen.countSeen`). */
  readonly changed: { gone: Set<string>; touched: Set<string> };
}

/** Objects and folders a pass has seen so far. */
interface Tally {
  objects: number;
  folders: number;
}

/** The summary of a pass: the applier's totals since it started. */
function summaryOf(run: SyncRun, complete: boolean, objects: number, folders: number, error?: AppError): SyncSummary {
  const { totals } = run.applier;
  return {
    complete,
    objects,
    folders,
    added: totals.added - run.before.added,
    updated: totals.updated - run.before.updated,
    removed: totals.removed - run.before.removed,
    elapsedMs: Date.now() - run.t0,
    ...(error ? { error } : {}),
  };
}

/** One pass's writes: the changes of its pages, batched, and the listing chains that wait for them. */
class PassWrites {
  // Writes are batched across pages (one transaction per batch, not per page); objects seen
  // again before the flush are diffed against the pending version.
  private batch: RemoteChange[] = [];
  private readonly pending = new Map<string, string>();
  // A fresh mirror: only what this walk wrote can be stored, so a page whose ids were not
  // written yet needs no lookup (a filter of them: a set of a million ids was ~25 MB beside
  // their strings); and the parent index is built once at the end.
  private readonly written: IdFilter | undefined;
  // Listing chains wait for their pages' objects to be written (a chain stored first would
  // answer 304 next time for objects the store never got).
  private chains = new Map<string, StoredListing>();
  /** The walk's conditional re-walks, from the store; new chains wait here for the next flush. */
  readonly conditional: NonNullable<WalkOptions['conditional']>;
  private readonly store: MirrorStore;
  private readonly applier: ChangeApplier;
  private readonly opts: SyncOptions;

  /**
   * Ids the app applied itself during this pass (`syncOnce`'s `own`). A listing page the NAS
   * answered before such a change can reach here after it: applied, it took the store back
   * to the object as it was (s27: a new file's upload finished and bound, then the listing that
   * showed it unfinished and empty arrived, and the file, as downloaded from the NAS's older
   * version, was emptied into a placeholder). Their listed state is left out of this pass;
   * the next walk reads them as the NAS has them then.
   */
  private readonly own: ReadonlySet<string>;
  /**
   * Folders a page of which showed an object of `own` otherwise than the app has it: their
   * listing chains are not kept (a 304 at the next walk would keep the app's version even where
   * the NAS changed the object again after it), so the next walk lists them in full.
   */
  private readonly unsure = new Set<string>();

  constructor(store: MirrorStore, applier: ChangeApplier, opts: SyncOptions, own: ReadonlySet<string>) {
    this.store = store;
    this.applier = applier;
    this.opts = opts;
    this.own = own;
    this.written = store.count() === 0 ? new IdFilter() : undefined;
    if (this.written) store.beginBulkFill();
    this.conditional = {
      known: (ids) => store.listings(ids),
      children: (id) => store.childSummary(id),
      listed: (id, chain, children) => {
        this.chains.set(id, { chain, children });
      },
      childCount: (id: string) => store.get(id)?.childCount,
    };
  }

  /** Diffs a walked page into the batch; writes the batch once it is full. */
  page(listed: RemoteObject[]): void {
    const objs = this.own.size === 0 ? listed : listed.filter((o) => this.keeps(o));
    const written = this.written;
    const fresh = written !== undefined && !objs.some((o) => written.mayHold(o.id));
    for (const c of diffPage(this.store, objs, this.pending, fresh)) {
      this.batch.push(c);
      if (c.kind !== 'removed') this.pending.set(c.after.id, jsonOf(c.after));
    }
    if (this.batch.length >= (this.opts.batchSize ?? 1000)) this.flush();
  }

  /** Writes the batch, then the listing chains whose pages it held. */
  flush(): void {
    // (diffed before the app's own change of the same object: left out, as in `page`)
    const b = this.own.size === 0 ? this.batch : this.batch.filter((c) => c.kind === 'removed' || this.keeps(c.after));
    this.batch = [];
    this.pending.clear();
    this.applier.apply(b);
    if (this.written) for (const c of b) if (c.kind !== 'removed') this.written.add(c.after.id);
    const ch = this.chains;
    this.chains = new Map();
    for (const id of this.unsure) ch.delete(id);
    this.store.setListings(ch);
  }

  /** False for an object the app applied itself during this pass (left out; its folder noted when the page differs). */
  private keeps(o: RemoteObject): boolean {
    if (!this.own.has(o.id)) return true;
    if (!this.unsure.has(o.parentID) && jsonOf(o) !== this.store.getJson(o.id)) {
      this.unsure.add(o.parentID);
      this.store.forgetListings([o.parentID]); // (its chain from an earlier walk goes too)
    }
    return false;
  }

  /** Ends the bulk fill of a fresh mirror (builds the parent index). */
  endBulkFill(): void {
    if (this.written) this.store.endBulkFill();
  }
}

/**
 * Unseen subtrees: re-checks each top by id until nothing new turns up. Gone means removed,
 * found means moved (a moved folder's subtree is walked again). The error of an incomplete walk.
 */
async function recheckUnseen(run: SyncRun, seen: WalkSeen, tally: Tally): Promise<AppError | undefined> {
  for (let round = 0; round < 10; round++) {
    const subtrees = unseenSubtrees(run.store, seen, run.changed);
    if (subtrees.length === 0) break;
    const moved = await recheckTops(run, subtrees, seen, tally);
    if (moved.length) {
      const error = await walkMoved(run, moved, seen, tally);
      if (error) return error;
    }
  }
  return undefined;
}

/** Fetches each unseen subtree's top by id: gone (404) removes the subtree, found is diffed in. The folders found (moved). */
async function recheckTops(run: SyncRun, subtrees: ReturnType<typeof unseenSubtrees>, seen: WalkSeen, tally: Tally): Promise<string[]> {
  const { client, store, applier } = run;
  const moved: string[] = [];
  for (const s of subtrees) {
    let now;
    try {
      now = await client.get(s.root.id, { signal: run.opts.signal });
    } catch (e) {
      if (e instanceof AppError && e.code === 'NotFound') {
        applier.apply(removalsOf(s.members));
        continue;
      }
      throw e;
    }
    seen.add(now.id);
    tally.objects++;
    applier.apply(diffPage(store, [now]));
    if (now.mimeType === FOLDER_MIME) moved.push(now.id);
  }
  return moved;
}

/** Walks the subtrees of folders that moved; the error when that walk is incomplete. */
async function walkMoved(run: SyncRun, moved: string[], seen: WalkSeen, tally: Tally): Promise<AppError | undefined> {
  const { opts, writes } = run;
  const again = await walk(run.client, {
    concurrency: opts.concurrency,
    pageSize: opts.pageSize,
    signal: opts.signal,
    onPage: (objs) => writes.page(objs),
    startFolders: moved,
    conditional: writes.conditional,
    seen,
    onWarning: opts.onWarning,
  }).finally(() => writes.flush());
  tally.objects += again.progress.objects;
  tally.folders += again.progress.folders;
  writes.flush();
  return again.complete ? undefined : again.error;
}
