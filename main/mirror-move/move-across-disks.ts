/**
 * The mirror folder to another disk, with the engine stopped: copy and verify
 * (`copy-tree.ts`), then in ONE state-db transaction the local model learns the copy's
 * inodes (same paths, new inodes: without this every placeholder would look replaced by an
 * editor's atomic save) and forgets its folder stamps (the next start reads every folder
 * once), and the caller's `commit` (the new path in settings and meta, Activity) runs; only
 * then is the old tree removed. Interrupted anywhere before that transaction, the old tree
 * and the state are as they were; a copy renamed into place but never committed carries a
 * marker file and is removed by the next move (`dropUncommittedCopy`).
 */
import { existsSync, lstatSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalStore } from '../local/local-store.js';
import type { Db } from '../state/db.js';
import { copyTreeAcrossDisks, stagingFor, type MoveProgress } from './copy-tree.js';

/** Inside a copy from the moment it is complete until the state points at it. */
export const MARKER = '.nas-mirror-move-in-progress';
const PENDING = 'mirrorMovePending';

export interface AcrossDisks {
  db: Db;
  from: string;
  to: string;
  /** The mirrored root's id (the local model's root). */
  rootId: string;
  /** Runs inside the switching transaction: record the new path (settings, meta, Activity). */
  commit: () => void;
  onProgress?: (p: MoveProgress) => void;
  beforeEntry?: (rel: string, index: number) => void;
}

/** A copy made by an earlier move that was interrupted before the state switched to it: removed (it holds our marker). */
export function dropUncommittedCopy(db: Db): void {
  const local = new LocalStore(db);
  const pending = local.meta(PENDING);
  if (pending === undefined) return;
  rmSync(stagingFor(pending), { recursive: true, force: true });
  if (existsSync(join(pending, MARKER))) rmSync(pending, { recursive: true, force: true });
  local.setMeta(PENDING, undefined);
}

export async function moveAcrossDisks(m: AcrossDisks): Promise<{ oldRemoved: boolean }> {
  const local = new LocalStore(m.db);
  local.setMeta(PENDING, m.to);
  await copyTreeAcrossDisks({
    from: m.from,
    to: m.to,
    onProgress: m.onProgress,
    beforeEntry: m.beforeEntry,
    beforeSwitch: (staging) => writeFileSync(join(staging, MARKER), `a copy of ${m.from} being moved here by NAS Mirror\n`),
  });
  const stats = { total: 0, bytes: 0 };
  m.db.transaction(() => {
    const model = local.loadModel(m.rootId);
    for (const e of model.entries()) {
      if (e.ino === null) continue;
      const segs = model.segments(e.id);
      const st = segs ? lstatSync(join(m.to, ...segs), { bigint: true, throwIfNoEntry: false }) : undefined;
      model.update(e.id, { ino: st ? st.ino.toString() : null });
      if (e.kind === 'dir') model.setStamp(e.id, undefined);
      stats.total++;
    }
    local.flush(model);
    local.setMeta(PENDING, undefined);
    m.commit();
  })();
  rmSync(join(m.to, MARKER), { force: true });
  m.onProgress?.({ phase: 'removing-old', done: stats.total, total: stats.total, bytes: 0, totalBytes: 0 });
  const oldRemoved = await rm(m.from, { recursive: true, force: true }).then(
    () => true,
    () => false,
  );
  m.onProgress?.({ phase: 'done', done: stats.total, total: stats.total, bytes: 0, totalBytes: 0 });
  return { oldRemoved };
}
