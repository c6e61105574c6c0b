/**
 * Step 2 of the local pipeline (watch -> ANALYSE -> pair moves -> plan). Takes the folders
 * the watcher pointed at and reads them from disk (one level, lstat with bigint inodes).
 * Gives raw facts only; deciding what they mean is pair-moves' job. Must run while nothing
 * else of the engine writes to the mirror (the engine's lock).
 */
import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { diskError, isAbsent, realDisk, type Disk } from './disk.js';
import type { Kind } from './model.js';
import { stampOf } from './dir-stamps.js';
import { RESERVED_DIR } from './local-names.js';

export interface DiskEntry {
  name: string;
  ino: string;
  kind: Kind | 'other';
  size: number;
  mtimeMs: number;
}

/** One folder as read from disk: its own inode and its direct entries. */
export interface DirScan {
  /** '/'-separated, relative to the mirror root ('' for the root). */
  path: string;
  ino: string;
  /** The folder's stamp as read before its entries (dir-stamps.ts); undefined when too recent. */
  stamp?: string | undefined;
  entries: DiskEntry[];
}

export const kindOf = (st: BigIntStats): Kind | 'other' => (st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other');

/**
 * lstat with bigint inode; undefined when the path does not exist (ENOENT/ENOTDIR, and only
 * then). Any other error (EIO, EACCES, ...) throws a `DiskError`: never read as "absent".
 */
export function lstatBig(abs: string, disk: Disk = realDisk): BigIntStats | undefined {
  try {
    return disk.lstat(abs);
  } catch (e) {
    if (isAbsent(e)) return undefined;
    throw diskError('lstat', abs, e);
  }
}

/**
 * Reads each existing folder among `dirs` (relative paths). Missing folders are skipped. A
 * folder or entry that cannot be read for any reason but absence throws a `DiskError`: the
 * whole batch waits (nothing of a half-read folder may become a delete).
 */
export function scanDirs(root: string, dirs: Iterable<string>, now = Date.now(), disk: Disk = realDisk): DirScan[] {
  const out: DirScan[] = [];
  const uniq = [...new Set(dirs)].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1));
  for (const rel of uniq) {
    const abs = rel === '' ? root : join(root, ...rel.split('/'));
    const st = lstatBig(abs, disk);
    if (!st || !st.isDirectory()) continue;
    let names: string[];
    try {
      names = disk.readdir(abs);
    } catch (e) {
      if (isAbsent(e)) continue;
      throw diskError('readdir', abs, e);
    }
    const entries: DiskEntry[] = [];
    for (const name of names) {
      if (rel === '' && name === RESERVED_DIR) continue;
      const cs = lstatBig(join(abs, name), disk);
      if (!cs) continue;
      entries.push({ name, ino: cs.ino.toString(), kind: kindOf(cs), size: Number(cs.size), mtimeMs: Number(cs.mtimeMs) });
    }
    out.push({ path: rel, ino: st.ino.toString(), stamp: stampOf(st, now), entries });
  }
  return out;
}

export const depth = (rel: string): number => (rel === '' ? 0 : rel.split('/').length);

/**
 * Every folder path under the root on disk (for a full rescan), skipping our reserved dir;
 * with `from`, the folder at that relative path and every folder below it.
 */
export function allDirs(root: string, disk: Disk = realDisk, from = ''): string[] {
  const out: string[] = [from];
  for (let i = 0; i < out.length; i++) {
    const rel = out[i]!;
    const abs = rel === '' ? root : join(root, ...rel.split('/'));
    let ents;
    try {
      ents = disk.readdirKinds(abs);
    } catch {
      continue; // listed itself: its own scan says why it cannot be read
    }
    for (const d of ents) {
      if (rel === '' && d.name === RESERVED_DIR) continue;
      if (d.dir) out.push(rel === '' ? d.name : `${rel}/${d.name}`);
    }
  }
  return out;
}
