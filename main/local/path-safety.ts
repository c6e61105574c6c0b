/**
 * Path safety: every path the engine writes is the mirror root joined with names that were
 * checked one by one; `insideRoot` re-checks the final absolute path before any fs call, so
 * no name from the network can reach outside the mirror folder.
 */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { AppError } from '../../app/errors.js';
import { isAbsent, realDisk, type Disk } from './disk.js';

/** True when `abs` is the root itself or strictly below it. */
export function isInsideRoot(root: string, abs: string): boolean {
  const rel = relative(resolve(root), resolve(abs));
  return rel === '' || (!isAbsolute(rel) && !rel.split(sep).includes('..'));
}

/** Throws UnsafeName unless `s` is one safe path segment (no separator, NUL, `.` or `..`). */
export function checkSegment(s: string): void {
  if (s === '' || s === '.' || s === '..' || s.includes('/') || (s.includes('\\') && sep === '\\') || s.includes('\0')) {
    throw new AppError('UnsafeName', `unsafe path segment ${JSON.stringify(s)}`);
  }
}

/**
 * A child of a folder path already checked (by `safeJoinOnDisk`): one safe segment appended.
 * Cheaper than a full join for the thousands of entries of one folder.
 */
export function childPath(checkedDir: string, name: string): string {
  checkSegment(name);
  return checkedDir + sep + name;
}

/** Joins root and checked segments; throws UnsafeName when a segment is unsafe or the result escapes. */
export function safeJoin(root: string, segments: readonly string[]): string {
  for (const s of segments) checkSegment(s);
  const abs = resolve(root, ...segments);
  if (!isInsideRoot(root, abs) || (segments.length > 0 && abs === resolve(root))) {
    throw new AppError('UnsafeName', `path escapes the mirror folder: ${JSON.stringify(segments.join('/'))}`);
  }
  return abs;
}

/**
 * `safeJoin`, and the folder that would hold the path resolves (symlinks followed) inside
 * the root's real path: a symlink the user put in the mirror cannot lead a NAS change to
 * write, move or delete anything outside it. `realDirs` caches folders already checked
 * within one batch of writes. A missing parent passes: the fs call then fails on its own.
 */
export function safeJoinOnDisk(root: string, segments: readonly string[], realDirs?: Map<string, boolean>, disk: Disk = realDisk): string {
  const abs = safeJoin(root, segments);
  if (segments.length === 0) return abs;
  if (!resolvesInside(root, dirname(abs), realDirs, disk))
    throw new AppError('UnsafeName', `a symbolic link leads ${JSON.stringify(segments.join('/'))} outside the mirror folder`);
  return abs;
}

/**
 * The folder at `segments` itself, checked the same way: it resolves inside the root, so
 * its children can be joined with `childPath`.
 */
export function safeDirOnDisk(root: string, segments: readonly string[], realDirs?: Map<string, boolean>, disk: Disk = realDisk): string {
  const abs = safeJoin(root, segments);
  if (segments.length > 0 && !resolvesInside(root, abs, realDirs, disk))
    throw new AppError('UnsafeName', `a symbolic link leads ${JSON.stringify(segments.join('/'))} outside the mirror folder`);
  return abs;
}

/**
 * True when `dir` resolves (symlinks followed) inside the root's real path, or does not
 * exist. A folder that cannot be resolved for another reason (EIO, EACCES) is not inside.
 */
function resolvesInside(root: string, dir: string, realDirs: Map<string, boolean> | undefined, disk: Disk): boolean {
  let ok = realDirs?.get(dir);
  if (ok === undefined) {
    let real: string | undefined;
    let absent = false;
    try {
      real = disk.realpath(dir);
    } catch (e) {
      absent = isAbsent(e);
    }
    try {
      ok = absent || (real !== undefined && isInsideRoot(disk.realpath(root), real));
    } catch {
      ok = false;
    }
    realDirs?.set(dir, ok);
  }
  return ok;
}
