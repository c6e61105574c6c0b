/**
 * Step 1 of the remote pipeline (walk -> diff -> apply): lists the NAS breadth-first from
 * `root`, several folders at once, every page of each (1000 per page). Hands each page to
 * `onPage` as it arrives (synchronously, so diff+apply run in page order per folder) and
 * reports progress. Says whether the walk was COMPLETE: only then may deletions be concluded.
 * A folder listed in full before is asked again with If-None-Match, page by page: when every
 * page answers 304 its children are the stored ones (`unchanged`) and nothing is transferred.
 * Bounded against a hostile NAS: a page token repeated within a folder (a cycle), pages that
 * bring no new object, or more pages than the folder's `childCount` allows fail the walk
 * (incomplete: nothing is deleted); objects the schema refuses are skipped, reported and make
 * the walk incomplete too.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import type { ServiceClient } from '../client/service-client.js';
import type { ListingChain } from './store.js';

/** Pages one folder may take when its `childCount` is unknown (2M objects at 1000 a page). */
export const MAX_PAGES_PER_FOLDER = 2000;
/** Pages in a row that bring no new object before a folder's listing is given up. */
export const MAX_IDLE_PAGES = 2;

/** The most pages a folder of `childCount` children may take: one object a page at least, plus slack for objects added while it is listed. */
export const pagesAllowed = (childCount: number | undefined): number =>
  childCount === undefined ? MAX_PAGES_PER_FOLDER : Math.min(MAX_PAGES_PER_FOLDER, childCount + 10);

export interface WalkProgress {
  /** Folders discovered (queued or listed). */
  folders: number;
  /** Folders fully listed. */
  foldersDone: number;
  /** Of those, folders whose every page answered 304 (unchanged since the last walk). */
  unchanged: number;
  /** Objects seen (each id once). */
  objects: number;
  pages: number;
  elapsedMs: number;
  /** Objects per second so far. */
  rate: number;
}

export interface WalkOptions {
  /** Folders listed at once (default 8). */
  concurrency?: number;
  /** Page size (default 1000). */
  pageSize?: number;
  signal?: AbortSignal;
  /** Each page of objects, with the folder it lists. Throwing stops the walk (incomplete). */
  onPage: (objects: RemoteObject[], folderId: string) => void;
  onProgress?: (p: WalkProgress) => void;
  /** Something odd but harmless the NAS did (logged by the caller), e.g. a page token equal to the one sent. */
  onWarning?: (message: string, folderId: string) => void;
  /** The root folder, as soon as it is fetched (before any listing). */
  onRoot?: (root: RemoteObject) => void;
  /** Folders to list (default: the root, fetched first). */
  startFolders?: readonly string[];
  /** Conditional re-walks: a folder's stored listing chain, what a 304 folder holds, and where to record new chains. */
  conditional?: {
    chain(folderId: string): ListingChain | undefined;
    children(folderId: string): { ids: string[]; folders: string[] };
    listed(folderId: string, chain: ListingChain): void;
    /** The folder's stored childCount (bounds its pages when its parent answered 304, so its own childCount was not listed). */
    childCount?(folderId: string): number | undefined;
  };
}

export type WalkResult =
  | { complete: true; root: RemoteObject | undefined; seen: Set<string>; progress: WalkProgress }
  | { complete: false; root: RemoteObject | undefined; seen: Set<string>; progress: WalkProgress; error: AppError };

export async function walk(client: ServiceClient, opts: WalkOptions): Promise<WalkResult> {
  const started = Date.now();
  const seen = new Set<string>();
  const queue: string[] = [];
  const progress: WalkProgress = { folders: 0, foldersDone: 0, unchanged: 0, objects: 0, pages: 0, elapsedMs: 0, rate: 0 };
  const report = (): void => {
    progress.elapsedMs = Date.now() - started;
    progress.rate = progress.elapsedMs > 0 ? Math.round((progress.objects * 1000) / progress.elapsedMs) : 0;
    opts.onProgress?.({ ...progress });
  };
  let root: RemoteObject | undefined;
  let failure: AppError | undefined;
  /** Objects the schema refused (skipped): the walk is then incomplete. */
  const invalid: string[] = [];
  let invalidCount = 0;
  /** Folders' childCount as listed (bounds their pages). */
  const childCounts = new Map<string, number>();
  try {
    if (opts.startFolders) queue.push(...opts.startFolders);
    else {
      root = await client.get('root', { signal: opts.signal });
      if (root.childCount !== undefined) childCounts.set(root.id, root.childCount);
      opts.onRoot?.(root);
      queue.push(root.id);
    }
    progress.folders = queue.length;
  } catch (e) {
    return { complete: false, root, seen, progress, error: toAppError(e) };
  }
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  const pageSize = opts.pageSize ?? 1000;
  let active = 0;
  let wake: (() => void) | undefined;
  const wakeAll = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  /** Counts children seen, queues the folders among them. */
  const saw = (id: string, isFolder: boolean): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    progress.objects++;
    if (isFolder) {
      queue.push(id);
      progress.folders++;
    }
    return true;
  };

  /**
   * Lists one folder, every page. With a stored chain the pages are asked with If-None-Match
   * first: every page 304 = its stored children stand; the first page changed = it is used as
   * the first page of a full listing; a later page changed = listed again from the start
   * (the objects of the 304 pages before it are not at hand).
   */
  const listFolder = async (folderId: string): Promise<void> => {
    const known = opts.conditional?.chain(folderId);
    let conditional = known !== undefined && known.length > 0;
    let token = '';
    let i = 0;
    const chain: ListingChain = [];
    let pages = 0;
    // bounds: tokens already sent in this listing, pages without a new object, pages allowed
    const sent = new Set<string>();
    const mine = new Set<string>();
    let idle = 0;
    let skipped = false;
    // asked only when a second page comes (most folders have one): listed, else stored
    const childCount = (): number | undefined => childCounts.get(folderId) ?? opts.conditional?.childCount?.(folderId);
    let allowed: number | undefined;
    const broken = (why: string): AppError =>
      new AppError('BadResponse', `listing of folder ${folderId} ${why}: the walk is incomplete, nothing is deleted`);
    for (;;) {
      if (opts.signal?.aborted) throw new AppError('Cancelled', 'walk cancelled');
      const ifNoneMatch = conditional ? known![i]!.etag : undefined;
      let r: Awaited<ReturnType<ServiceClient['listIfChanged']>>;
      try {
        r = await client.listIfChanged(folderId, {
          limit: pageSize,
          pageToken: token,
          signal: opts.signal,
          ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}),
        });
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'NotFound') || folderId === root?.id) throw e;
        // Gone since it was listed in its parent (deleted meanwhile; a device's trash or a
        // lingering delete lists it for a while, also in a parent answered 304): neither it nor
        // what its pages brought counts as seen, so the re-check by id after the walk (sync.ts)
        // takes them out of the store. The walk goes on: one folder gone is not an outage.
        seen.delete(folderId);
        for (const id of mine) seen.delete(id);
        return;
      }
      if (failure) return;
      progress.pages++;
      if (r.notModified) {
        // a 304 to a request without If-None-Match is not an answer
        if (!conditional) throw new AppError('BadResponse', `listing of ${folderId} answered 304 to an unconditional request`);
        token = known![i]!.next;
        if (++i < known!.length) continue;
        const kids = opts.conditional!.children(folderId);
        const folders = new Set(kids.folders);
        for (const id of kids.ids) saw(id, folders.has(id));
        progress.unchanged++;
        if (queue.length) wakeAll();
        report();
        return;
      }
      if (conditional && i > 0) {
        conditional = false;
        token = '';
        continue;
      }
      conditional = false;
      const page = r.page;
      pages++;
      sent.add(token);
      const fresh: RemoteObject[] = [];
      let progressed = false;
      for (const o of page.files) {
        if (!mine.has(o.id)) {
          mine.add(o.id);
          progressed = true;
        }
        saw(o.id, o.mimeType === FOLDER_MIME);
        if (o.childCount !== undefined && o.mimeType === FOLDER_MIME) childCounts.set(o.id, o.childCount);
        fresh.push(o);
      }
      if (page.invalid) {
        skipped = true;
        invalidCount += page.invalid.length;
        for (const v of page.invalid) if (invalid.length < 5) invalid.push(`${v.id ?? '(no id)'}: ${v.reason}`);
        for (const v of page.invalid) opts.onWarning?.(`skipped an invalid object in folder ${folderId}: ${v.reason}`, folderId);
      }
      opts.onPage(fresh, folderId);
      if (queue.length) wakeAll();
      report();
      if (page.pageToken !== '' && page.pageToken === token)
        opts.onWarning?.(`listing of folder ${folderId} answered with the page token it was sent: taken as the last page`, folderId);
      const next = page.pageToken === token ? '' : page.pageToken;
      if (r.etag !== undefined) chain.push({ etag: r.etag, next });
      if (next === '') break;
      if (sent.has(next)) throw broken(`repeats an earlier page token after ${pages} pages (a cycle)`);
      idle = progressed ? 0 : idle + 1;
      if (idle >= MAX_IDLE_PAGES) throw broken(`brought no new object in ${idle} pages in a row`);
      allowed ??= pagesAllowed(childCount());
      if (pages >= allowed)
        throw broken(
          `took more pages (${pages}) than its ${childCount() !== undefined ? `childCount of ${childCount()} allows` : `limit of ${MAX_PAGES_PER_FOLDER} pages`}`,
        );
      token = next;
    }
    // the chain is kept only when every page carried an ETag and every object was readable
    if (opts.conditional && chain.length === pages && !skipped) opts.conditional.listed(folderId, chain);
  };

  await new Promise<void>((resolve) => {
    const worker = async (): Promise<void> => {
      for (;;) {
        if (failure) return;
        const next = queue.shift();
        if (next === undefined) {
          if (active === 0) {
            wakeAll();
            return;
          }
          await new Promise<void>((r) => {
            const prev = wake;
            wake = () => {
              prev?.();
              r();
            };
          });
          continue;
        }
        active++;
        try {
          await listFolder(next);
          progress.foldersDone++;
        } catch (e) {
          failure ??= toAppError(e);
          wakeAll();
        } finally {
          active--;
        }
        if (active === 0 && queue.length === 0) wakeAll();
      }
    };
    void Promise.all(Array.from({ length: concurrency }, worker)).then(() => resolve());
  });
  report();
  if (failure) return { complete: false, root, seen, progress, error: failure };
  if (invalidCount > 0)
    return {
      complete: false,
      root,
      seen,
      progress,
      error: new AppError(
        'BadResponse',
        `the NAS sent ${invalidCount} invalid object(s), skipped: the walk is incomplete, nothing is deleted (${invalid.join('; ')})`,
      ),
    };
  if (opts.signal?.aborted) return { complete: false, root, seen, progress, error: new AppError('Cancelled', 'walk cancelled') };
  return { complete: true, root, seen, progress };
}
