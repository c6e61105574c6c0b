/**
 * Folder stamps: a folder's mtime (ns) when its entries last matched the model. A folder's
 * mtime moves whenever an entry is added to, removed from or renamed in it, so after a stop
 * (or while the watcher was starting) only folders whose stamp moved need reading. Every
 * folder is checked on its own: a rename inside a folder leaves its parent's mtime alone.
 * A stamp read while scanning that is younger than RACY_MS is not kept (a change in the
 * same clock tick would not move it): such a folder is simply read again at the next check. Not caught: content written
 * into an existing file in place (no folder changes); the watcher sees that while it runs.
 */
import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { isAbsent, realDisk, type Disk } from './disk.js';
import type { LocalModel } from './model.js';

/** lstat (bigint) of a folder; undefined when it is gone, 'unreadable' on any other error. */
function statOf(abs: string, disk: Disk): BigIntStats | undefined | 'unreadable' {
  try {
    return disk.lstat(abs);
  } catch (e) {
    return isAbsent(e) ? undefined : 'unreadable';
  }
}

export const RACY_MS = 1000;

/** The stamp to keep for a folder as just stat-ed, or undefined when it is too recent to trust. */
export function stampOf(st: BigIntStats, now = Date.now()): string | undefined {
  return now - Number(st.mtimeMs) < RACY_MS ? undefined : `${st.ino}:${st.mtimeNs}`;
}

/**
 * Takes the stamps of these folders (ids) as they are on disk now: folders the engine just
 * wrote itself, so the racy rule is not applied (it would make every folder of a first fill
 * "changed" and read again in full); a change by someone else in the very clock tick of our
 * last write to a folder is left to the watcher and the periodic full rescan.
 */
export function recordStamps(root: string, model: LocalModel, ids: Iterable<string>, disk: Disk = realDisk): void {
  for (const id of ids) {
    const e = model.get(id);
    if (!e || e.kind !== 'dir' || e.ino === null) continue;
    const segs = model.segments(id);
    const got = segs ? statOf(segs.length ? join(root, ...segs) : root, disk) : undefined;
    const st = got === 'unreadable' ? undefined : got; // unreadable: no stamp, read again later
    model.setStamp(id, st && st.isDirectory() && st.ino.toString() === e.ino ? `${st.ino}:${st.mtimeNs}` : undefined);
  }
}

/**
 * The folders (paths relative to the root, '' for the root) to read again: placed folders
 * whose stamp is missing or moved. One lstat per folder, none per file.
 */
/** The paths of the folders the model knows on disk ('' is the root). */
export function knownDirs(model: LocalModel): string[] {
  const out: string[] = [];
  for (const e of model.dirs()) {
    if (e.kind !== 'dir' || e.ino === null || e.state !== 'ok') continue;
    const segs = model.segments(e.id);
    if (segs) out.push(segs.join('/'));
  }
  return out;
}

export function changedDirs(root: string, model: LocalModel, disk: Disk = realDisk): string[] {
  const out: string[] = [];
  for (const e of model.dirs()) {
    if (e.kind !== 'dir' || e.ino === null || e.state !== 'ok') continue;
    const segs = model.segments(e.id);
    if (!segs) continue;
    const st = statOf(segs.length ? join(root, ...segs) : root, disk);
    // gone: its parent's stamp moved too, and reading the parent tells what happened
    if (!st) continue;
    // unreadable (EIO, EACCES): read it, so the scan fails and the status says why
    if (st === 'unreadable') {
      out.push(segs.join('/'));
      continue;
    }
    if (model.stamp(e.id) !== `${st.ino}:${st.mtimeNs}`) out.push(segs.join('/'));
  }
  return out;
}
