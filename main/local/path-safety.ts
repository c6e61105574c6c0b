/**
 * Path safety: every path the engine writes is the mirror root joined with names that were
 * checked one by one; `insideRoot` re-checks the final absolute path before any fs call, so
 * no name from the network can reach outside the mirror folder.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { AppError } from '../../app/errors.js';

/** True when `abs` is the root itself or strictly below it. */
export function isInsideRoot(root: string, abs: string): boolean {
  const rel = relative(resolve(root), resolve(abs));
  return rel === '' || (!isAbsolute(rel) && !rel.split(sep).includes('..'));
}

/** Joins root and checked segments; throws UnsafeName when a segment is unsafe or the result escapes. */
export function safeJoin(root: string, segments: readonly string[]): string {
  for (const s of segments) {
    if (s === '' || s === '.' || s === '..' || s.includes('/') || s.includes('\\') && sep === '\\' || s.includes('\0')) {
      throw new AppError('UnsafeName', `unsafe path segment ${JSON.stringify(s)}`);
    }
  }
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
export function safeJoinOnDisk(root: string, segments: readonly string[], realDirs?: Map<string, boolean>): string {
  const abs = safeJoin(root, segments);
  if (segments.length === 0) return abs;
  const parent = dirname(abs);
  let ok = realDirs?.get(parent);
  if (ok === undefined) {
    let realParent: string | undefined;
    try {
      realParent = realpathSync(parent);
    } catch {
      realParent = undefined;
    }
    ok = realParent === undefined || isInsideRoot(realpathSync(root), realParent);
    realDirs?.set(parent, ok);
  }
  if (!ok) throw new AppError('UnsafeName', `a symbolic link leads ${JSON.stringify(segments.join('/'))} outside the mirror folder`);
  return abs;
}
