/**
 * Moving the mirror folder, as one operation run while no engine watches it: the folder is
 * renamed on disk (placeholders, local-only files and inodes kept, so nothing looks deleted
 * or new), the state learns the new place, and the move is logged in Activity. A target
 * that is not empty, or on another disk, is refused in words before anything changes.
 */
import { existsSync, renameSync, rmdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppError } from '../../app/errors.js';
import { LocalStore } from '../local/local-store.js';
import { checkMirrorFolder } from '../settings/folders.js';
import type { SettingsStore } from '../settings/settings-store.js';
import type { Db } from '../state/db.js';

export interface MoveMirror {
  db: Db;
  stateDir: string;
  from: string;
  to: string;
  /** Something is mirrored in `from` (else only the setting changes). */
  mirrored: boolean;
  settings: SettingsStore;
}

export function moveMirrorFolder(m: MoveMirror): void {
  const to = m.to.trim();
  const field = { field: 'mirrorFolder' };
  const fail = (message: string, cause?: unknown): never => { throw new AppError('BadConfig', message, { ...field, cause }); };
  if (resolve(to) === resolve(m.from)) return;
  const local = new LocalStore(m.db);
  if (!m.mirrored || !existsSync(m.from)) {
    if (m.mirrored) fail(`the current mirror folder ${m.from} is missing: put it back (or reconnect its disk) before moving it`);
    try { checkMirrorFolder(m.stateDir, to); } catch (e) { fail(e instanceof Error ? e.message : String(e), e); }
    m.settings.update({ mirrorFolder: to });
    return;
  }
  try { checkMirrorFolder(m.stateDir, to, { fresh: true }); } catch (e) { fail(e instanceof Error ? e.message : String(e), e); }
  try {
    rmdirSync(to); // created empty by the check; the rename puts the mirror in its place
    renameSync(m.from, to);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    fail(code === 'EXDEV'
      ? `${to} is on another disk: the mirror can only be moved within the same disk for now (nothing was changed)`
      : `the mirror folder could not be moved to ${to}: ${code ?? String(e)} (nothing was changed)`, e);
  }
  local.setMeta('mirrorDir', to);
  m.settings.update({ mirrorFolder: to });
  local.addActivity({ kind: 'mirror-moved', path: '', summary: `Mirror folder moved to ${to}`, reason: `moved from ${m.from} as asked in Settings; every placeholder and local file came along` });
}
