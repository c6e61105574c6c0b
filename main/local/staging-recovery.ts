/**
 * After a run killed in the middle of a placeholder move: entries left in
 * `.nas-mirror/staging` (moved out of their folder, not yet landed) go back to where the
 * stored state has them, before anything reads the folders. Otherwise their folder would
 * show them missing, and a missing placeholder reads as the user's delete. An entry whose
 * place is taken is forgotten by the model (placed again later, never a delete) and kept
 * (an empty placeholder goes, anything else is moved to the local-only area). A staged
 * entry is known by the id its name carries (by its inode only for names of an earlier
 * version): after a remount the inodes may all be new.
 */
import { join } from 'node:path';
import { lstatBig } from './analyse.js';
import { isAbsent, type Disk } from './disk.js';
import type { LocalModel } from './model.js';
import { idOfStaged, keepLocal, stagingDir, unstage, type WriteReport } from './placeholders.js';

export function recoverStaging(root: string, model: LocalModel, disk: Disk): WriteReport {
  const rep: WriteReport = {
    created: 0,
    moved: 0,
    removed: 0,
    keptLocal: [],
    failed: [],
    touchedDirs: new Set(),
    reread: new Set(),
    tombstones: [],
  };
  const dir = stagingDir(root);
  let names: string[];
  try {
    names = disk.readdir(dir);
  } catch (e) {
    if (!isAbsent(e)) rep.failed.push({ id: '', reason: `cannot read ${dir}: ${(e as Error).message}` });
    return rep;
  }
  for (const name of names) {
    const abs = join(dir, name);
    try {
      const st = lstatBig(abs, disk);
      if (!st) continue;
      const byId = idOfStaged(name);
      const named = byId === undefined ? undefined : model.get(byId);
      const e =
        named && named.kind === (st.isDirectory() ? 'dir' : 'file')
          ? named
          : byId === undefined
            ? model.byIno(st.ino.toString())
            : undefined;
      if (e) {
        unstage(root, model, e.id, abs, rep, disk);
        rep.touchedDirs.add(e.lparent);
        rep.moved++;
      } else keepLocal(root, abs, 'left in staging by an interrupted run, not a placeholder', rep, disk);
    } catch (err) {
      rep.failed.push({ id: '', reason: `cannot recover ${abs}: ${(err as Error).message}` });
    }
  }
  return rep;
}
