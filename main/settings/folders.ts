/**
 * THE checks on the state folder and the mirror folder, for the command line and the window
 * alike (one set of rules), before anything touches the NAS or is saved: each
 * must be (or become) a writable folder, and neither may hold the other (the engine would
 * see its own database as local files, or place placeholders among it); only <state>/mirror,
 * the app's default, may sit inside the state folder. Failures are one
 * AppError('BadConfig') line naming the folder and the reason, never a raw errno.
 */
import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AppError } from '../../app/errors.js';

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOTDIR: 'a parent is a file, not a folder',
  ENOENT: 'cannot be created there',
  ENOSPC: 'no space left',
  EEXIST: 'a file of that name is in the way',
};

const why = (e: unknown): string => {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return (code !== undefined ? REASONS[code] : undefined) ?? (e instanceof Error ? e.message : String(e));
};

/**
 * mkdir -p one level at a time: Node's recursive mkdirSync loops forever on some pseudo
 * file systems (a folder under /proc), this fails with the first level's error.
 */
function mkdirs(abs: string): void {
  const missing: string[] = [];
  let p = abs;
  while (!existsSync(p)) {
    missing.push(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  for (const d of missing.reverse()) mkdirSync(d);
}

/** Creates `dir` if needed and proves it is a writable folder (a probe file is written and removed). */
function ensureWritableFolder(dir: string, what: string, flag: string): string {
  const abs = resolve(dir);
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    /* absent: created below */
  }
  if (!isDir) {
    try {
      statSync(abs);
      throw new AppError('BadConfig', `${flag === '--dir' ? 'the mirror folder' : flag} ${abs} is a file, not a folder`);
    } catch (e) {
      if (e instanceof AppError) throw e;
    }
    try {
      mkdirs(abs);
    } catch (e) {
      throw new AppError('BadConfig', `cannot create the ${what} ${abs}: ${why(e)}`);
    }
  }
  const probe = join(abs, `.nas-mirror-probe-${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (e) {
    throw new AppError('BadConfig', `the ${what} ${abs} is not writable: ${why(e)}`);
  }
  return realpathSync(abs);
}

const inside = (child: string, parent: string): boolean => {
  const r = relative(parent, child);
  return r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r));
};

/** The state folder: created if absent, must be a writable folder. */
export function prepareStateDir(dir: string): void {
  ensureWritableFolder(dir, 'state folder', '--state');
}

/**
 * The state folder and the mirror folder together: both writable folders, neither inside
 * the other. Checked before the mirror folder is created, so a bad pair leaves no folder behind.
 */
export function prepareFolders(stateDir: string, mirrorDir: string): void {
  const s = resolve(stateDir);
  const m = resolve(mirrorDir);
  const real = (p: string): string => {
    // the nearest existing ancestor, resolved through symlinks, plus the rest
    let head = p;
    const rest: string[] = [];
    for (;;) {
      try {
        return join(realpathSync(head), ...rest.reverse());
      } catch {
        /* climb */
      }
      const up = dirname(head);
      if (up === head) return p;
      rest.push(head.slice(up.length).replace(/^[/\\]+/, ''));
      head = up;
    }
  };
  const rs = real(s);
  const rm = real(m);
  // <state>/mirror (or mirror-N, a new mirror's) is the app's own default (main/settings/app-dirs.ts); any other place inside the
  // state folder could meet its database and index (state.db, index/, engine.lock).
  if (inside(rm, rs) && !/^mirror(-\d+)?$/.test(relative(rs, rm)))
    throw new AppError('BadConfig', `the mirror folder ${m} is inside the state folder ${s}; choose a folder outside it`);
  if (inside(rs, rm))
    throw new AppError('BadConfig', `the state folder ${s} must not be inside the mirror folder ${m}; choose a state folder outside it`);
  prepareStateDir(s);
  ensureWritableFolder(m, 'mirror folder', '--dir');
}

/** True when `dir` does not exist or holds nothing (a place a new mirror may go). */
export function isFreeFolder(dir: string): boolean {
  try {
    // an engine that never mirrored anything may have left its marker folder alone
    return readdirSync(dir).filter((n) => n !== '.nas-mirror').length === 0;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * The window's mirror folder, checked with the command line's rules plus: an absolute path
 * (a relative one would land wherever the engine happens to run), and for a new mirror an
 * empty or new folder (placeholders never go among existing files). Creates the folder;
 * throws AppError('BadConfig') in words otherwise, before anything is saved.
 */
export function checkMirrorFolder(stateDir: string, mirrorDir: string, opts: { fresh?: boolean } = {}): void {
  const m = mirrorDir.trim();
  if (m === '') throw new AppError('BadConfig', 'choose a mirror folder');
  if (!isAbsolute(m))
    throw new AppError('BadConfig', `the mirror folder must be a full path (like ${join(sep, 'home', 'you', 'NAS')}), not "${m}"`);
  const existed = existsSync(m);
  prepareFolders(stateDir, m);
  if (opts.fresh && existed && !isFreeFolder(m))
    throw new AppError('BadConfig', `the folder ${m} already holds files: choose an empty or new folder for the mirror`);
}
