/**
 * The placeholder writer: carries out a RemotePlan on disk. Moves go through a staging
 * folder inside the mirror (`.nas-mirror/staging`) so swaps and moves into moved folders
 * always work, then land parents first; new folders are created, new files are zero-byte
 * with the NAS mTime. A removed placeholder is deleted only when it is still an empty
 * placeholder: filled files and anything the NAS never had go to the "local only" area.
 * Every path is checked to be inside the mirror root. The model is updated with each step,
 * so the watcher's view of these writes matches the stored state: never a user change.
 * Every file system call goes through the disk seam (`disk.ts`); a failing call leaves the
 * entry where it is (or puts it back) and is reported in `failed` with its errno.
 */
import type { BigIntStats } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseDate } from '../../app/model/dates.js';
import { lstatBig } from './analyse.js';
import { diskErrno, diskError, errnoOf, isAbsent, realDisk, type Disk } from './disk.js';
import { RESERVED_DIR } from './local-names.js';
import { UNVERIFIED_INO, type LocalEntry, type LocalModel } from './model.js';
import { childPath, safeDirOnDisk, safeJoinOnDisk } from './path-safety.js';
import type { Placement, RemotePlan } from './remote-plan.js';

export interface WriteReport {
  created: number;
  moved: number;
  removed: number;
  /** Paths (relative to the mirror) moved into the local-only area, with why. */
  keptLocal: { from: string; to: string; reason: string }[];
  /** Ids that could not be placed (target taken by a user's entry, fs error: `errno` when the disk refused). */
  failed: { id: string; reason: string; errno?: string | undefined }[];
  /** Folders (ids) whose entries this changed: their stamps must be taken again. */
  touchedDirs: Set<string>;
  /**
   * Folders (ids) where the disk changed and was not read yet (an entry's place holds another;
   * a placeholder found elsewhere): the local side reads them.
   */
  reread: Set<string>;
  /**
   * Inodes of entries the NAS deleted that were not at their place to be removed (renamed or
   * moved here, not read yet): wherever they are, they are not new entries of the user's.
   */
  tombstones: string[];
}

export const stagingDir = (root: string): string => join(root, RESERVED_DIR, 'staging');
export const localOnlyDir = (root: string): string => join(root, RESERVED_DIR, 'local-only');

let stageSeq = 0;

/**
 * Absolute path of an entry's current local placement, checked inside the root on disk;
 * undefined when it has none, or when a symbolic link would lead it outside the mirror
 * (then it is not ours to touch).
 */
export function absOf(
  root: string,
  model: LocalModel,
  id: string,
  realDirs?: Map<string, boolean>,
  disk: Disk = realDisk,
): string | undefined {
  const segs = model.segments(id);
  if (segs === undefined) return undefined;
  try {
    return safeJoinOnDisk(root, segs, realDirs, disk);
  } catch {
    return undefined;
  }
}

/**
 * A staged entry's name carries its object id (when short enough for a file name), so a run
 * killed mid-move finds what it staged by id, not by an inode another mount may have changed.
 */
export function stagedName(id: string): string {
  const enc = Buffer.from(id, 'utf8').toString('base64url');
  return enc.length <= 200 ? `${process.pid}-${++stageSeq}-i${enc}` : `${process.pid}-${++stageSeq}`;
}

/** The object id a staged name carries, if any. */
export function idOfStaged(name: string): string | undefined {
  const m = /^\d+-\d+-i([A-Za-z0-9_-]+)$/.exec(name);
  return m ? Buffer.from(m[1]!, 'base64url').toString('utf8') : undefined;
}

export function writePlaceholders(root: string, model: LocalModel, plan: RemotePlan, disk: Disk = realDisk): WriteReport {
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
  disk.mkdir(stagingDir(root), true);
  const run: WriteRun = { root, model, disk, rep, staged: new Map(), missing: new Set() };
  // a. Stage moves, deepest first (a child must leave before its moving parent does);
  //    those inside a subtree the NAS deleted go first, so the removal cannot take them.
  const moving = plan.placements.filter((p) => p.how === 'move').map((p) => p.id);
  const inRemoved = (id: string): boolean => plan.removals.some((r) => r !== id && model.isUnder(id, r));
  stage(run, moving.filter(inRemoved));
  // b. Removals, where they are now (inside a staged folder, if one above them moved).
  for (const id of plan.removals) removeNow(run, id);
  // c. The other moves.
  stage(
    run,
    moving.filter((id) => !run.staged.has(id) && model.get(id) !== undefined && !inRemovedNow(model, id)),
  );
  // c. Placements, parents first. Each parent's path is resolved and checked once (not per
  //    child); a new placeholder is created exclusively (`wx` / mkdir), so the common case
  //    costs one create (+ times + fstat) and only a taken name pays for a look first.
  const parents = new ParentPaths(run);
  for (const p of plan.placements) place(run, parents, p);
  // d. mtimes of files the NAS changed.
  touchTimes(run, plan.touch);
  return rep;
}

/** One run of the writer: the mirror, the model, the disk, its report, and what it staged so far. */
interface WriteRun {
  root: string;
  model: LocalModel;
  disk: Disk;
  rep: WriteReport;
  /** Entries moved into staging: id -> their path there. */
  staged: Map<string, string>;
  /** Moves whose entry was not where the model has it (perhaps already moved by a run killed before it wrote its state). */
  missing: Set<string>;
}

/** Moves these entries into staging, deepest first, each only when it is the entry the mirror placed there. */
function stage(run: WriteRun, ids: readonly string[]): void {
  const { root, model, disk, rep } = run;
  const order = ids.map((id) => ({ id, depth: model.segments(id)?.length ?? 0 })).sort((x, y) => y.depth - x.depth);
  for (const { id } of order) {
    const from = absOf(root, model, id, undefined, disk);
    if (!from) continue;
    const to = join(stagingDir(root), stagedName(id));
    // What is at its place must be the entry itself: the user may have changed the disk there
    // while the engine was stopped, not read yet (two files that traded names, one then
    // deleted: the NAS renaming one must not carry the other's file along; soak seed 6000)
    const known = model.get(id)?.ino;
    const at = known !== null && known !== undefined && known !== UNVERIFIED_INO ? lstatBig(from, disk) : undefined;
    if (at && at.ino.toString() !== known) {
      rep.failed.push({
        id,
        reason: `${from} is not the entry the mirror placed there (changed on disk, not read yet): left as it is, read again`,
      });
      rep.reread.add(model.get(id)!.lparent);
      continue;
    }
    try {
      disk.rename(from, to);
      run.staged.set(id, to);
      rep.touchedDirs.add(model.get(id)!.lparent);
    } catch (e) {
      rep.failed.push({ id, reason: `cannot move ${from}: ${(e as Error).message}`, errno: diskErrno(e) });
      if (isAbsent(e)) run.missing.add(id);
    }
  }
}

/** Where an entry is now: inside a staged folder, if one above it moved; else at its place. */
function whereNow(run: WriteRun, id: string): string | undefined {
  const { model } = run;
  const rel: string[] = [];
  for (let cur: string | undefined = id; cur !== undefined && cur !== model.rootId; cur = model.get(cur)?.lparent) {
    const st = run.staged.get(cur);
    if (st) return join(st, ...rel);
    const e = model.get(cur);
    if (!e) return undefined;
    rel.unshift(e.lname);
  }
  return absOf(run.root, model, id, undefined, run.disk);
}

/** Removes what the NAS deleted (an entry, with what is below it and not staged) from the disk and the model. */
function removeNow(run: WriteRun, id: string): void {
  const { root, model, disk, rep, staged } = run;
  const abs = whereNow(run, id);
  const sub = [id, ...model.descendants(id)].filter((d) => ![...staged.keys()].some((st) => model.isUnder(d, st)));
  const known = new Map<string, string>();
  for (const s of sub) {
    const e = model.get(s);
    if (e?.ino) known.set(e.ino, e.kind);
  }
  const failedBefore = rep.failed.length;
  const gone = new Set<string>();
  const ours = (ino: string): string | undefined => {
    const e = model.byIno(ino);
    return e && e.state === 'ok' ? model.pathOf(e.id) : undefined;
  };
  if (abs && model.get(id)?.ino) removeTree(root, abs, known, rep, disk, gone, ours);
  for (const ino of known.keys()) if (!gone.has(ino) && ino !== UNVERIFIED_INO) rep.tombstones.push(ino);
  rep.touchedDirs.add(model.get(id)!.lparent);
  if (rep.failed.length === failedBefore) {
    for (const s of sub) model.remove(s);
    rep.removed++;
    return;
  }
  // the disk refused part of it: the model forgets only what left the disk, the rest stays
  // (never read as the user's delete) and the removal is tried again later
  for (const f of rep.failed.slice(failedBefore)) if (f.id === '') f.id = id;
  const left = (s: string): boolean => {
    for (let cur: string | undefined = s; cur !== undefined; cur = cur === id ? undefined : model.get(cur)?.lparent) {
      const i = model.get(cur)?.ino;
      if (i && gone.has(i)) return true;
    }
    return false;
  };
  for (const s of sub.filter(left).reverse()) model.remove(s);
}

/** Each folder's absolute path, resolved and checked inside the mirror once (null: not on disk). */
class ParentPaths {
  private readonly realDirs = new Map<string, boolean>();
  private readonly paths = new Map<string, string | null>();

  constructor(private readonly run: WriteRun) {}

  /** The folder's path on disk, or null when it is not there (or not ours). */
  of(id: string): string | null {
    const { root, model, disk } = this.run;
    let a = this.paths.get(id);
    if (a === undefined) {
      const segs = model.segments(id);
      a = null;
      if (segs && (id === model.rootId || model.get(id)?.ino != null)) {
        try {
          // the folder itself must resolve inside the mirror (a symlink planted in its place cannot lead out)
          a = safeDirOnDisk(root, segs, this.realDirs, disk);
        } catch {
          a = null;
        }
      }
      this.paths.set(id, a);
    }
    return a;
  }

  /** A folder just placed at `abs`: its children go there. */
  set(id: string, abs: string): void {
    this.paths.set(id, abs);
  }
}

/** Places one entry: creates its placeholder, or lands its staged move, under its folder. */
function place(run: WriteRun, parents: ParentPaths, p: Placement): void {
  const { root, model, disk, rep, staged } = run;
  const e = model.get(p.id);
  if (!e) return;
  const landed = p.how === 'move' && !staged.has(p.id) && run.missing.has(p.id);
  if (p.how === 'move' && !staged.has(p.id) && !landed) return;
  const dir = parents.of(p.parent);
  if (dir === null) {
    rep.failed.push({ id: p.id, reason: 'its folder is not on disk' });
    if (staged.has(p.id)) unstage(root, model, p.id, staged.get(p.id)!, rep, disk);
    return;
  }
  let target: string;
  try {
    target = childPath(dir, p.name);
  } catch (err) {
    rep.failed.push({ id: p.id, reason: (err as Error).message });
    return;
  }
  if (landed) {
    takeLanded(run, parents, p, e, target);
    return;
  }
  const put = putAt(run, p, e, target);
  if (put === undefined) return;
  model.place(p.id, p.parent, p.name, put.ino ?? null);
  rep.touchedDirs.add(p.parent);
  if (e.kind === 'dir') {
    parents.set(p.id, target);
    rep.touchedDirs.add(p.id);
  }
  if (p.how === 'move') rep.moved++;
  else rep.created++;
}

/**
 * A move whose entry was missing from its place: when it is already at its new place with its
 * inode (the killed run renamed it, its state did not follow), it is taken as moved.
 */
function takeLanded(run: WriteRun, parents: ParentPaths, p: Placement, e: LocalEntry, target: string): void {
  const { model, rep } = run;
  let st;
  try {
    st = lstatBig(target, run.disk);
  } catch {
    st = undefined;
  }
  if (st === undefined || st.ino.toString() !== e.ino) return;
  rep.failed = rep.failed.filter((f) => f.id !== p.id);
  model.place(p.id, p.parent, p.name, e.ino);
  rep.touchedDirs.add(p.parent);
  if (e.kind === 'dir') parents.set(p.id, target);
  rep.moved++;
}

/**
 * Puts the entry at `target` on disk: a new placeholder, or its staged move landed; a name
 * taken by the user's entry is cleared first. Its inode (undefined when it cannot be read), or
 * undefined when it was not placed (said in `failed`; a staged entry goes back).
 */
function putAt(run: WriteRun, p: Placement, e: LocalEntry, target: string): { ino: string | undefined } | undefined {
  const { root, model, disk, rep, staged } = run;
  let ino: string | undefined;
  try {
    ino = p.how === 'create' ? createPlaceholder(target, e.kind, e.mtime, disk) : undefined;
    if (ino === undefined) {
      // a move, or a create that found its name taken: look at what is there first
      const existing = lstatBig(target, disk);
      if (existing) {
        const other = model.byIno(existing.ino.toString());
        if (other) {
          // Another mirrored entry is still there: never move a tracked placeholder aside.
          rep.failed.push({ id: p.id, reason: `${target} is still taken by another placeholder` });
          // Not where the model has it: the user moved it here, not read yet (news lost, or
          // not come yet). Both folders are read, so the move is taken in (soak seed 8003).
          if (absOf(root, model, other.id, undefined, disk) !== target) rep.reread.add(other.lparent).add(p.parent);
          if (staged.has(p.id)) unstage(root, model, p.id, staged.get(p.id)!, rep, disk);
          return undefined;
        }
        // An empty entry of the same kind (ours, from a run killed right after creating it, or
        // the user's): adopted, nothing to keep. Anything else is the user's: kept, aside.
        if (p.how === 'create' && emptyTwin(target, existing, e.kind, disk)) ino = existing.ino.toString();
        else keepLocal(root, target, 'a NAS entry needed its name', rep, disk);
      }
      if (ino === undefined && p.how === 'move') {
        disk.rename(staged.get(p.id)!, target);
        ino = lstatBig(target, disk)?.ino.toString();
      } else if (ino === undefined) ino = createPlaceholder(target, e.kind, e.mtime, disk);
    }
  } catch (err) {
    rep.failed.push({ id: p.id, reason: `cannot place ${target}: ${(err as Error).message}`, errno: diskErrno(err) });
    // a staged entry that cannot land goes back (or is forgotten): never left in staging to read as a delete
    if (staged.has(p.id)) unstage(root, model, p.id, staged.get(p.id)!, rep, disk);
    return undefined;
  }
  return { ino };
}

/** Sets the NAS time on the files the NAS changed (not on content of the user's, nor an older version kept). */
function touchTimes(run: WriteRun, ids: readonly string[]): void {
  const { root, model, disk, rep } = run;
  for (const id of ids) {
    const e = model.get(id);
    const abs = e?.ino ? absOf(root, model, id, undefined, disk) : undefined;
    const ms = e ? parseDate(e.mtime) : undefined;
    // a kept file holding an older NAS version keeps its time until the new one replaces it
    // (its time is part of how the engine tells its own download from the user's edit)
    const olderVersion = e?.content !== undefined && e.content.nasMtime !== e.mtime;
    if (abs && ms !== undefined && !e!.filled && !olderVersion) {
      try {
        disk.utimes(abs, ms);
      } catch (err) {
        // gone meanwhile: the watcher will tell; any other error is said (the mtime is set again next time)
        if (!isAbsent(err))
          rep.failed.push({ id, reason: `cannot set the NAS time on ${abs}: ${(err as Error).message}`, errno: diskErrno(err) });
      }
    }
  }
}

/**
 * Creates an empty placeholder exclusively: a folder, or a zero-byte file carrying the NAS
 * mTime. Its inode (decimal string), or undefined when the name is taken (EEXIST).
 */
export function createPlaceholder(target: string, kind: 'dir' | 'file', mtime: string, disk: Disk = realDisk): string | undefined {
  try {
    if (kind === 'dir') {
      disk.mkdir(target);
      return disk.lstat(target).ino.toString();
    }
    return disk.createFile(target, parseDate(mtime)).toString();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw e;
  }
}

/** True when `existing` at `abs` is an empty entry of this kind (a zero-byte file, a folder without entries). */
function emptyTwin(abs: string, existing: BigIntStats, kind: 'dir' | 'file', disk: Disk): boolean {
  if (kind === 'file') return existing.isFile() && existing.size === 0n;
  if (!existing.isDirectory()) return false;
  try {
    return disk.readdir(abs).length === 0;
  } catch {
    return false;
  }
}

/** True when an ancestor of `id` left the model (removed with its subtree). */
function inRemovedNow(model: LocalModel, id: string): boolean {
  return model.segments(id) === undefined;
}

/** Deletes a subtree of empty placeholders; everything else goes to the local-only area. */
export function removeTree(
  root: string,
  abs: string,
  known: ReadonlyMap<string, string>,
  rep: WriteReport,
  disk: Disk = realDisk,
  gone = new Set<string>(),
  ours?: (ino: string) => string | undefined,
): void {
  let st;
  try {
    st = lstatBig(abs, disk);
  } catch (e) {
    // a disk error (not absence): left as it is, said; never half a plan
    rep.failed.push({ id: '', reason: `not removed: ${(e as Error).message}`, errno: diskErrno(e) });
    return;
  }
  if (!st) return;
  const ino = st.ino.toString();
  if (st.isDirectory() && known.get(ino) === 'dir') {
    let names: string[];
    try {
      names = disk.readdir(abs);
    } catch (e) {
      // unreadable (EIO, EACCES...): left as it is, said; never removed blind
      if (!isAbsent(e)) rep.failed.push({ id: '', reason: `not removed: ${diskError('readdir', abs, e).message}`, errno: errnoOf(e) });
      return;
    }
    const failedBefore = rep.failed.length;
    for (const n of names) removeTree(root, join(abs, n), known, rep, disk, gone, ours);
    if (rep.failed.length > failedBefore) return; // a child stayed: so does its folder
    try {
      disk.rmdir(abs);
      gone.add(ino);
    } catch (e) {
      if (errnoOf(e) !== 'ENOTEMPTY' && errnoOf(e) !== 'EEXIST') {
        rep.failed.push({ id: '', reason: `not removed: ${diskError('rmdir', abs, e).message}`, errno: errnoOf(e) });
        return;
      }
      asideOrSay(root, abs, ino, 'a folder the NAS deleted still held local-only content', rep, disk, gone);
    }
    return;
  }
  if (st.isFile() && known.get(ino) === 'file' && st.size === 0n) {
    try {
      disk.unlink(abs);
      gone.add(ino);
    } catch (e) {
      if (isAbsent(e)) gone.add(ino);
      else rep.failed.push({ id: '', reason: `not removed: ${diskError('unlink', abs, e).message}`, errno: errnoOf(e) });
    }
    return;
  }
  // An entry of the mirror moved in here by the user, not yet taken in (its move is read next):
  // never taken for local-only content and put aside (its disappearance would read as a delete
  // of it); it stays, and so does the folder, removed once that move is answered.
  const mine = known.has(ino) ? undefined : ours?.(ino);
  if (mine !== undefined) {
    rep.failed.push({
      id: '',
      reason: `not removed yet: it holds ${mine}, moved in here and not sent yet; removed once that move is answered`,
    });
    return;
  }
  asideOrSay(
    root,
    abs,
    ino,
    known.has(ino)
      ? 'the NAS deleted it but the placeholder holds local content'
      : 'not on the NAS (local only) inside a folder the NAS deleted',
    rep,
    disk,
    gone,
  );
}

/** keepLocal; a disk that refuses it leaves the entry where it is, said in `failed`. */
function asideOrSay(root: string, abs: string, ino: string, reason: string, rep: WriteReport, disk: Disk, gone: Set<string>): void {
  try {
    keepLocal(root, abs, reason, rep, disk);
    gone.add(ino);
  } catch (e) {
    rep.failed.push({ id: '', reason: `not moved to the local-only area: ${diskError('rename', abs, e).message}`, errno: errnoOf(e) });
  }
}

/** Moves a path into `.nas-mirror/local-only/<stamp>/<its relative path>`. */
export function keepLocal(root: string, abs: string, reason: string, rep: WriteReport, disk: Disk = realDisk): void {
  const rel = abs.slice(root.length + 1);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const to = join(localOnlyDir(root), stamp, rel);
  disk.mkdir(dirname(to), true);
  disk.rename(abs, to);
  rep.keptLocal.push({ from: rel, to: to.slice(root.length + 1), reason });
}

/**
 * A staged placeholder that cannot land: back where it was if possible; otherwise the model
 * forgets its inode (so it is placed again later, never read as a delete) and the staged
 * copy goes (an empty placeholder) or is kept local (anything else).
 */
export function unstage(root: string, model: LocalModel, id: string, staged: string, rep: WriteReport, disk: Disk): void {
  try {
    const back = absOf(root, model, id, undefined, disk);
    if (back && !lstatBig(back, disk)) {
      disk.rename(staged, back);
      return;
    }
  } catch {
    // fall through
  }
  const e = model.get(id);
  const known = new Map<string, string>();
  for (const d of [id, ...model.descendants(id)]) {
    const x = model.get(d);
    if (x?.ino) known.set(x.ino, x.kind);
    model.update(d, { ino: null });
  }
  removeTree(root, staged, known, rep, disk);
  if (e) rep.failed.push({ id, reason: 'placed again later' });
}
