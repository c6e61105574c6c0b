/**
 * "Start a new mirror": the current mirror's state (state.db, offline index) is put aside in
 * `<data folder>/previous/<time>/`, a complete state folder that `nas-mirror run --state`
 * can continue (its outbox, conflicts and activity included); the mirror folder itself is
 * left where it is, untouched. Nothing is deleted. `restoreMirror` brings one back ("Reopen"
 * in Settings) after the current one was put aside the same way.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AppError } from '../../app/errors.js';

const STATE_FILES = ['state.db', 'state.db-wal', 'state.db-shm', 'index'];

export interface PreviousMirror {
  keptIn: string;
  mirrorFolder: string;
  nas: string;
  at: string;
}

/** Moves the state files aside (the state db must be closed); returns where they went. */
export function putMirrorAside(dataDir: string, about: { mirrorFolder: string; nas: string }): PreviousMirror {
  const at = new Date().toISOString();
  const keptIn = join(dataDir, 'previous', at.replace(/[:.]/g, '-'));
  mkdirSync(keptIn, { recursive: true });
  for (const f of STATE_FILES) if (existsSync(join(dataDir, f))) renameSync(join(dataDir, f), join(keptIn, f));
  const p: PreviousMirror = { keptIn, ...about, at };
  writeFileSync(join(keptIn, 'about.json'), `${JSON.stringify(p, null, 2)}\n`);
  return p;
}

/** The mirrors put aside so far, newest first (a broken about.json is skipped). */
export function listPreviousMirrors(dataDir: string): PreviousMirror[] {
  const dir = join(dataDir, 'previous');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: PreviousMirror[] = [];
  for (const n of names.sort().reverse().slice(0, 100)) {
    try {
      const v = JSON.parse(readFileSync(join(dir, n, 'about.json'), 'utf8')) as Partial<PreviousMirror>;
      if (typeof v.mirrorFolder === 'string' && typeof v.nas === 'string' && typeof v.at === 'string')
        out.push({ keptIn: join(dir, n), mirrorFolder: v.mirrorFolder, nas: v.nas, at: v.at });
    } catch {
      /* not ours */
    }
  }
  return out;
}

/** The mirror put aside in `keptIn`, if it is one of ours (a folder of `<data>/previous/` with an about.json). */
export function previousMirror(dataDir: string, keptIn: string): PreviousMirror {
  const found = listPreviousMirrors(dataDir).find((p) => resolve(p.keptIn) === resolve(keptIn));
  if (!found || !existsSync(join(found.keptIn, 'state.db'))) throw new AppError('NotFound', `no mirror put aside in ${keptIn}`);
  return found;
}

/**
 * Moves a mirror's state back from `previous/` (the state db must be closed, and the
 * current state already put aside, or dropped when it held no mirror at all). Its folder
 * in previous/ is removed once empty (about.json was only the label).
 */
export function restoreMirror(dataDir: string, p: PreviousMirror): void {
  for (const f of STATE_FILES)
    if (existsSync(join(dataDir, f)))
      throw new AppError('Conflict', `the data folder still holds ${f}: the current mirror was not put aside`);
  for (const f of STATE_FILES) if (existsSync(join(p.keptIn, f))) renameSync(join(p.keptIn, f), join(dataDir, f));
  unlinkSync(join(p.keptIn, 'about.json'));
  try {
    rmdirSync(p.keptIn);
  } catch {
    /* something else in it: left as it is */
  }
}

/** A state that holds no mirror (nothing chosen at the first start): its files go, it has nothing to keep. */
export function dropEmptyState(dataDir: string): void {
  for (const f of STATE_FILES) rmSync(join(dataDir, f), { recursive: true, force: true });
}
