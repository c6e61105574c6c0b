/**
 * Open on demand, the engine's side: `get(id)` makes a file's content be here and gives its
 * path. A file already here (downloaded and unchanged, or the user's own content) answers at
 * once; a placeholder is fetched outside the lock (network; `local/download.ts`: written and
 * checked), made durable (fsync, with the others of its turn: `local/file-syncer.ts`), then put
 * in place under it, the model recording the version held before the watcher can report the
 * rename. Partials fetched meanwhile share one turn of the lock and one transaction (their
 * lines in the activity log too); what each will hold is recorded before the renames, so a start
 * after a kill adopts a file renamed before its row was written (`recoverLandings`). Two Opens
 * of one file share one download. Progress goes out as events.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { formatSize } from '../../app/util/human.js';
import type { ServiceClient } from '../client/service-client.js';
import { lstatBig } from '../local/analyse.js';
import { recordStamps } from '../local/dir-stamps.js';
import {
  adoptLandings,
  downloadsDir,
  dropPartial,
  fetchContent,
  land,
  partialFileOf,
  prepareLanding,
  type Fetched,
  type ReadyLanding,
  type WantedVersion,
} from '../local/download.js';
import { asDownloaded } from '../local/model.js';
import { FileSyncer } from '../local/file-syncer.js';
import { sameVersion } from '../local/pins.js';
import { absOf } from '../local/placeholders.js';
import type { ActivityInput, Core, Lock } from './core.js';
import { pathFor } from './core.js';
import type { DownloadProgress } from './events.js';
import { join } from 'node:path';
import type { PlacedFile } from '../local/watch.js';

export interface GetResult {
  /** The file's absolute path in the mirror folder. */
  path: string;
  /** True when this call downloaded it (false: it was here already). */
  downloaded: boolean;
}

export interface DownloadsPort {
  core: Pick<Core, 'root' | 'db' | 'model' | 'store' | 'local' | 'disk' | 'activity' | 'activityRows' | 'log'>;
  lock: Lock;
  client: Pick<ServiceClient, 'readContent' | 'get'>;
  signal: AbortSignal;
  progress: (p: DownloadProgress) => void;
  notice: (n: { level: 'info' | 'warn' | 'error'; message: string }) => void;
  /** Files put in place, as the disk shows them (their watcher events tell nothing new: watch.ts `placedByEngine`). */
  placed?: (files: readonly PlacedFile[]) => void;
}

/** How often progress is told while bytes flow (ms). */
const PROGRESS_MS = 250;

/** A fetched partial waiting for its turn under the lock, and its caller's answer. */
interface PendingCommit {
  want: WantedVersion;
  fetched: Fetched;
  resolve: (r: GetResult) => void;
  reject: (e: unknown) => void;
}

/**
 * A download's answer, and when its request is over (`fetched`: the NAS's bytes are in the
 * partial, or the fetch failed; never rejects): a caller fetching many (the keeper) sends the
 * next request then, while this one is fsync'd and put in place.
 */
export type PendingGet = Promise<GetResult> & { readonly fetched: Promise<void> };

/**
 * While other downloads still fetch, a commit waits this long for others to join it (ms): a
 * Keep of many files puts them in place in bursts, each one turn of the lock, one transaction,
 * and one reading of the folder by the watcher and the local batch (the renames are read back
 * once per burst, not once per file: at 10 ms, 10,000 files took twice the engine's CPU).
 * An Open alone commits at once; one during a Keep waits at most this.
 */
const COMMIT_WAIT_MS = 50;

export class Downloads {
  private readonly inflight = new Map<string, PendingGet>();
  private readonly syncer = new FileSyncer();
  /** Fetched partials waiting for the lock (`commitAll` takes them all). */
  private readonly commits: PendingCommit[] = [];

  constructor(private readonly p: DownloadsPort) {}

  /** Makes the file's content be here (downloading it when it is a placeholder); its path. */
  get(id: string): PendingGet {
    let run = this.inflight.get(id);
    if (!run) {
      let fetched!: () => void;
      const over = new Promise<void>((resolve) => (fetched = resolve));
      const done = this.run(id, fetched).finally(() => {
        fetched();
        this.inflight.delete(id);
      });
      run = Object.assign(done, { fetched: over });
      this.inflight.set(id, run);
    }
    return run;
  }

  /** Resolves once no download runs (the engine stopping: they were cancelled). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.inflight.values()]);
  }

  private async run(id: string, fetched: () => void): Promise<GetResult> {
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
      const got = await fetchContent({
        root: this.p.core.root,
        client: this.p.client,
        records: this.p.core.local,
        want,
        signal: this.p.signal,
        progress: tell,
        answered: fetched,
        // (made durable with the others of its turn, before any is renamed: commitAll)
        unsynced: true,
      }).catch((e: unknown) => this.explain(id, e));
      const done = await this.commitSoon(want, got);
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

  /**
   * Queues a fetched partial for its commit: the ones waiting when the lock comes free are put
   * in place in one turn (`commitAll`), so a Keep of many small files pays one transaction and
   * one stamp per folder per turn, not per file.
   */
  private commitSoon(want: WantedVersion, fetched: Fetched): Promise<GetResult> {
    return new Promise<GetResult>((resolve, reject) => {
      this.commits.push({ want, fetched, resolve, reject });
      if (this.commits.length > 1) return;
      // alone (an Open): at once; while others still fetch, a short wait lets them join this turn
      const wait = this.inflight.size > 1 ? COMMIT_WAIT_MS : 0;
      setTimeout(() => void this.commitAll(), wait);
    });
  }

  /** Stops the file syncer's worker (the engine stopping). */
  close(): void {
    this.syncer.close();
  }

  /**
   * The turn's partials made durable (all at once: `durable`), then under the lock: checked,
   * what each will hold recorded (`local_landings`, one transaction), each renamed in place of
   * its placeholder (the model records the version held before anyone reads the folder), then,
   * for all of them, the stamps of their folders, and the model's rows with the download and
   * landing records gone and the activity's lines in ONE transaction; then the telling, and the
   * answers. No rename here puts bytes over a placeholder that a crash could lose (each partial
   * renamed is fsync'd first), and a kill between the renames and the rows leaves landing
   * records the next start adopts (`recoverLandings`): never a file of the engine's read as the
   * user's.
   */
  private async commitAll(): Promise<void> {
    const taken = this.commits.splice(0);
    const batch = await this.durable(taken);
    await this.p.lock.run(() => {
      try {
        this.place(batch);
      } catch (e) {
        // what failed after some were answered (the activity log refused a row): the rest get the error (an answer is given once)
        for (const c of batch) c.reject(e);
      }
    });
  }

  /**
   * The turn's partials made durable, all at once (file-syncer.ts: one hand-off, not one per
   * file); those that could not be are answered with the failure and left out (nothing of
   * theirs is renamed; a recorded one resumes, else the next start sweeps it).
   */
  private async durable(batch: readonly PendingCommit[]): Promise<PendingCommit[]> {
    const failed = await this.syncer.sync(batch.filter((c) => !c.fetched.synced).map((c) => c.fetched.partial));
    if (failed.size === 0) return [...batch];
    const ok: PendingCommit[] = [];
    for (const c of batch) {
      const why = failed.get(c.fetched.partial);
      if (why === undefined) ok.push(c);
      else c.reject(new AppError('DiskError', `making the download durable failed (${why}): nothing was replaced`, { detail: why }));
    }
    return ok;
  }

  private place(batch: readonly PendingCommit[]): void {
    const { core } = this.p;
    // one turn of the lock, nothing awaited: a folder resolved inside the root stays so for the batch
    const realDirs = new Map<string, boolean>();
    const ready: { c: PendingCommit; r: ReadyLanding }[] = [];
    // (the stored objects read in one read transaction: not a lock of the database per file)
    core.db.transaction(() => {
      for (const c of batch) {
        try {
          ready.push({ c, r: this.prepare(c.want, c.fetched.partial, realDirs) });
        } catch (e) {
          c.reject(e);
        }
      }
    })();
    if (!ready.length) return;
    core.local.addLandings(ready.map(({ r }) => ({ id: r.id, content: r.content })));
    const placed: typeof ready = [];
    for (const p of ready) {
      try {
        land(core.model, core.disk, p.r);
        placed.push(p);
      } catch (e) {
        // the partial stays (a disk error): recorded, it resumes; else the next start sweeps it
        p.c.reject(e);
      }
    }
    this.p.placed?.(placed.map(({ r }) => ({ abs: r.target, ino: r.content.ino, size: r.content.size, mtimeMs: r.content.mtimeMs })));
    recordStamps(core.root, core.model, new Set(placed.map((p) => core.model.get(p.r.id)!.lparent)), core.disk);
    const said = placed.map(({ c }): ActivityInput => ({
      kind: 'downloaded',
      path: pathFor(core, c.want.id),
      summary: `downloaded ${formatSize(c.want.size)}`,
      reason: `NAS version ${c.want.etag}, size and eTag checked; nothing sent to the NAS`,
    }));
    // (the activity rows with the model's: not one commit per file)
    const tell = core.db.transaction(() => {
      for (const p of placed) if (p.c.fetched.recorded) core.local.removeDownload(p.r.id);
      core.local.removeLandings(ready.map((p) => p.r.id));
      core.local.flush(core.model);
      return core.activityRows?.(said);
    })();
    if (tell) tell();
    else for (const a of said) core.activity(a);
    for (const { c, r } of placed) c.resolve({ path: r.target, downloaded: true });
  }

  /** One checked partial, ready to go in place of the placeholder (under the lock). */
  private prepare(want: WantedVersion, partial: string, realDirs: Map<string, boolean>): ReadyLanding {
    const { core } = this.p;
    const still = core.store.get(want.id);
    if (!still || still.eTag !== want.etag) {
      dropPartial(partial, core.local, want.id);
      throw new AppError(
        'ContentMismatch',
        'the file changed on the NAS while it downloaded: nothing was replaced; try again after the next sync',
      );
    }
    try {
      return prepareLanding({ root: core.root, model: core.model, disk: core.disk, want, partial, realDirs });
    } catch (e) {
      if (toAppError(e).code !== 'DiskError') dropPartial(partial, core.local, want.id);
      throw e;
    }
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

/**
 * At the start, before any folder is read: downloads a kill left renamed over their
 * placeholders before the model's rows were written are adopted (the model records their
 * content, as `Downloads.commitAll` would have), other landing records dropped; the rows, the
 * download records of the adopted and the landing records go in one transaction.
 */
export function recoverLandings(c: Pick<Core, 'root' | 'db' | 'model' | 'local' | 'disk' | 'activity'>, inodesTrusted = true): void {
  const rows = c.local.landings();
  if (!rows.length) return;
  const { adopted, dropped } = adoptLandings(c.root, c.model, c.disk, rows, inodesTrusted);
  c.db.transaction(() => {
    for (const a of adopted) c.local.removeDownload(a.id);
    c.local.removeLandings([...adopted.map((a) => a.id), ...dropped]);
    c.local.flush(c.model);
  })();
  for (const a of adopted)
    c.activity({
      kind: 'downloaded',
      path: pathFor(c, a.id),
      summary: `downloaded ${formatSize(a.content.size)}`,
      reason: `NAS version ${a.content.etag}; put in place before the app was stopped, recorded at this start; nothing sent to the NAS`,
    });
}
