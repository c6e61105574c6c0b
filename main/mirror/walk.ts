/**
 * Step 1 of the remote pipeline (walk -> diff -> apply): lists the NAS breadth-first from
 * `root`, several folders at once, every page of each (1000 per page). Hands each page to
 * `onPage` as it arrives (synchronously, so diff+apply run in page order per folder) and
 * reports progress. Says whether the walk was COMPLETE: only then may deletions be concluded.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import type { ServiceClient } from '../client/service-client.js';

export interface WalkProgress {
  /** Folders discovered (queued or listed). */
  folders: number;
  /** Folders fully listed. */
  foldersDone: number;
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
  /** Folders to list (default: the root, fetched first). */
  startFolders?: readonly string[];
}

export type WalkResult =
  | { complete: true; root: RemoteObject | undefined; seen: Set<string>; progress: WalkProgress }
  | { complete: false; root: RemoteObject | undefined; seen: Set<string>; progress: WalkProgress; error: AppError };

export async function walk(client: ServiceClient, opts: WalkOptions): Promise<WalkResult> {
  const started = Date.now();
  const seen = new Set<string>();
  const queue: string[] = [];
  const progress: WalkProgress = { folders: 0, foldersDone: 0, objects: 0, pages: 0, elapsedMs: 0, rate: 0 };
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

  const listFolder = async (folderId: string): Promise<void> => {
    let token = '';
    for (;;) {
      if (opts.signal?.aborted) throw new AppError('Cancelled', 'walk cancelled');
      const page = await client.list(folderId, { limit: pageSize, pageToken: token, signal: opts.signal });
      if (failure) return;
      progress.pages++;
      const fresh: RemoteObject[] = [];
      for (const o of page.files) {
        if (seen.has(o.id)) { fresh.push(o); continue; }
        seen.add(o.id);
        progress.objects++;
        fresh.push(o);
        if (o.mimeType === FOLDER_MIME) {
          queue.push(o.id);
          progress.folders++;
        }
      }
      opts.onPage(fresh, folderId);
      if (queue.length) wakeAll();
      report();
      if (page.pageToken === '' || page.pageToken === token) return;
      token = page.pageToken;
    }
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
