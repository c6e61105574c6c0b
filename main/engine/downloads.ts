/**
 * Open on demand, the engine's side: `get(id)` makes a file's content be here and gives its
 * path. A file already here (downloaded and unchanged, or the user's own content) answers at
 * once; a placeholder is fetched outside the lock (network; `local/download.ts`), then put in
 * place under it, the model recording the version held before the watcher can report the
 * rename. Two Opens of one file share one download. Progress goes out as events.
 */
import { AppError, toAppError } from '../../app/errors.js';
import type { ServiceClient } from '../client/service-client.js';
import { lstatBig } from '../local/analyse.js';
import { recordStamps } from '../local/dir-stamps.js';
import { commitDownload, downloadsDir, dropPartial, fetchContent, partialFileOf, type WantedVersion } from '../local/download.js';
import { asDownloaded } from '../local/model.js';
import { sameVersion } from '../local/pins.js';
import { absOf } from '../local/placeholders.js';
import type { Core, Lock } from './core.js';
import { pathFor } from './core.js';
import type { DownloadProgress } from './events.js';
import { join } from 'node:path';

export interface GetResult {
  /** The file's absolute path in the mirror folder. */
  path: string;
  /** True when this call downloaded it (false: it was here already). */
  downloaded: boolean;
}

export interface DownloadsPort {
  core: Pick<Core, 'root' | 'model' | 'store' | 'local' | 'disk' | 'activity' | 'log'>;
  lock: Lock;
  client: Pick<ServiceClient, 'readContent' | 'get'>;
  signal: AbortSignal;
  progress: (p: DownloadProgress) => void;
  notice: (n: { level: 'info' | 'warn' | 'error'; message: string }) => void;
}

/** How often progress is told while bytes flow (ms). */
const PROGRESS_MS = 250;

export class Downloads {
  private readonly inflight = new Map<string, Promise<GetResult>>();

  constructor(private readonly p: DownloadsPort) {}

  /** Makes the file's content be here (downloading it when it is a placeholder); its path. */
  get(id: string): Promise<GetResult> {
    let run = this.inflight.get(id);
    if (!run) {
      run = this.run(id).finally(() => this.inflight.delete(id));
      this.inflight.set(id, run);
    }
    return run;
  }

  /** Resolves once no download runs (the engine stopping: they were cancelled). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.inflight.values()]);
  }

  private async run(id: string): Promise<GetResult> {
    const first = await this.p.lock.run(() => this.check(id));
    if ('path' in first) return first;
    const want = first;
    const path = pathFor(this.p.core, id);
    let last = 0;
    const tell = (bytes: number, total: number): void => {
      const now = Date.now();
      if (now - last < PROGRESS_MS) return;
      last = now;
      this.p.progress({ id, path, bytes, total, state: 'downloading' });
    };
    this.p.progress({ id, path, bytes: 0, total: want.size, state: 'downloading' });
    try {
      const partial = await fetchContent({
        root: this.p.core.root,
        client: this.p.client,
        records: this.p.core.local,
        want,
        signal: this.p.signal,
        progress: tell,
      }).catch((e: unknown) => this.explain(id, e));
      const done = await this.p.lock.run(() => this.commit(want, partial));
      this.p.progress({ id, path, bytes: want.size, total: want.size, state: 'done' });
      return done;
    } catch (e) {
      const err = toAppError(e);
      this.p.progress({ id, path, bytes: 0, total: want.size, state: 'failed', message: err.message });
      throw err;
    }
  }

  /** Under the lock: the answer at once when the content is here, else the version to fetch. */
  private check(id: string): GetResult | WantedVersion {
    const { model, root, disk, store } = this.p.core;
    const e = model.get(id);
    if (!e) throw new AppError('NotFound', 'this object is not in the mirror folder (yet): sync first');
    if (e.kind === 'dir') throw new AppError('BadRequest', 'a folder has no content to open: open a file in it');
    if (e.state !== 'ok') throw new AppError('Conflict', `${pathFor(this.p.core, id)} is being deleted: it is not downloaded`);
    const abs = e.ino === null ? undefined : absOf(root, model, id, undefined, disk);
    if (abs === undefined) throw new AppError('NotFound', 'this file has no placeholder on disk yet: sync first');
    const st = lstatBig(abs, disk);
    if (!st || !st.isFile()) throw new AppError('NotFound', `${abs} is not on disk: it is not downloaded`);
    const o = store.get(id);
    const onDisk = { size: Number(st.size), mtimeMs: Number(st.mtimeMs), ino: st.ino.toString() };
    const asLeft = e.content !== undefined && asDownloaded(e, onDisk);
    // the user's own content, or a download still as it was left (of the NAS's version, or the
    // NAS's is gone or empty): opened as it is; a kept file of an older version is downloaded again
    if (e.filled || (st.size > 0n && !asLeft)) return { path: abs, downloaded: false };
    if (asLeft && (!o || (o.size ?? 0) === 0 || sameVersion(e.content!, o))) return { path: abs, downloaded: false };
    if (!o) throw new AppError('NotFound', 'this file is not on the NAS any more');
    // an empty file on the NAS: its placeholder is the whole of it
    if ((o.size ?? 0) === 0) return { path: abs, downloaded: false };
    return { id, etag: o.eTag, size: o.size ?? 0, mtime: o.mTime };
  }

  /** Under the lock: the checked partial in place of the placeholder, recorded before anyone reads the folder. */
  private commit(want: WantedVersion, partial: string): GetResult {
    const { core } = this.p;
    const still = core.store.get(want.id);
    if (!still || still.eTag !== want.etag) {
      dropPartial(partial, core.local, want.id);
      throw new AppError(
        'ContentMismatch',
        'the file changed on the NAS while it downloaded: nothing was replaced; try again after the next sync',
      );
    }
    let r: ReturnType<typeof commitDownload>;
    try {
      r = commitDownload({ root: core.root, model: core.model, disk: core.disk, want, partial });
    } catch (e) {
      if (toAppError(e).code !== 'DiskError') dropPartial(partial, core.local, want.id);
      throw e;
    }
    core.local.removeDownload(want.id);
    const parent = core.model.get(want.id)!.lparent;
    recordStamps(core.root, core.model, new Set([parent]), core.disk);
    core.local.flush(core.model);
    core.activity({
      kind: 'downloaded',
      path: pathFor(core, want.id),
      summary: `downloaded ${r.content.size} bytes`,
      reason: `NAS version ${want.etag}, size and eTag checked; nothing sent to the NAS`,
    });
    return { path: r.path, downloaded: true };
  }

  /**
   * A content read the NAS refuses for a file it lists (404/405) means it has no content
   * interface: said once, as such (the request itself is a fact about this device, not this file).
   */
  private async explain(id: string, e: unknown): Promise<never> {
    const err = toAppError(e);
    if (err.status !== 404 && err.status !== 405) throw err;
    const listed = await this.p.client.get(id).then(
      () => true,
      () => false,
    );
    if (!listed) throw new AppError('NotFound', 'this file is not on the NAS any more', { cause: err });
    const { local } = this.p.core;
    if (local.meta('noContentInterface') === undefined) {
      local.setMeta('noContentInterface', String(err.status));
      this.p.notice({ level: 'warn', message: NO_CONTENT_INTERFACE });
    }
    throw new AppError('NoContentInterface', NO_CONTENT_INTERFACE, { status: err.status, cause: err });
  }
}

export const NO_CONTENT_INTERFACE =
  'this NAS does not serve file content (it answered 404/405 to a content read): ' +
  'files can be renamed, moved and searched here, but opened only on the NAS itself';

/** The partial file of a download in progress (the command line reads its size as progress). */
export const partialPathOf = (root: string, id: string): string => join(downloadsDir(root), partialFileOf(id));
