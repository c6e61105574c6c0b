/**
 * Step 1 of the remote pipeline (walk -> diff -> apply): lists the NAS breadth-first from
 * `root`, several folders at once, every page of each (1000 per page). Hands each page to
 * `onPage` as it arrives (synchronously, so diff+apply run in page order per folder) and
 * reports progress. Says whether the walk was COMPLETE: only then may deletions be concluded.
 * A folder listed in full before is asked again with If-None-Match, page by page: when every
 * page answers 304 its children are the stored ones (`unchanged`) and nothing is transferred.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import type { ServiceClient } from '../client/service-client.js';
import type { ListingChain } from './store.js';

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
  /** The root folder, as soon as it is fetched (before any listing). */
  onRoot?: (root: RemoteObject) => void;
  /** Folders to list (default: the root, fetched first). */
  startFolders?: readonly string[];
  /** Conditional re-walks: a folder's stored listing chain, what a 304 folder holds, and where to record new chains. */
  conditional?: {
    chain(folderId: string): ListingChain | undefined;
    children(folderId: string): { ids: string[]; folders: string[] };
    listed(folderId: string, chain: ListingChain): void;
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
  try {
    if (opts.startFolders) queue.push(...opts.startFolders);
    else {
      root = await client.get('root', { signal: opts.signal });
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
    for (;;) {
      if (opts.signal?.aborted) throw new AppError('Cancelled', 'walk cancelled');
      const ifNoneMatch = conditional ? known![i]!.etag : undefined;
      const r = await client.listIfChanged(folderId, { limit: pageSize, pageToken: token, signal: opts.signal, ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}) });
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
      const fresh: RemoteObject[] = [];
      for (const o of page.files) {
        saw(o.id, o.mimeType === FOLDER_MIME);
        fresh.push(o);
      }
      opts.onPage(fresh, folderId);
      if (queue.length) wakeAll();
      report();
      const next = page.pageToken === token ? '' : page.pageToken;
      if (r.etag !== undefined) chain.push({ etag: r.etag, next });
      if (next === '') break;
      token = next;
    }
    // the chain is kept only when every page carried an ETag
    if (opts.conditional && chain.length === pages) opts.conditional.listed(folderId, chain);
  };

  await new Promise<void>((resolve) => {
    const worker = async (): Promise<void> => {
      for (;;) {
        if (failure) return;
        const next = queue.shift();
        if (next === undefined) {
          if (active === 0) { wakeAll(); return; }
          await new Promise<void>((r) => {
            const prev = wake;
            wake = () => { prev?.(); r(); };
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
  if (opts.signal?.aborted) return { complete: false, root, seen, progress, error: new AppError('Cancelled', 'walk cancelled') };
  return { complete: true, root, seen, progress };
}
