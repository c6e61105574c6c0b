/**
 * "Start a new mirror": the current mirror's state (state.db, offline index) is put aside in
 * `<data folder>/previous/<time>/`, a complete state folder that `nas-mirror run --state`
 * can continue (its outbox, conflicts and activity included); the mirror folder itself is
 * left where it is, untouched. Nothing is deleted.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
  try { names = readdirSync(dir); } catch { return []; }
  const out: PreviousMirror[] = [];
  for (const n of names.sort().reverse().slice(0, 100)) {
    try {
      const v = JSON.parse(readFileSync(join(dir, n, 'about.json'), 'utf8')) as Partial<PreviousMirror>;
      if (typeof v.mirrorFolder === 'string' && typeof v.nas === 'string' && typeof v.at === 'string') out.push({ keptIn: join(dir, n), mirrorFolder: v.mirrorFolder, nas: v.nas, at: v.at });
    } catch { /* not ours */ }
  }
  return out;
}
