/**
 * One mirror pass, the remote pipeline end to end: walk -> diff -> apply per page, then,
 * only if the walk was COMPLETE, the objects it did not see: each unseen subtree's top is
 * fetched by id (it may have moved into a folder listed earlier in the walk); gone (404)
 * means removed, found means moved (its subtree is walked again). An incomplete walk removes nothing.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { FOLDER_MIME } from '../../app/model/remote-object.js';
import type { ServiceClient } from '../client/service-client.js';
import type { ChangeApplier } from './apply.js';
import { jsonOf, type RemoteChange } from './changes.js';
import { diffPage, removalsOf, unseenSubtrees } from './diff.js';
import type { MirrorStore } from './store.js';
import { walk, type WalkProgress } from './walk.js';
import type { ListingChain } from './store.js';

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
  const t0 = Date.now();
  const before = { ...applier.totals };
  // Writes are batched across pages (one transaction per batch, not per page); objects seen
  // again before the flush are diffed against the pending version.
  let batch: RemoteChange[] = [];
  const pending = new Map<string, string>();
  // A fresh mirror: only what this walk wrote can be stored, so a page whose ids were not
  // written yet needs no lookup; and the parent index is built once at the end.
  const written = store.count() === 0 ? new Set<string>() : undefined;
  if (written) store.beginBulkFill();
  // Listing chains wait for their pages' objects to be written (a chain stored first would
  // answer 304 next time for objects the store never got).
  let chains = new Map<string, ListingChain>();
  const flush = (): void => {
    const b = batch;
    batch = [];
    pending.clear();
    applier.apply(b);
    if (written) for (const c of b) if (c.kind !== 'removed') written.add(c.after.id);
    const ch = chains;
    chains = new Map();
    store.setListings(ch);
  };
  const conditional = {
    chain: (id: string) => store.listing(id),
    children: (id: string) => store.childKinds(id),
    listed: (id: string, chain: ListingChain) => {
      chains.set(id, chain);
    },
    childCount: (id: string) => store.get(id)?.childCount,
  };
  const onPage = (objs: Parameters<Parameters<typeof walk>[1]['onPage']>[0]): void => {
    const fresh = written !== undefined && !objs.some((o) => written.has(o.id));
    for (const c of diffPage(store, objs, pending, fresh)) {
      batch.push(c);
      if (c.kind !== 'removed') pending.set(c.after.id, jsonOf(c.after));
    }
    if (batch.length >= (opts.batchSize ?? 1000)) flush();
  };
  const summary = (complete: boolean, objects: number, folders: number, error?: AppError): SyncSummary => ({
    complete,
    objects,
    folders,
    added: applier.totals.added - before.added,
    updated: applier.totals.updated - before.updated,
    removed: applier.totals.removed - before.removed,
    elapsedMs: Date.now() - t0,
    ...(error ? { error } : {}),
  });
  const r = await walk(client, {
    concurrency: opts.concurrency,
    pageSize: opts.pageSize,
    signal: opts.signal,
    onPage,
    onProgress: opts.onProgress,
    onWarning: opts.onWarning,
    onRoot: (root) => store.setRoot(root),
    conditional,
  }).finally(() => {
    flush();
    if (written) store.endBulkFill();
  });
  if (r.root) store.setRoot(r.root);
  if (!r.complete) return summary(false, r.progress.objects, r.progress.folders, r.error);
  const seen = r.seen;
  if (opts.holdEmptyAbove !== undefined && seen.size === 0 && store.count() > opts.holdEmptyAbove) {
    // the root's empty listing is not applied: its chain is dropped, so the next walk asks it in full (never a 304 that would bring back the stored children)
    if (r.root) store.setListings(new Map([[r.root.id, []]]));
    return summary(
      false,
      0,
      r.progress.folders,
      new AppError(
        'NasLooksEmpty',
        `the NAS now looks empty: its root lists nothing, the mirror holds ${store.count()} objects; nothing is removed until you approve`,
      ),
    );
  }
  let objects = r.progress.objects;
  let folders = r.progress.folders;
  try {
    // Unseen subtrees: re-check each top by id until nothing new turns up.
    for (let round = 0; round < 10; round++) {
      const subtrees = unseenSubtrees(store, seen);
      if (subtrees.length === 0) break;
      const moved: string[] = [];
      for (const s of subtrees) {
        let now;
        try {
          now = await client.get(s.root.id, { signal: opts.signal });
        } catch (e) {
          if (e instanceof AppError && e.code === 'NotFound') {
            applier.apply(removalsOf(s.members));
            continue;
          }
          throw e;
        }
        seen.add(now.id);
        objects++;
        applier.apply(diffPage(store, [now]));
        if (now.mimeType === FOLDER_MIME) moved.push(now.id);
      }
      if (moved.length) {
        const again = await walk(client, {
          concurrency: opts.concurrency,
          pageSize: opts.pageSize,
          signal: opts.signal,
          onPage,
          startFolders: moved,
          conditional,
          onWarning: opts.onWarning,
        }).finally(flush);
        for (const id of again.seen) seen.add(id);
        objects += again.progress.objects;
        folders += again.progress.folders;
        flush();
        if (!again.complete) return summary(false, objects, folders, again.error);
      }
    }
  } catch (e) {
    return summary(false, objects, folders, toAppError(e));
  }
  store.setLastWalk({ completedAt: new Date().toISOString(), objects, folders });
  return summary(true, objects, folders);
}
