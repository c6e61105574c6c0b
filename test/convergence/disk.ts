/**
 * The mirror folder as the user sees it: a scan (path, kind, inode), the user's own file
 * operations (node:fs, as a file manager does them), and a "remount": the folder restored
 * from a copy while the engine is stopped (`cp -a` to a new folder, the old one removed,
 * the copy moved back: every inode changes, names and mtimes do not).
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { RESERVED_DIR } from '../../main/local/local-names.js';

export interface DiskEntry {
  /** Path from the mirror root, '/'-separated. */
  path: string;
  name: string;
  dir: boolean;
  ino: string;
  size: number;
}

/** Every entry under `root` (not the root), `.nas-mirror` excluded unless `reserved`. */
export function scanDisk(root: string, opts: { under?: string; reserved?: boolean } = {}): Map<string, DiskEntry> {
  const out = new Map<string, DiskEntry>();
  const walk = (rel: string): void => {
    let names: string[];
    try {
      names = readdirSync(rel === '' ? root : join(root, rel));
    } catch {
      return; // gone meanwhile (the engine moved it)
    }
    for (const name of names) {
      if (rel === '' && name === RESERVED_DIR && !opts.reserved) continue;
      const path = rel === '' ? name : `${rel}/${name}`;
      let st;
      try {
        st = lstatSync(join(root, path), { bigint: true });
      } catch {
        continue;
      }
      const dir = st.isDirectory();
      out.set(path, { path, name, dir, ino: String(st.ino), size: Number(st.size) });
      if (dir) walk(path);
    }
  };
  walk(opts.under ?? '');
  return out;
}

/** The inode of `root/path` (as a string), or undefined when it is not there. */
export function inodeOf(root: string, path: string): string | undefined {
  try {
    return String(lstatSync(join(root, path), { bigint: true }).ino);
  } catch {
    return undefined;
  }
}

/** Restores the mirror folder from a copy of itself: same names and times, new inodes everywhere. */
export function restoreFromCopy(mirror: string): void {
  const copy = `${mirror}.restore`;
  execFileSync('cp', ['-a', mirror, copy]);
  execFileSync('rm', ['-rf', mirror]);
  renameSync(copy, mirror);
}
