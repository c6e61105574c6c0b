/**
 * Moving the mirror folder, as one operation run while no engine watches it: the folder is
 * renamed on disk (placeholders, local-only files and inodes kept, so nothing looks deleted
 * or new), the state learns the new place, and the move is logged in Activity. A target
 * that is not empty is refused in words before anything changes. On another disk (EXDEV)
 * the tree is copied, verified, switched to, and only then the old one removed
 * (`main/mirror-move/`), with progress through `onProgress`.
 */
import { existsSync, renameSync, rmdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppError } from '../../app/errors.js';
import { LocalStore } from '../local/local-store.js';
import type { MoveProgress } from '../mirror-move/copy-tree.js';
import { dropUncommittedCopy, moveAcrossDisks } from '../mirror-move/move-across-disks.js';
import { MirrorStore } from '../mirror/store.js';
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
  /** A move to another disk copies: how far it is. */
  onProgress?: (p: MoveProgress) => void;
  /** Tests: called before each entry of a copy across disks (an interruption on purpose). */
  beforeEntry?: (rel: string, index: number) => void;
}

export async function moveMirrorFolder(m: MoveMirror): Promise<void> {
  const to = m.to.trim();
  const field = { field: 'mirrorFolder' };
  const fail = (message: string, cause?: unknown): never => {
    throw new AppError('BadConfig', message, { ...field, cause });
  };
  if (resolve(to) === resolve(m.from)) return;
  const local = new LocalStore(m.db);
  if (!m.mirrored || !existsSync(m.from)) {
    if (m.mirrored) fail(`the current mirror folder ${m.from} is missing: put it back (or reconnect its disk) before moving it`);
    try {
      checkMirrorFolder(m.stateDir, to);
    } catch (e) {
      fail(e instanceof Error ? e.message : String(e), e);
    }
    m.settings.update({ mirrorFolder: to });
    return;
  }
  dropUncommittedCopy(m.db); // an earlier move to another disk, interrupted after its copy
  try {
    checkMirrorFolder(m.stateDir, to, { fresh: true });
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e), e);
  }
  const commit = (how: string): void => {
    local.setMeta('mirrorDir', to);
    m.settings.update({ mirrorFolder: to });
    local.addActivity({
      kind: 'mirror-moved',
      path: '',
      summary: `Mirror folder moved to ${to}`,
      reason: `moved from ${m.from} as asked in Settings (${how}); every placeholder and local file came along`,
    });
  };
  try {
    rmdirSync(to); // created empty by the check; the rename puts the mirror in its place
    renameSync(m.from, to);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV') fail(`the mirror folder could not be moved to ${to}: ${code ?? String(e)} (nothing was changed)`, e);
    const rootId = new MirrorStore(m.db).root()?.id;
    if (rootId === undefined) fail(`nothing is mirrored in ${m.from} yet (nothing was changed)`);
    let oldRemoved = false;
    try {
      ({ oldRemoved } = await moveAcrossDisks({
        db: m.db,
        from: m.from,
        to,
        rootId: rootId!,
        onProgress: m.onProgress,
        beforeEntry: m.beforeEntry,
        commit: () => commit('copied to another disk, checked, then the old copy removed'),
      }));
    } catch (err) {
      fail(
        `the mirror folder could not be copied to ${to}: ${err instanceof Error ? err.message : String(err)} ` +
          `(nothing was changed: the mirror is still in ${m.from})`,
        err,
      );
    }
    if (!oldRemoved)
      local.addActivity({
        kind: 'mirror-moved',
        path: '',
        summary: `The old mirror folder ${m.from} could not be removed`,
        reason: 'the mirror now lives in its new place; the old folder is only a leftover copy: delete it by hand',
      });
    return;
  }
  commit('renamed on the same disk');
}
