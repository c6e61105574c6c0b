/**
 * New folders and files: the engine's side of "New files and folders put in the mirror folder
 * are created on the NAS" (spec sync.md section 8, content.md). The local batch records each
 * new entry in the creates journal (`creates-store.ts`) in its transaction; the creator
 * carries the rows out, a few at a time, outside the lock (only its checks and its commits
 * take it):
 *
 * - a folder: one `POST files`; then its entry is bound (the model, the store and the search
 *   index know it under its new id, its inode read from the disk) and the folder is read, so
 *   what it holds is found and created in turn (folders first, then what is in them);
 * - a file, once stable (unchanged for `STABLE_MS`): `POST files/resumable` names the new
 *   object; the entry is bound AT ONCE (a rename, move or delete the user makes meanwhile is an
 *   ordinary change of a known object, sent through the outbox, never a second upload), then
 *   its bytes go up in chunks, each confirmed offset written, and `done=true` finishes it. A
 *   drop, a crash or a restart resumes at the offset the NAS holds; a file that changed while
 *   it went up starts over; the NAS's version is then what this device holds.
 *
 * Exactly once: a row's state is written before its request leaves; a row found `creating`
 * after a crash (the answer may have been lost) first looks for the object by folder and name.
 * A name the NAS already has is never overwritten: the file stays local only, said once.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { formatSize } from '../../app/util/human.js';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import type { Created, ServiceClient } from '../client/service-client.js';
import { lstatBig } from '../local/analyse.js';
import { aspectsOf, jsonOf } from '../mirror/changes.js';
import type { CreateRow } from '../local/creates-store.js';
import { absOf } from '../local/placeholders.js';
import { formatDate, parseDate } from '../../app/model/dates.js';
import type { ActivityInput, Core, Lock } from './core.js';
import type { Problem } from './engine-state.js';
import { putAside } from './content-conflicts.js';
import { Rerun } from './rerun.js';
import { slicedPool } from './sliced-pool.js';
import { pathFor } from './core.js';
import { objectAt, readWhole, sentWhole, sha256 } from './whole-upload.js';
import { CHUNK_BYTES, chunkAt, FileChunks, nextChunk, type FileSeen } from './file-chunks.js';

/** Rows carried out at once. */
export const CREATE_CONCURRENCY = 6;
export { CHUNK_BYTES } from './file-chunks.js';
/** A file is sent once it has not changed for this long (a copy or a save in progress is not). */
export const STABLE_MS = 2000;
/** A new file up to this size goes whole in the request that names it (whole-upload.ts). */
export const WHOLE_MAX = CHUNK_BYTES;

export interface CreatePort {
  core: Pick<Core, 'root' | 'model' | 'store' | 'applier' | 'local' | 'creates' | 'disk' | 'db' | 'activity' | 'activityRows' | 'log'>;
  lock: Lock;
  client: Pick<
    ServiceClient,
    | 'createFolder'
    | 'startUpload'
    | 'createWhole'
    | 'startVersion'
    | 'putContent'
    | 'uploadOffset'
    | 'get'
    | 'parentAndName'
    | 'delete'
    | 'readContent'
  >;
  signal: AbortSignal;
  stopped: () => boolean;
  /** Sync is paused by the user: nothing new goes to the NAS (an upload under way stops between chunks, resumed later). */
  paused: () => boolean;
  /** An entry now known under a NAS id (a walk begun before must not read it as deleted). */
  bound: (id: string) => void;
  /** A folder made on the NAS: read it now (what it holds is created next). */
  reread: (path: string) => void;
  /** Runs `fn` after `ms` (engine timers: cancelled at stop). */
  schedule: (fn: () => void, ms: number) => void;
  /** Uploads progressed or ended (the window and the status follow). */
  changed: () => void;
  /** The placeholders follow the model again (a conflicted version put aside: the NAS's comes back at the name). */
  reconcile: () => void;
}

type Outcome = 'done' | 'later' | 'failed';

export class Creator {
  private readonly runs = new Rerun(
    () => this.once(),
    () => this.p.stopped(),
    (e) => {
      const err = toAppError(e);
      this.p.core.log.error('creating new entries on the NAS failed', { code: err.code, message: err.message });
    },
  );
  private laterQueued = false;
  /** The last failure said per row (the same one again is not said twice). */
  private readonly said = new Map<number, string>();
  /** Bytes sent by uploads in progress (progress for the status). */
  readonly sending = new Map<number, { path: string; sent: number; size: number }>();
  /** Rows being carried out now, and rows kept from the creator meanwhile (a choice on a conflicted copy works on them). */
  private readonly running = new Set<number>();
  private readonly reserved = new Set<number>();
  /** Rows the NAS had no room for (507), by seq: their NAS id (said until they go up). */
  private readonly noRoom = new Map<number, string>();
  /** Rows the NAS had no room for when sent whole: named and sent in chunks from then on. */
  private readonly inChunks = new Set<number>();

  constructor(private readonly p: CreatePort) {}

  /** Keeps row `seq` from the creator until `release` (false, and nothing kept: it is being carried out now). */
  reserve(seq: number): boolean {
    if (this.running.has(seq)) return false;
    this.reserved.add(seq);
    return true;
  }

  release(seq: number): void {
    if (this.reserved.delete(seq)) this.kick();
  }

  /** The files waiting for room on the NAS (it was full when their bytes went up), by NAS id. */
  waitingForRoom(): ReadonlySet<string> {
    return new Set(this.noRoom.values());
  }

  /** What the status says while files wait for room on the NAS; undefined when none does. */
  problem(): Problem | undefined {
    const n = this.noRoom.size;
    if (n === 0) return undefined;
    const files = n === 1 ? '1 file waits' : `${n} files wait`;
    return { code: 'NasFull', message: `the NAS is full: ${files} on this computer and go up once it has room; nothing is lost` };
  }

  /** Carries out the open rows soon (a run in progress runs once more after). */
  kick(): void {
    this.runs.kick();
  }

  /** Resolves once no run is in progress. */
  async idle(): Promise<void> {
    await this.runs.idle();
  }

  /** One pass over the open rows, a few at a time. */
  private async once(): Promise<void> {
    if (this.p.paused()) return; // resuming kicks the creator again
    const rows = this.p.core.creates.open();
    const outcomes = await slicedPool(rows, CREATE_CONCURRENCY, (r) => this.carryOut(r));
    if (this.p.stopped()) return;
    // the rows' last words (a row ends after its last progress): the status and the window follow
    if (rows.length > 0) this.p.changed();
    if (outcomes.some((o) => o !== 'done') && !this.laterQueued) {
      // not stable yet, or the NAS did not answer: tried again (a kick after a walk comes sooner)
      this.laterQueued = true;
      this.p.schedule(
        () => {
          this.laterQueued = false;
          this.kick();
        },
        outcomes.includes('failed') ? 10_000 : STABLE_MS,
      );
    }
  }

  private async carryOut(row: CreateRow): Promise<Outcome> {
    if (this.reserved.has(row.seq)) return 'later';
    this.running.add(row.seq);
    try {
      const out = row.kind === 'dir' ? await this.folder(row) : row.kind === 'file' ? await this.file(row) : await this.version(row);
      if (out === 'done' && this.noRoom.delete(row.seq)) this.p.changed();
      return out;
    } catch (e) {
      const err = toAppError(e);
      if (this.p.stopped() || err.code === 'Cancelled') return 'later';
      if (err.status === 404 || err.status === 405 || err.status === 400 || err.status === 403) {
        const why =
          err.status === 404 || err.status === 405
            ? 'the NAS has no content interface (it cannot create files or folders)'
            : `the NAS refused it: ${err.message}`;
        await this.refuse(row, why);
        return 'done';
      }
      const said = `${err.code}: ${err.message}`;
      if (this.said.get(row.seq) !== said) {
        this.said.set(row.seq, said);
        this.p.core.log.warn('create failed, tried again later', { path: row.name, code: err.code, message: err.message });
      }
      if (err.code === 'NasFull') await this.full(row);
      return 'failed';
    } finally {
      this.sending.delete(row.seq);
      this.running.delete(row.seq);
    }
  }

  /** Where the row's entry is now: its absolute path and what the disk shows there (undefined: gone from its place). */
  private where(row: CreateRow): { abs: string; kind: 'dir' | 'file'; size: number; mtimeMs: number; ino: string } | undefined {
    const { core } = this.p;
    const parent = core.model.get(row.parent);
    if (!parent || parent.state !== 'ok' || parent.kind !== 'dir') return undefined;
    const dir = absOf(core.root, core.model, row.parent, undefined, core.disk);
    if (dir === undefined) return undefined;
    const abs = `${dir}/${row.name}`;
    const st = lstatBig(abs, core.disk);
    if (!st || !(st.isFile() || st.isDirectory())) return undefined;
    return { abs, kind: st.isDirectory() ? 'dir' : 'file', size: Number(st.size), mtimeMs: Number(st.mtimeMs), ino: st.ino.toString() };
  }

  /** A new folder: created (or found, after a crash), then bound and read. */
  private async folder(row: CreateRow): Promise<Outcome> {
    const { core, client, signal } = this.p;
    const here = await this.p.lock.run(() => this.placeOf(row, 'dir'));
    if (here === undefined) return 'done';
    let id = row.objectId ?? (row.state === 'creating' ? await this.findOurs(row, 'dir') : undefined);
    let made: RemoteObject | undefined;
    if (id === undefined) {
      core.creates.begin(row.seq, 'creating');
      try {
        ({ id, object: made } = await client.createFolder(row.parent, row.name, { signal }));
      } catch (e) {
        if (!(e instanceof AppError && e.status === 409)) throw e;
        // the NAS has that name: a folder is the same folder (made by someone else meanwhile, or
        // by us with the answer lost); a file is not: this folder stays local only
        id = await this.findOurs(row, 'dir');
        if (id === undefined) {
          await this.refuse(row, 'the NAS has a file of that name in that folder');
          return 'done';
        }
      }
    }
    const o = made ?? (await client.get(id, { signal }));
    const bound = await this.p.lock.run(() => this.bind(row, o, 'dir'));
    if (bound !== undefined) this.p.reread(bound);
    return 'done';
  }

  /** A new file: named on the NAS, bound, its bytes sent from the offset the NAS holds, finished. */
  private async file(row: CreateRow): Promise<Outcome> {
    const { core, client, signal } = this.p;
    let id = row.objectId ?? undefined;
    let fresh = false;
    let made: RemoteObject | undefined;
    if (id === undefined) {
      const here = await this.p.lock.run(() => this.placeOf(row, 'file'));
      // (sent whole before it left: that file goes from the NAS too, else it would be there twice)
      if (here === undefined) return row.state === 'creating' ? this.dropSentWhole(row) : 'done';
      if (Date.now() - here.mtimeMs < STABLE_MS) return 'later';
      if (row.state === 'creating' && row.sentSha !== null) {
        const o = await sentWhole(client, row, WHOLE_MAX, signal);
        if (o !== undefined) return this.bindWhole(row, o, here, row.sentSha);
      }
      id = row.state === 'creating' ? await this.findOurs(row, 'file') : undefined;
      if (id === undefined && here.size > 0 && here.size <= WHOLE_MAX && !this.inChunks.has(row.seq)) return this.whole(row, here);
      if (id === undefined) {
        core.creates.begin(row.seq, 'creating');
        try {
          ({ id, object: made } = await client.startUpload(row.parent, row.name, { mTime: formatDate(here.mtimeMs), signal }));
          fresh = true;
        } catch (e) {
          if (!(e instanceof AppError && e.status === 409)) throw e;
          await this.refuse(row, 'the NAS already has a file of that name in that folder: yours stays here, not sent over it');
          return 'done';
        }
      }
      const o = made ?? (await client.get(id, { signal }));
      const ok = await this.p.lock.run(() => this.bind(row, o, 'file'));
      if (ok === undefined) return 'done';
      core.creates.named(row.seq, id, 0);
    }
    // an upload started just now holds nothing yet: no request to ask where it is
    return this.upload(row, id, fresh ? 0 : undefined);
  }

  /**
   * A file of at most one chunk, sent whole in the request that names it (whole-upload.ts),
   * then bound as holding that NAS version: two requests in all.
   */
  private async whole(row: CreateRow, here: FileSeen & { abs: string }): Promise<Outcome> {
    const { core, client, signal } = this.p;
    const bytes = readWhole(core.disk, here.abs, here);
    if (bytes === undefined) return 'later'; // written to meanwhile: sent once stable
    const sha = sha256(bytes);
    core.creates.beginWhole(row.seq, sha);
    let made: Created;
    try {
      made = await client.createWhole(row.parent, row.name, bytes, { mTime: formatDate(here.mtimeMs), signal });
    } catch (e) {
      if (e instanceof AppError && e.status === 409) {
        await this.refuse(row, 'the NAS already has a file of that name in that folder: yours stays here, not sent over it');
        return 'done';
      }
      // no room (nothing kept): named and sent in chunks from now on, so the words can say which file waits
      if (e instanceof AppError && e.code === 'NasFull') this.inChunks.add(row.seq);
      throw e;
    }
    return this.bindWhole(row, made.object ?? (await client.get(made.id, { signal })), here, sha);
  }

  /** Binds a file the NAS holds whole from this row; when the user's file left its place meanwhile, that NAS file goes. */
  private async bindWhole(row: CreateRow, o: RemoteObject, sent: FileSeen, sha: string): Promise<Outcome> {
    const { core } = this.p;
    const bound = await this.p.lock.run(() => {
      const here = this.where(row);
      // the local file holds the bytes sent only when it is as it was read, or (after a restart) hashes to them
      const same =
        here !== undefined &&
        here.kind === 'file' &&
        o.size === here.size &&
        ((here.ino === sent.ino && here.size === sent.size && here.mtimeMs === sent.mtimeMs) ||
          (here.size <= WHOLE_MAX && sha256(core.disk.readChunk(here.abs, 0, here.size)) === sha));
      return this.bind(row, o, 'file', { same }, here);
    });
    if (bound === undefined) await this.dropOurs(row, async () => o);
    return 'done';
  }

  /** A row sent whole whose file left its place (a crash or a lost answer in between): the NAS file it made goes. */
  private async dropSentWhole(row: CreateRow): Promise<Outcome> {
    if (row.sentSha !== null) await this.dropOurs(row, () => sentWhole(this.p.client, row, WHOLE_MAX, this.p.signal));
    return 'done';
  }

  /**
   * Deletes the NAS file `find` names, which this device made from the row and nothing here holds
   * (If-Match: nobody changed it since). The row, over already, is carried out again when that
   * fails (the NAS did not answer): it never stays there twice.
   */
  private async dropOurs(row: CreateRow, find: () => Promise<RemoteObject | undefined>): Promise<void> {
    try {
      const o = await find();
      if (o !== undefined) await this.p.client.delete(o.id, { ifMatch: o.eTag, signal: this.p.signal });
    } catch (e) {
      if (e instanceof AppError && (e.status === 404 || e.status === 412)) return;
      this.p.core.creates.reopenSent(row.seq);
      throw e;
    }
  }

  /** Sends the bytes of the bound file `id` from where the NAS is; finishes the upload. */
  private async upload(row: CreateRow, id: string, known?: number): Promise<Outcome> {
    const { core, client, signal } = this.p;
    let offset: number | undefined;
    try {
      offset = known ?? (await client.uploadOffset(id, { signal }));
    } catch (e) {
      // not there any more (deleted; or a device that answers 404 for a finished upload): finish reads it
      if (e instanceof AppError && e.status === 404) return this.finish(row, id);
      throw e;
    }
    // not unfinished any more: finished by an earlier run (or a request) whose end was not written
    if (offset === undefined) return this.finish(row, id);
    const start = await this.p.lock.run(() => this.current(id));
    if (start === undefined) {
      core.creates.finish(row.seq, 'gone', 'it left the mirror folder before it was sent');
      return 'done';
    }
    if (Date.now() - start.mtimeMs < STABLE_MS) return 'later';
    if (offset > start.size) {
      // the NAS holds more than the file has: it changed meanwhile; start over
      await this.startOver(row, id, 'the file got shorter while it was sent');
      return 'later';
    }
    const file = FileChunks.open(start.abs, start);
    if (file === undefined) {
      await this.startOver(row, id, 'the file changed while it was sent');
      return 'later';
    }
    try {
      const out = await this.chunks(row, id, offset, start, file);
      return out ?? (await this.finish(row, id, start));
    } finally {
      file.close();
    }
  }

  /**
   * Sends the file's bytes from `offset`, chunk by chunk (file-chunks.ts), each read from the
   * descriptor as it goes, the file checked before each; the last one (`done=true`) holds at
   * most `CHUNK_BYTES`, as before chunks grew. Undefined once finished; else the row's outcome.
   */
  private async chunks(row: CreateRow, id: string, from: number, start: FileSeen, file: FileChunks): Promise<Outcome | undefined> {
    const { core, client, signal } = this.p;
    let offset = from;
    core.creates.begin(row.seq, 'uploading');
    const progress = { path: pathFor(core, id), sent: offset, size: start.size };
    this.sending.set(row.seq, progress);
    let chunk = CHUNK_BYTES;
    for (;;) {
      if (this.p.stopped() || this.p.paused()) return 'later';
      const now = await this.p.lock.run(() => this.current(id));
      if (now === undefined) {
        core.creates.finish(row.seq, 'gone', 'it left the mirror folder while it was sent');
        return 'done';
      }
      if (now.size !== start.size || now.mtimeMs !== start.mtimeMs) {
        await this.startOver(row, id, 'the file changed while it was sent');
        return 'later';
      }
      const n = chunkAt(start.size - offset, chunk);
      const last = offset + n >= start.size;
      const t0 = performance.now();
      try {
        await client.putContent(id, offset, n === 0 ? Buffer.alloc(0) : file.body(offset, n), last, { signal });
      } catch (e) {
        // the NAS holds another offset (a request of ours it took without us hearing): go on from there
        if (e instanceof AppError && e.status === 409) {
          const held = await client.uploadOffset(id, { signal });
          if (held === undefined) return undefined;
          offset = held;
          if (offset > start.size) {
            await this.startOver(row, id, 'the file got shorter while it was sent');
            return 'later';
          }
          continue;
        }
        throw e;
      }
      offset += n;
      chunk = nextChunk(n, performance.now() - t0);
      core.creates.progress(row.seq, offset);
      this.noRoom.delete(row.seq); // the NAS has room again
      progress.sent = offset;
      this.p.changed();
      if (last) return undefined;
    }
  }

  /**
   * A file the user changed here: its new version goes up guarded by the eTag of the version
   * they changed (If-Match). When the NAS changed it too (412), both are kept (keepBoth).
   */
  private async version(row: CreateRow): Promise<Outcome> {
    const { core, client, signal } = this.p;
    const id = row.objectId!;
    const start = await this.p.lock.run(() => {
      const e = core.model.get(id);
      const st = e?.kind === 'file' ? this.current(id) : undefined;
      if (!e || !st) {
        core.creates.finish(row.seq, 'gone', 'it left the mirror folder before its new version was sent');
        return undefined;
      }
      if (!e.filled) {
        core.creates.finish(row.seq, 'done', 'it is as the NAS has it again');
        return undefined;
      }
      return st;
    });
    if (start === undefined) return 'done';
    if (Date.now() - start.mtimeMs < STABLE_MS) return 'later';
    core.creates.begin(row.seq, 'creating');
    try {
      await client.startVersion(id, { ifMatch: row.baseEtag ?? '', mTime: formatDate(start.mtimeMs), signal });
    } catch (e) {
      if (e instanceof AppError && e.status === 412) {
        // our own last chunk may have finished it (a crash, or its answer lost, before the end was written)
        if (row.state === 'uploading' && (await this.sentAlready(id, start))) return this.finish(row, id);
        await this.keepBoth(row, id);
        return 'done';
      }
      throw e;
    }
    core.creates.named(row.seq, id, 0);
    // (every try starts the version again from zero: bytes from before a restart may be of an older edit)
    return this.upload(row, id, 0);
  }

  /**
   * The NAS's version of `id` is the one this device sent (its size, and the time sent with it):
   * a version whose last chunk the NAS took without its end being written here.
   */
  private async sentAlready(id: string, file: { size: number; mtimeMs: number }): Promise<boolean> {
    const { client, signal } = this.p;
    const o = await client.get(id, { signal });
    // (a version being sent changes neither until it is done)
    return (o.size ?? 0) === file.size && parseDate(o.mTime) === new Date(file.mtimeMs).getTime();
  }

  /**
   * The NAS changed the file while the user changed it here: both are kept. The user's version
   * is renamed beside it as "name (conflicted copy YYYY-MM-DD HHMM).ext" (then created on the
   * NAS as a new file, like any new file), the NAS version comes back at the name, and the
   * conflict is listed (content-conflicts.ts: keep mine, keep the NAS's, keep both).
   */
  private async keepBoth(row: CreateRow, id: string): Promise<void> {
    const { core, client, signal } = this.p;
    let nas: RemoteObject;
    try {
      // the NAS's version as the list shows it (and what "keep mine" replaces)
      nas = await client.get(id, { signal });
    } catch (e) {
      if (!(e instanceof AppError && e.status === 404)) throw e;
      // deleted on the NAS meanwhile: the user's file stays as it is (the walk keeps it here, local only)
      core.creates.finish(row.seq, 'done', 'deleted on the NAS while you changed it: yours stays here');
      return;
    }
    const kept = await this.p.lock.run(() => this.putAside(row, id, nas));
    if (kept) this.p.bound(id);
    this.p.reconcile();
    this.p.changed();
  }

  /** Under the lock: both kept (content-conflicts.ts `putAside`), or the row is over when the file left. */
  private putAside(row: CreateRow, id: string, nas: RemoteObject): boolean {
    const { core } = this.p;
    const e = core.model.get(id);
    const st = e ? this.current(id) : undefined;
    if (!e || !st) {
      core.creates.finish(row.seq, 'gone', 'it left the mirror folder');
      return false;
    }
    putAside(core, row.seq, e, st, nas);
    return true;
  }

  /**
   * The NAS holds the whole file: this device holds that version (not local content any more),
   * unless the file is not as it was `sent` (changed while its last chunk went): then it stays
   * the user's content.
   */
  private async finish(row: CreateRow, id: string, sent?: FileSeen): Promise<Outcome> {
    const { core, client, signal } = this.p;
    const o = await client.get(id, { signal });
    await this.p.lock.run(() => {
      const e = core.model.get(id);
      const st = e ? this.current(id) : undefined;
      const asSent = sent === undefined || (st?.ino === sent.ino && st.size === sent.size && st.mtimeMs === sent.mtimeMs);
      core.db.transaction(() => {
        if (e && st && st.size === o.size && asSent) {
          core.model.update(id, {
            etag: o.eTag,
            setag: o.eTag,
            mtime: o.mTime,
            filled: false,
            content: { etag: o.eTag, nasMtime: o.mTime, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino },
          });
        } else if (e) core.model.update(id, { etag: o.eTag, setag: o.eTag, mtime: o.mTime });
        const before = core.store.get(id);
        if (before) core.applier.applyOwn([{ kind: 'updated', before, after: o, aspects: aspectsOf(before, o) }]);
        core.creates.finish(row.seq, 'done');
        core.local.flush(core.model);
      })();
      core.activity(
        row.kind === 'version'
          ? {
              kind: 'uploaded',
              path: pathFor(core, id),
              summary: `new version uploaded (${formatSize(o.size ?? 0)}): on the NAS now`,
              reason: 'you changed it on this computer',
            }
          : {
              kind: 'uploaded',
              path: pathFor(core, id),
              summary: `uploaded (${formatSize(o.size ?? 0)}): on the NAS now`,
              reason: 'a new file in the mirror folder',
            },
      );
    });
    this.p.changed();
    return 'done';
  }

  /** The row's entry is still at its place as that kind (else the row is over: gone). */
  private placeOf(row: CreateRow, kind: 'dir' | 'file'): ReturnType<Creator['where']> {
    const here = this.where(row);
    if (here === undefined || here.kind !== kind || this.known(here.ino)) {
      this.p.core.creates.finish(row.seq, 'gone', 'it left its place before it was created on the NAS');
      return undefined;
    }
    return here;
  }

  /** An entry of the model holds this inode (the entry is not new: a batch paired it meanwhile). */
  private known(ino: string): boolean {
    return this.p.core.model.byIno(ino) !== undefined;
  }

  /** What the disk shows of bound entry `id`, where the model has it now. */
  private current(id: string): { abs: string; size: number; mtimeMs: number; ino: string } | undefined {
    const { core } = this.p;
    const e = core.model.get(id);
    if (!e || e.state !== 'ok' || e.ino === null) return undefined;
    const abs = absOf(core.root, core.model, id, undefined, core.disk);
    const st = abs === undefined ? undefined : lstatBig(abs, core.disk);
    if (abs === undefined || !st?.isFile() || st.ino.toString() !== e.ino) return undefined;
    return { abs, size: Number(st.size), mtimeMs: Number(st.mtimeMs), ino: st.ino.toString() };
  }

  /** The NAS object at the row's place, when it can be ours (a folder; or an unfinished upload). */
  private async findOurs(row: CreateRow, kind: 'dir' | 'file'): Promise<string | undefined> {
    const { client, signal } = this.p;
    const o = await objectAt(client, row, signal);
    if (o === undefined) return undefined;
    const isDir = o.mimeType === FOLDER_MIME;
    if (kind === 'dir') return isDir ? o.id : undefined;
    if (isDir) return undefined;
    try {
      // unfinished: the upload we started; finished: someone's file, not ours to write
      return (await client.uploadOffset(o.id, { signal })) === undefined ? undefined : o.id;
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return undefined; // gone meanwhile
      throw e;
    }
  }

  /**
   * The model, the store and the offline index know the new object, placed where the disk has
   * it; the local-only row goes. Returns its path, or undefined when it left its place meanwhile.
   */
  private bind(
    row: CreateRow,
    o: RemoteObject,
    kind: 'dir' | 'file',
    whole?: { same: boolean },
    // (what the disk shows at the row's place, when the caller just read it under the same lock)
    seen?: ReturnType<Creator['where']>,
  ): string | undefined {
    const { core } = this.p;
    const here = seen ?? this.where(row);
    if (here === undefined || here.kind !== kind) {
      core.creates.finish(row.seq, 'gone', 'it left its place while it was created on the NAS');
      return undefined;
    }
    // a file sent whole holds that NAS version when it still holds the bytes sent (else it is the user's again)
    const held = whole?.same === true;
    const tell = core.db.transaction(() => {
      core.model.put({
        id: o.id,
        kind,
        lparent: row.parent,
        lname: row.name,
        ino: here.ino,
        filled: kind === 'file' && !held,
        ...(held ? { content: { etag: o.eTag, nasMtime: o.mTime, size: here.size, mtimeMs: here.mtimeMs, ino: here.ino } } : {}),
        rparent: o.parentID,
        rname: o.name,
        etag: o.eTag,
        mtime: o.mTime,
        setag: o.eTag,
        state: 'ok',
      });
      // A walk may have listed the new object before this (its upload under way: empty,
      // unfinished): the store then holds that version, and the model's held content (`o`)
      // would read as "a new version on the NAS", the user's new file emptied into a
      // placeholder (s31, the mirror-folder e2e test under load). What the create answered is
      // the later word.
      const stored = core.store.get(o.id);
      if (!stored) core.applier.applyOwn([{ kind: 'added', after: o }]);
      else if (jsonOf(stored) !== jsonOf(o))
        core.applier.applyOwn([{ kind: 'updated', before: stored, after: o, aspects: aspectsOf(stored, o) }]);
      core.store.forgetListings([row.parent]);
      core.local.removeLocalOnly({ parent: row.parent, name: row.name });
      if (kind === 'dir') {
        // what it holds was listed at literal paths (its folder was not on the NAS): found again by its folder now
        const at = core.model.pathOf(row.parent);
        const prefix = `${at === undefined || at === '' ? '' : `${at}/`}${row.name}/`;
        for (const lo of core.local.localOnlyStored()) if (lo.parent === null && lo.name.startsWith(prefix)) core.local.removeLocalOnly(lo);
      }
      if (kind === 'dir') core.creates.folderDone(row.seq, o.id);
      else core.creates.named(row.seq, o.id, whole ? (o.size ?? 0) : 0);
      if (whole) core.creates.finish(row.seq, 'done', held ? null : 'changed while it was sent: its new version follows');
      // (what it holds now goes up as its new version, If-Match the one sent)
      if (whole && !held) core.creates.addVersion(o.id, o.eTag);
      core.local.flush(core.model);
      // (a file sent whole: its line in the log with its rows, not a commit of its own)
      return whole ? core.activityRows?.([uploadedLine(pathFor(core, o.id), o)]) : undefined;
    })();
    this.p.bound(o.id);
    const path = pathFor(core, o.id);
    if (kind === 'dir')
      core.activity({ kind: 'created', path, summary: 'folder created on the NAS', reason: 'a new folder in the mirror folder' });
    if (tell) tell();
    else if (whole) core.activity(uploadedLine(path, o));
    return path;
  }

  /**
   * The file changed while it went up: the row starts over. A new file's unfinished object is
   * dropped (a new upload, the entry bound again); a version's upload starts again from zero
   * at the next try (the NAS keeps its version meanwhile).
   */
  private async startOver(row: CreateRow, id: string, why: string): Promise<void> {
    const { core, client, signal } = this.p;
    if (row.kind === 'version') {
      core.creates.again(row.seq, why);
      return;
    }
    try {
      await client.delete(id, { signal });
    } catch (e) {
      if (!(e instanceof AppError && e.status === 404)) throw e;
    }
    await this.p.lock.run(() => {
      core.db.transaction(() => {
        if (core.model.get(id)) core.model.remove(id);
        const before = core.store.get(id);
        if (before) core.applier.applyOwn([{ kind: 'removed', before }]);
        core.creates.restart(row.seq, why);
        core.local.flush(core.model);
      })();
    });
  }

  /** The NAS had no room for the row's bytes (507): said once, in the activity log and the status, until it goes up. */
  private async full(row: CreateRow): Promise<void> {
    const { core } = this.p;
    // (a new file is named in the same pass: its id is in the journal, not in the row as read)
    const id = row.objectId ?? core.creates.get(row.seq)?.objectId ?? null;
    if (id === null || this.noRoom.has(row.seq)) return;
    this.noRoom.set(row.seq, id);
    await this.p.lock.run(() =>
      core.activity({
        kind: 'error',
        path: pathFor(core, id),
        summary: row.kind === 'version' ? 'its new version is not on the NAS yet: the NAS is full' : 'not uploaded yet: the NAS is full',
        reason: 'the NAS has no room left for it: it stays on this computer, nothing is lost, and it goes up once the NAS has room',
      }),
    );
    this.p.changed();
  }

  /** The NAS will not take it: it stays here, local only, with the reason (said once). */
  private async refuse(row: CreateRow, why: string): Promise<void> {
    const { core } = this.p;
    await this.p.lock.run(() => {
      core.creates.finish(row.seq, 'refused', why);
      core.local.addLocalOnly({ parent: row.parent, name: row.name }, row.kind, `not on the NAS: ${why}`);
      const dir = core.model.pathOf(row.parent);
      core.activity({
        kind: 'local-only',
        path: dir === undefined || dir === '' ? row.name : `${dir}/${row.name}`,
        summary: 'kept local only: not created on the NAS',
        reason: why,
      });
    });
    this.p.changed();
  }
}

/** The log's line for a new file uploaded. */
const uploadedLine = (path: string, o: RemoteObject): ActivityInput => ({
  kind: 'uploaded',
  path,
  summary: `uploaded (${formatSize(o.size ?? 0)}): on the NAS now`,
  reason: 'a new file in the mirror folder',
});
