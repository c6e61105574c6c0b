/**
 * The mirror root's health. A marker file `.nas-mirror/marker` (like Syncthing's
 * `.stfolder`) tells "this is our mirror": a root that vanished, lost its marker (unmounted
 * disk, `rm -rf`) or was emptied pauses sync and is never read as "delete everything".
 * Our own folder `.nas-mirror` (and its `staging`, `local-only`) must be real folders: a link
 * there (to somewhere outside) pauses sync too, and nothing is written through it.
 */
import { AppError } from '../../app/errors.js';
import { plural } from '../../app/util/human.js';
import { join } from 'node:path';
import { RESERVED_DIR } from '../local/local-names.js';
import type { Core } from './core.js';
import type { EngineEvent } from './engine-state.js';
import { errnoOf, realDisk, type Disk } from '../local/disk.js';
import { recoverStaging } from '../local/staging-recovery.js';

export const markerPath = (root: string): string => join(root, RESERVED_DIR, 'marker');

export type RootHealth = { ok: true } | { ok: false; reason: string };

/** Why the client's own folder cannot be trusted (a link, not a folder, unreadable), or undefined. */
export function reservedDirProblem(root: string, disk: Disk = realDisk): string | undefined {
  for (const sub of ['', 'staging', 'local-only']) {
    const rel = sub === '' ? RESERVED_DIR : `${RESERVED_DIR}/${sub}`;
    const abs = join(root, RESERVED_DIR, sub);
    let st;
    try {
      st = disk.lstat(abs);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      return `${rel} in the mirror folder cannot be read (${code ?? 'error'})`;
    }
    if (st.isSymbolicLink()) {
      let to = '?';
      try {
        to = disk.readlink(abs);
      } catch {
        /* unreadable link */
      }
      return (
        `${rel} in the mirror folder is a link (to ${to}): the client writes nothing through a link; ` +
        'replace it with a real folder to resume'
      );
    }
    if (!st.isDirectory()) return `${rel} in the mirror folder is not a folder: replace it with a real folder to resume`;
  }
  return undefined;
}

/** Creates the root and its marker (first run, or the user asked to restore); refuses a link as our own folder. */
export function initRoot(root: string, disk: Disk = realDisk): void {
  const problem = reservedDirProblem(root, disk);
  if (problem !== undefined) throw new AppError('BadConfig', problem);
  try {
    disk.mkdir(join(root, RESERVED_DIR), true);
    disk.writeFile(markerPath(root), 'This folder is a NAS Mirror. Do not delete this file.\n');
  } catch (e) {
    throw new AppError('DiskError', `cannot create ${RESERVED_DIR} in the mirror folder ${root} (${errnoOf(e)}): sync waits for the disk`, {
      cause: e,
      detail: errnoOf(e),
    });
  }
}

/** Checks the root; `liveTopLevel` = how many top-level placeholders the model expects on disk. */
export function checkRoot(root: string, liveTopLevel: number, disk: Disk = realDisk): RootHealth {
  if (!disk.exists(root)) return { ok: false, reason: `the mirror folder ${root} is missing (unmounted or deleted)` };
  const problem = reservedDirProblem(root, disk);
  if (problem !== undefined) return { ok: false, reason: problem };
  if (!disk.exists(markerPath(root)))
    return { ok: false, reason: `the mirror folder ${root} lost its marker ${RESERVED_DIR}/marker (replaced or wiped)` };
  if (liveTopLevel > 0) {
    let names: string[];
    try {
      names = disk.readdir(root).filter((n) => n !== RESERVED_DIR);
    } catch {
      return { ok: false, reason: `the mirror folder ${root} cannot be read` };
    }
    if (names.length === 0) return { ok: false, reason: `the mirror folder ${root} was emptied (${liveTopLevel} entries expected)` };
  }
  return { ok: true };
}

/**
 * The engine's health check of the mirror folder: a vanished or emptied folder pauses sync
 * (nothing is deleted), said once in the activity log and a notice; its return resumes it.
 * `wasMissing`: the state's `mirrorMissing` before. Returns whether the folder is healthy.
 */
export function checkMirrorHealth(
  c: Pick<Core, 'root' | 'model' | 'activity' | 'disk'>,
  wasMissing: string | undefined,
  report: (ev: EngineEvent) => void,
  notice: (n: { level: 'error'; message: string }) => void,
): boolean {
  const rootId = c.model.rootId;
  const top = rootId
    ? c.model.children(rootId).filter((id) => {
        const e = c.model.get(id)!;
        return e.state === 'ok' && e.ino !== null;
      }).length
    : 0;
  const h = checkRoot(c.root, top, c.disk);
  report(h.ok ? { type: 'health', ok: true } : { type: 'health', ok: false, reason: h.reason });
  if (h.ok && wasMissing !== undefined)
    c.activity({
      kind: 'resumed',
      path: '',
      summary: 'mirror folder is back: sync resumed',
      reason: 'the folder and its marker are present',
    });
  if (!h.ok && wasMissing === undefined) {
    c.activity({ kind: 'paused', path: '', summary: 'sync paused: nothing will be deleted', reason: h.reason });
    notice({
      level: 'error',
      message: `${h.reason}. Sync is paused and nothing is deleted on the NAS. Restore the folder, or resume to recreate the placeholders.`,
    });
  }
  return h.ok;
}

/** Entries a killed run left in staging go back where the stored state has them, before any folder is read. */
export function recoverStaged(c: Pick<Core, 'root' | 'model' | 'disk' | 'local' | 'activity'>): void {
  const rep = recoverStaging(c.root, c.model, c.disk);
  if (!rep.moved && !rep.keptLocal.length && !rep.failed.length) return;
  for (const k of rep.keptLocal) c.local.addLocalOnly({ path: k.to }, 'moved', k.reason);
  c.local.flush(c.model);
  c.activity({
    kind: rep.failed.length ? 'error' : 'restored',
    path: '',
    summary: `${plural(rep.moved, 'placeholder', 'placeholders')} put back after an interrupted run`,
    reason:
      [...rep.keptLocal.map((k) => `${k.from}: ${k.reason}`), ...rep.failed.map((f) => f.reason)].join('; ') ||
      'a run was stopped between moving a placeholder and writing its state; nothing was sent',
  });
}
