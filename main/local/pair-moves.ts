/**
 * Step 3 of the local pipeline (watch -> analyse -> PAIR MOVES -> plan). Pure: takes the
 * model and the folders read from disk, decides what happened. A known inode (bigint string)
 * of the same kind at a new place is a move (a folder moves as ONE entry: its children keep
 * their parent id); a new inode where a placeholder was, same kind, is an editor's atomic
 * save (content replaced, never a delete); a disappearance with no twin is held `holdMs`
 * and carried to the next batch before it becomes a delete.
 */
import type { DirScan } from './analyse.js';
import { asDownloaded, type Kind, type LocalEntry, type LocalModel } from './model.js';

/** Names editors give the backup of a file they are saving. */
export const BACKUP = /(~|\.bak|\.orig|\.swp|\.tmp|\.backup)$|^\.#|^\.~/i;

/** Equal names, allowing for a filesystem that stores names decomposed (HFS+: NFD). */
export const sameName = (a: string, b: string): boolean => a === b || a.normalize('NFC') === b.normalize('NFC');

export interface Move {
  id: string;
  toParent: string;
  toName: string;
  reason: string;
}

export interface GoneCarry {
  id: string;
  since: number;
}

export interface PairResult {
  moves: Move[];
  /** Moved into a folder the NAS does not have (a local create): cannot be sent. */
  unsendable: { id: string; path: string }[];
  /** Same place, new inode (atomic save): keep the entry, new inode, maybe filled. */
  replaced: { id: string; ino: string; filled: boolean }[];
  /** Placeholder content changed: filled (size > 0) or emptied again. */
  filled: { id: string; filled: boolean }[];
  /** Gone past the hold: top-most ids only (a folder's descendants go with it). */
  deletes: string[];
  /** Gone, still within the hold: try again next batch. */
  carry: GoneCarry[];
  /**
   * Entries on disk the NAS does not have (local creates): `parent` is the id of the mirrored
   * folder holding it (undefined when that folder is not mirrored), `name` its name there.
   */
  localOnly: LocalOnlyFind[];
  /** Found at their place with another inode (or content state): the inode is re-read, nothing else (place mode). */
  rebound: { id: string; ino: string; filled: boolean }[];
  /** Gone, and one of the unpaired appearances could be it: held for the user, never guessed (place mode). */
  uncertain: { id: string; candidates: string[] }[];
  /** Each scanned folder the model knows, by the path it was read at (its stamp is kept). */
  folders: { path: string; id: string }[];
}

export interface LocalOnlyFind {
  path: string;
  kind: Kind | 'other';
  parent: string | undefined;
  name: string;
  /**
   * A new entry (an inode, or on a disk read by place an appearance, that no known entry can
   * be): the user made it, so it is created on the NAS. Not set for a hard link to a known
   * entry, or an appearance that may be a known entry changed (held: "renamed or deleted?").
   */
  fresh?: true;
}

export interface PairInput {
  model: LocalModel;
  scans: readonly DirScan[];
  carried: readonly GoneCarry[];
  now: number;
  holdMs: number;
  /** The file system's mtime granularity (ms): how far a placeholder's time may drift. */
  granularityMs?: number;
}

/**
 * Whether what the disk shows at a known inode's new place contradicts the entry it was: an
 * empty placeholder (NAS time) that now has content AND another time is a new file that got a
 * freed inode, or the placeholder renamed and written: the two cannot be told apart. (A folder
 * is not checked: one renamed while what it held was deleted looks like a new folder, and a
 * wrong guess there keeps an empty folder on the NAS, nothing more.)
 */
function contradicts(e: LocalEntry, c: { size: number; mtimeMs: number }, granularityMs: number): boolean {
  if (e.kind !== 'file' || e.filled || c.size === 0) return false;
  const t = Date.parse(e.mtime);
  return Number.isFinite(t) && Math.abs(c.mtimeMs - t) > Math.max(1, granularityMs) + 1;
}

export function pairMoves({ model, scans, carried, now, holdMs, granularityMs = 2000 }: PairInput): PairResult {
  const res: PairResult = {
    moves: [],
    unsendable: [],
    replaced: [],
    filled: [],
    deletes: [],
    carry: [],
    localOnly: [],
    rebound: [],
    uncertain: [],
    folders: [],
  };
  const seen = readScans(model, scans, res);
  pairKnown(model, seen, res, granularityMs);
  savesWithBackup(model, seen, res);
  const gone = goneFrom(model, seen, carried, res);
  holdOrDelete(model, seen, gone, { carried, now, holdMs }, res);
  for (const u of seen.unknown) res.localOnly.push({ path: u.path, kind: u.kind, parent: u.parent, name: u.name, fresh: true });
  deferMovesOntoHeldNames(model, res);
  return res;
}

/** An entry on disk no known entry is (yet): a local create, or the other half of an atomic save. */
interface Unknown {
  parent: string | undefined;
  path: string;
  name: string;
  ino: string;
  kind: Kind | 'other';
  size: number;
}

/** A known inode found away from its place: a move, unless something says otherwise. */
interface Candidate {
  id: string;
  parent: string | undefined;
  path: string;
  name: string;
  size: number;
  mtimeMs: number;
}

/** What the pairing found so far, step by step. */
interface Seen {
  /** Known entries found at their own place. */
  inPlace: Set<string>;
  /** Known entries found elsewhere and taken (moved, or held as uncertain). */
  moved: Set<string>;
  /** The mirrored folders read. */
  scannedParents: Set<string>;
  unknown: Unknown[];
  candidates: Candidate[];
}

/**
 * Reads the scans against the model: each folder read (`res.folders`), placeholders filled or
 * emptied in place (`res.filled`), and the entries found elsewhere or not known.
 */
function readScans(model: LocalModel, scans: readonly DirScan[], res: PairResult): Seen {
  const seen: Seen = { inPlace: new Set(), moved: new Set(), scannedParents: new Set(), unknown: [], candidates: [] };
  for (const s of scans) {
    const dirEntry = model.dirByIno(s.path, s.ino);
    const parent =
      s.path === ''
        ? dirEntry?.id === model.rootId
          ? model.rootId
          : undefined
        : dirEntry && dirEntry.kind === 'dir' && dirEntry.state === 'ok'
          ? dirEntry.id
          : undefined;
    if (parent !== undefined) {
      seen.scannedParents.add(parent);
      res.folders.push({ path: s.path, id: parent });
    }
    const here = parent === undefined ? undefined : model.placeLookup(parent);
    for (const d of s.entries) {
      const path = s.path === '' ? d.name : `${s.path}/${d.name}`;
      const e = model.byInoIn(here, d.name, d.ino);
      if (e && e.id !== model.rootId && e.kind === d.kind && e.state === 'ok') {
        if (parent !== undefined && e.lparent === parent && sameName(e.lname, d.name)) {
          seen.inPlace.add(e.id);
          // content the engine downloaded, as it left it (size, time, inode), is the NAS's, not the user's
          const f = e.kind === 'file' && d.size > 0 && !asDownloaded(e, d);
          if (f !== e.filled) res.filled.push({ id: e.id, filled: f });
        } else seen.candidates.push({ id: e.id, parent, path, name: d.name, size: d.size, mtimeMs: d.mtimeMs });
      } else if (parent !== undefined || s.path === '') {
        seen.unknown.push({ parent, path, name: d.name, ino: d.ino, kind: d.kind, size: d.size });
      }
    }
  }
  return seen;
}

/** Decides each known inode found elsewhere: a hard link, an uncertain disappearance, a move, or unsendable. */
function pairKnown(model: LocalModel, seen: Seen, res: PairResult, granularityMs: number): void {
  const { moved } = seen;
  // A known inode still at its own place is a hard link, not a move: the other path is local only.
  for (const c of seen.candidates) {
    if (seen.inPlace.has(c.id) || moved.has(c.id)) {
      res.localOnly.push({ path: c.path, kind: model.get(c.id)!.kind, parent: c.parent, name: c.name });
      continue;
    }
    const e = model.get(c.id)!;
    // An inode is evidence, not proof: a disk reuses a freed inode number at once (ext4), so a
    // placeholder deleted while a new file was written elsewhere shares its number. What the
    // inode says is checked against what else can be compared; when it contradicts, nothing is
    // guessed: the entry is held ("renamed or deleted?") and the new one is local only.
    if (contradicts(e, c, granularityMs)) {
      moved.add(c.id);
      res.uncertain.push({ id: c.id, candidates: [c.path] });
      res.localOnly.push({ path: c.path, kind: e.kind, parent: c.parent, name: c.name });
      continue;
    }
    moved.add(c.id);
    if (c.parent === undefined) res.unsendable.push({ id: c.id, path: c.path });
    else res.moves.push({ id: c.id, toParent: c.parent, toName: c.name, reason: `inode ${model.get(c.id)!.ino} matched (${e.kind})` });
  }
}

/**
 * Editors that keep a backup (vim: rename a -> a~, then write a new a): a file moved to a
 * backup-looking name in the same folder while a new file of the same kind took its old
 * name is a save, not a rename; the backup is local only.
 */
function savesWithBackup(model: LocalModel, seen: Seen, res: PairResult): void {
  const { unknown } = seen;
  for (let i = res.moves.length - 1; i >= 0; i--) {
    const m = res.moves[i]!;
    const e = model.get(m.id)!;
    if (e.kind !== 'file' || m.toParent !== e.lparent || !BACKUP.test(m.toName)) continue;
    const twin = unknown.findIndex((u) => u.parent === e.lparent && u.name === e.lname && u.kind === 'file');
    if (twin < 0) continue;
    const u = unknown.splice(twin, 1)[0]!;
    res.moves.splice(i, 1);
    res.replaced.push({ id: m.id, ino: u.ino, filled: u.size > 0 });
    const dir = model.pathOf(e.lparent);
    res.localOnly.push({ path: dir ? `${dir}/${m.toName}` : m.toName, kind: 'file', parent: e.lparent, name: m.toName });
  }
}

/**
 * What was in a scanned folder and is not there any more (a new inode at its name is an atomic
 * save: `res.replaced`), and what was carried and is still gone.
 */
function goneFrom(model: LocalModel, seen: Seen, carried: readonly GoneCarry[], res: PairResult): Set<string> {
  const { inPlace, moved, unknown } = seen;
  const gone = new Set<string>();
  for (const parent of seen.scannedParents) {
    for (const cid of model.children(parent)) {
      const c = model.get(cid)!;
      if (c.state !== 'ok' || c.ino === null || inPlace.has(cid) || moved.has(cid)) continue;
      const twin = unknown.findIndex((u) => u.parent === parent && sameName(u.name, c.lname) && u.kind === c.kind);
      if (twin >= 0) {
        const u = unknown.splice(twin, 1)[0]!;
        res.replaced.push({ id: cid, ino: u.ino, filled: c.kind === 'file' && u.size > 0 });
        continue;
      }
      gone.add(cid);
    }
  }
  for (const c of carried) {
    const e = model.get(c.id);
    if (!e || e.state !== 'ok' || moved.has(c.id) || inPlace.has(c.id)) continue;
    if (!seen.scannedParents.has(e.lparent))
      gone.add(c.id); // its folder vanished or was not re-read: still gone
    else if (gone.has(c.id)) continue;
  }
  return gone;
}

/** What is gone: carried while within its hold, a delete past it (top-most ids only). */
function holdOrDelete(
  model: LocalModel,
  seen: Seen,
  gone: ReadonlySet<string>,
  { carried, now, holdMs }: Pick<PairInput, 'carried' | 'now' | 'holdMs'>,
  res: PairResult,
): void {
  const since = new Map(carried.map((c) => [c.id, c.since]));
  const expired: string[] = [];
  for (const id of gone) {
    const t = since.get(id) ?? now;
    if (now - t >= holdMs) expired.push(id);
    else res.carry.push({ id, since: t });
  }
  // Top-most only: a descendant of a deleted folder goes with it, unless it (or a folder
  // between them) moved out.
  const exp = new Set(expired);
  for (const id of expired) {
    let anc = model.get(id)?.lparent;
    let covered = false;
    while (anc !== undefined && anc !== model.rootId && !seen.moved.has(anc)) {
      if (exp.has(anc)) {
        covered = true;
        break;
      }
      anc = model.get(anc)?.lparent;
    }
    if (!covered) res.deletes.push(id);
  }
}

/**
 * A move onto the name of an entry whose disappearance is still within its hold waits with it
 * (and a move onto the name of a move that waits, waits too): sent now, the NAS would refuse it
 * (409, the name is taken until the delete is sent) and it would end as a conflict. Its folder
 * is read again when the hold ends (the disappearance's folder), and then the delete and the
 * move go in one batch, the delete first.
 */
function deferMovesOntoHeldNames(model: LocalModel, res: PairResult): void {
  if (res.carry.length === 0 || res.moves.length === 0) return;
  const key = (parent: string, name: string): string => `${parent}\0${name.normalize('NFC')}`;
  const held = new Set<string>();
  for (const c of res.carry) {
    const e = model.get(c.id);
    if (e) held.add(key(e.lparent, e.lname));
  }
  for (let changed = true; changed;) {
    changed = false;
    res.moves = res.moves.filter((m) => {
      if (!held.has(key(m.toParent, m.toName))) return true;
      const e = model.get(m.id);
      if (e) held.add(key(e.lparent, e.lname)); // its own name stays taken meanwhile
      changed = true;
      return false;
    });
  }
}
