/**
 * Content on demand, the disk side: a NAS version is fetched into a partial file in the
 * mirror's private folder (`.nas-mirror/downloads/`, never watched as the user's), resumed by
 * range from what it holds, checked (size and eTag), fsync'd, then renamed over the
 * placeholder. The partial's name is a hash of the object id: nothing from the network names
 * a path. A partial never replaces anything unless whole, checked and durable (`fetchContent`
 * resolves only after its fsync), and only an unchanged placeholder is replaced. A landing is
 * recorded before its rename (`prepareLanding`, then `land`), so a start after a kill adopts a
 * file renamed before the model's rows were written (`adoptLandings`). All of it runs under the
 * engine's lock (it updates the model).
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, rmSync, type BigIntStats, type Stats } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../app/errors.js';
import { parseDate } from '../../app/model/dates.js';
import type { ServiceClient } from '../client/service-client.js';
import { lstatBig } from './analyse.js';
import { diskError, isAbsent, type Disk } from './disk.js';
import type { DownloadRow, LocalStore } from './local-store.js';
import { RESERVED_DIR } from './local-names.js';
import { asDownloaded, type HeldContent, type LocalModel } from './model.js';
import { PartialFile } from './partial-file.js';
import { absOf } from './placeholders.js';

export const downloadsDir = (root: string): string => join(root, RESERVED_DIR, 'downloads');

/** The partial file's name for an object: a hash of its id (never a name the NAS chose). */
export const partialFileOf = (id: string): string => `${createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 40)}.part`;

/** The NAS version to fetch, as the mirror store has it. */
export interface WantedVersion {
  id: string;
  etag: string;
  size: number;
  /** The NAS mTime (ISO): the downloaded file gets it, as a placeholder does. */
  mtime: string;
}

/** Where a download records its progress (the local store). */
export type DownloadRecords = Pick<LocalStore, 'download' | 'setDownload' | 'removeDownload'>;

export interface FetchOptions {
  root: string;
  client: Pick<ServiceClient, 'readContent'>;
  records: DownloadRecords;
  want: WantedVersion;
  signal?: AbortSignal | undefined;
  /** Bytes held so far, of the total. */
  progress?: (bytes: number, total: number) => void;
  /** The NAS's answer is in, whole and checked (the partial is fsync'd next): the request is over. */
  answered?: () => void;
  /**
   * The partial is written, not fsync'd: the caller makes it durable before anything renames it
   * (`Downloads` syncs a whole turn's partials at once, file-syncer.ts).
   */
  unsynced?: boolean;
}

/** A download is recorded (so a restart resumes it) once it has taken this much; a smaller one starts again. */
export const RECORD_FROM = 128 * 1024;

/** A fetched version: its partial (written; fsync'd unless `unsynced` was asked), and whether a download record names it. */
export interface Fetched {
  partial: string;
  /** A `local_downloads` row names the partial (to remove once it is in place). */
  recorded: boolean;
  /** The partial is durable (fsync'd); false when the caller asked to do it (`unsynced`). */
  synced: boolean;
}

/**
 * The private downloads folder, made when missing; only real folders are written in (through
 * a link, a partial could land outside the mirror). Synchronous: a few microseconds per file.
 */
function downloadsFolder(root: string): string {
  const dir = downloadsDir(root);
  for (const d of [join(root, RESERVED_DIR), dir]) {
    let st: Stats;
    try {
      st = lstatSync(d);
    } catch (e) {
      if (!isAbsent(e)) throw diskError('read', d, e);
      mkdirSync(d, { recursive: true });
      st = lstatSync(d);
    }
    if (!st.isDirectory()) throw new AppError('DiskError', `${d} is not a folder (a link?): nothing is downloaded through it`);
  }
  return dir;
}

/**
 * Fetches a version into its partial file, resuming from what an earlier try (a dropped
 * connection, a restart) left for the same version; a partial of another version starts
 * again. Resolves once the partial holds exactly `want.size` bytes of `want.etag`, durable
 * (fsync'd; or written only, with `unsynced`); `ContentMismatch` (the partial dropped) when the NAS sends another version. The
 * record naming the partial's version is written before the first byte when a record of
 * another version is there, else once `RECORD_FROM` bytes are taken: a small file has none
 * (a crash leaves a partial no record names, swept at the next start; it starts again).
 */
export async function fetchContent(o: FetchOptions): Promise<Fetched> {
  const { want, records } = o;
  const file = partialFileOf(want.id);
  const abs = join(downloadsFolder(o.root), file);
  const row = records.download(want.id);
  const fresh = row === undefined || row.etag !== want.etag || row.size !== want.size || row.file !== file;
  let recorded = row !== undefined;
  const record = (): void => {
    records.setDownload({ id: want.id, etag: want.etag, size: want.size, file } satisfies DownloadRow);
    recorded = true;
  };
  // a record of another version must not name these bytes: replaced before the first one
  if (fresh && recorded) record();
  const part = PartialFile.open(abs, fresh, want.size, (n) => {
    if (!recorded && n >= RECORD_FROM) record();
    o.progress?.(n, want.size);
  });
  try {
    const read = await o.client.readContent(want.id, part, { ifRange: want.etag, signal: o.signal });
    const held = part.offset();
    const etagOk = read.status === 416 || read.eTag === want.etag;
    if (!etagOk || held !== want.size || (read.total !== undefined && read.total !== want.size)) {
      await part.close();
      dropPartial(abs, records, want.id);
      throw new AppError(
        'ContentMismatch',
        etagOk
          ? `the NAS sent ${held} bytes of ${want.size} for this file: nothing was replaced, try again`
          : 'the file changed on the NAS since the last sync: nothing was replaced; it is opened once the mirror has the new version',
      );
    }
    o.answered?.();
    await part.finish(o.unsynced !== true);
    return { partial: abs, recorded, synced: o.unsynced !== true };
  } finally {
    await part.close();
  }
}

/** Forgets a download: its partial file and its record. */
export function dropPartial(abs: string, records: DownloadRecords, id: string): void {
  rmSync(abs, { force: true });
  records.removeDownload(id);
}

export interface CommitInput {
  root: string;
  model: LocalModel;
  disk: Disk;
  want: WantedVersion;
  partial: string;
  /**
   * Folders already resolved inside the root in this turn of the lock (`absOf`): a batch of
   * commits resolves each folder once, not once per file.
   */
  realDirs?: Map<string, boolean>;
}

/** A checked partial ready to land: its place, and what the file holds once renamed there. */
export interface ReadyLanding {
  id: string;
  partial: string;
  target: string;
  content: HeldContent;
}

/**
 * Checks that a partial may go in place of the entry's placeholder (under the engine's lock):
 * only when the entry is still a placeholder the engine knows (same inode, zero bytes, not the
 * user's content), or a download of an older NAS version still exactly as it was left (a
 * pinned file kept current: never anything the user changed); gives the partial the NAS time
 * and reads what it will hold (a rename keeps its inode, size and time). Throws (nothing
 * touched but the partial's time) otherwise. Nothing is renamed yet: `land` does that once
 * the landing is recorded.
 */
export function prepareLanding(c: CommitInput): ReadyLanding {
  const e = c.model.get(c.want.id);
  if (!e || e.kind !== 'file' || e.state !== 'ok' || e.ino === null)
    throw new AppError('NotFound', 'this file is not in the mirror folder any more: nothing was replaced');
  const target = absOf(c.root, c.model, e.id, c.realDirs, c.disk);
  if (target === undefined) throw new AppError('UnsafeName', 'this file has no safe place in the mirror folder: nothing was replaced');
  const st = lstatBig(target, c.disk);
  // a placeholder, or (a pinned file kept current) an older NAS version still exactly as downloaded
  const placeholder = e.content === undefined && st?.size === 0n;
  const olderDownload =
    e.content !== undefined &&
    st !== undefined &&
    asDownloaded(e, { size: Number(st.size), mtimeMs: Number(st.mtimeMs), ino: st.ino.toString() });
  if (!st || !st.isFile() || st.ino.toString() !== e.ino || e.filled || !(placeholder || olderDownload)) {
    throw new AppError('Conflict', `${target} changed while it downloaded (it is not the placeholder any more): nothing was replaced`);
  }
  const ms = parseDate(c.want.mtime);
  try {
    if (ms !== undefined) c.disk.utimes(c.partial, ms);
    const ps = c.disk.lstat(c.partial);
    if (Number(ps.size) !== c.want.size)
      throw new AppError('ContentMismatch', `the downloaded file has ${ps.size} bytes, not ${c.want.size}: nothing was replaced`);
    const content: HeldContent = {
      etag: c.want.etag,
      nasMtime: c.want.mtime,
      size: c.want.size,
      mtimeMs: Number(ps.mtimeMs),
      ino: ps.ino.toString(),
    };
    return { id: e.id, partial: c.partial, target, content };
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw diskError(isAbsent(err) ? 'find the downloaded file' : 'put the downloaded file in place of', target, err);
  }
}

/**
 * One rename(2) of a prepared partial over its placeholder; the model records the content held
 * (eTag, size, time, inode) BEFORE the watcher can report the rename, so that report finds
 * nothing new. Under the same turn of the lock as `prepareLanding` (nothing awaited between).
 */
export function land(model: LocalModel, disk: Disk, r: ReadyLanding): void {
  try {
    disk.rename(r.partial, r.target);
  } catch (err) {
    throw diskError(isAbsent(err) ? 'find the downloaded file' : 'put the downloaded file in place of', r.target, err);
  }
  model.update(r.id, { ino: r.content.ino, filled: false, content: r.content });
}

/** Prepares and lands one partial (`prepareLanding`, then `land`): its path and the content it holds. */
export function commitDownload(c: CommitInput): { path: string; content: HeldContent } {
  const r = prepareLanding(c);
  land(c.model, c.disk, r);
  return { path: r.target, content: r.content };
}

/** What the start made of the landings a kill left (`adoptLandings`). */
export interface AdoptedLandings {
  /** Renamed before the kill: the model now records their content. */
  adopted: { id: string; content: HeldContent }[];
  /** Their rename did not happen (or the entry is not the one it was): forgotten. */
  dropped: string[];
}

/**
 * At the start, before any folder is read: the downloads a kill left between their renames and
 * the model's rows (`local_landings`). A file at the entry's place with the recorded inode,
 * size and time is that download: the model gets its content as `land` gives it, so the scan
 * never reads it as the user's. Where the inodes are not valid on this mount (`inodesTrusted`
 * false: remounted, restored from a copy, a disk whose ids change at each mount), the size and
 * the time (the NAS's, which the engine set) at the entry's place are the evidence, and the
 * file's inode now is recorded. Any other record is dropped: its rename did not happen (its
 * partial is resumed or swept as any other). A record the disk cannot tell about (an error
 * other than absence) is neither: kept for the next start. The caller writes the model and
 * removes the records in one transaction.
 */
export function adoptLandings(
  root: string,
  model: LocalModel,
  disk: Disk,
  rows: readonly { id: string; content: HeldContent | undefined }[],
  inodesTrusted = true,
): AdoptedLandings {
  const out: AdoptedLandings = { adopted: [], dropped: [] };
  for (const { id, content } of rows) {
    const e = model.get(id);
    const abs = e?.kind === 'file' && e.state === 'ok' && e.ino !== null && !e.filled ? absOf(root, model, id, undefined, disk) : undefined;
    let st: BigIntStats | undefined;
    try {
      st = abs === undefined || content === undefined ? undefined : lstatBig(abs, disk);
    } catch {
      continue; // unreadable now: the record waits for a start that can tell
    }
    if (st === undefined || content === undefined) {
      out.dropped.push(id);
      continue;
    }
    const same =
      st.isFile() &&
      (!inodesTrusted || st.ino.toString() === content.ino) &&
      Number(st.size) === content.size &&
      Number(st.mtimeMs) === content.mtimeMs;
    if (!same) {
      out.dropped.push(id);
      continue;
    }
    const here = { ...content, ino: st.ino.toString() };
    model.update(id, { ino: here.ino, filled: false, content: here });
    out.adopted.push({ id, content: here });
  }
  return out;
}

/** Removes partial files no download record names (a finished or abandoned one a crash left). */
export function sweepPartials(root: string, kept: readonly DownloadRow[], disk: Disk): void {
  const dir = downloadsDir(root);
  let names: string[];
  try {
    names = disk.readdir(dir);
  } catch {
    return; // no downloads yet
  }
  const keep = new Set(kept.map((k) => k.file));
  for (const n of names) if (!keep.has(n)) disk.rmFile(join(dir, n));
}
