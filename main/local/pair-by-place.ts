/**
 * Step 3 of the local pipeline when the disk's file ids cannot be trusted (the mirror is on
 * exFAT or FAT, was restored from a copy, or its mount changed: `volume.ts`). Pure, like
 * `pair-moves.ts`, with the same result, but identity comes from PLACE, never from an inode:
 *
 * - An entry found at its recorded place (its folder, found the same way, + its name) with its
 *   kind is the same entry, whatever its inode: the inode is re-read (`rebound`), nothing sent.
 * - What is left is paired only when everything that can be compared agrees, and exactly one
 *   candidate does on both sides (rclone takes the first match; we refuse ambiguity):
 *   a folder by its contents (the names inside it: a renamed folder keeps them), a placeholder
 *   by kind, size (0) and the NAS time it was given (to the file system's granularity), with
 *   the name deciding between equal candidates (a move keeps it).
 * - A disappearance that could still be one of the unpaired appearances is never guessed:
 *   it is `uncertain` (held for the user: "renamed to Y, or deleted?"), never a delete or a move.
 *   Only a disappearance with no possible twin anywhere in the scan is a delete.
 *
 * It expects a full scan (every folder): an appearance outside the scanned folders cannot be
 * ruled out otherwise. Nothing is carried: a full scan sees both halves of every change.
 */
import type { DirScan, DiskEntry } from './analyse.js';
import type { LocalEntry, LocalModel } from './model.js';
import type { PairResult } from './pair-moves.js';

export interface PlaceInput {
  model: LocalModel;
  scans: readonly DirScan[];
  /** The file system's mtime granularity in ms (FAT: 2000, exFAT: 10 or 1000). */
  granularityMs: number;
  /** Why inodes are not trusted now, for the reasons the activity log gives. */
  why: string;
}

interface Appearance {
  parent: string | undefined;
  path: string;
  name: string;
  d: DiskEntry;
}

const nfc = (s: string): string => s.normalize('NFC');
const join = (dir: string, name: string): string => (dir === '' ? name : `${dir}/${name}`);
const split = (path: string): [string, string] => { const i = path.lastIndexOf('/'); return i < 0 ? ['', path] : [path.slice(0, i), path.slice(i + 1)]; };

/** How far a folder's contents must agree (shared names / all names) to be the same folder. */
const FOLDER_MATCH = 0.75;

export function pairByPlace({ model, scans, granularityMs, why }: PlaceInput): PairResult {
  const byPath = new Map(scans.map((s) => [s.path, s]));
  /** Folders paired by their contents: the path they are at now -> their id. */
  const movedTo = new Map<string, string>();
  const movedIds = new Set<string>();
  let pass = placePass(model, scans, movedTo, movedIds);
  // Pair folders by contents; their insides then resolve by place, which may pair folders below.
  for (let guard = 0; guard < 64; guard++) {
    const found = pairFolders(model, pass, byPath);
    if (found.length === 0) break;
    for (const [path, id] of found) { movedTo.set(path, id); movedIds.add(id); }
    pass = placePass(model, scans, movedTo, movedIds);
  }

  const res: PairResult = { moves: [], unsendable: [], replaced: [], filled: [], deletes: [], carry: [], localOnly: [], rebound: pass.rebound, uncertain: [], folders: pass.folders };
  for (const [path, id] of movedTo) {
    const [dir, name] = split(path);
    const parent = pass.resolved.get(dir);
    if (parent === undefined) res.unsendable.push({ id, path });
    else res.moves.push({ id, toParent: parent, toName: name, reason: `same contents at a new place (${why})` });
  }

  // Placeholders: kind, size 0 and the NAS time agree, one candidate each way.
  const goneFiles = pass.gone.filter((e) => e.kind === 'file' && !movedIds.has(e.id));
  const newFiles = pass.unknown.filter((u) => u.d.kind === 'file');
  const tol = Math.max(1, granularityMs) + 1;
  const agrees = (e: LocalEntry, u: Appearance): boolean => {
    if (e.filled || u.d.size !== 0) return false; // content the NAS does not have: no evidence to compare
    const t = Date.parse(e.mtime);
    return Number.isFinite(t) && Math.abs(u.d.mtimeMs - t) <= tol;
  };
  const best = <T extends { name: string }>(cands: T[], name: string): T | undefined => {
    if (cands.length === 1) return cands[0];
    const same = cands.filter((c) => nfc(c.name) === nfc(name));
    return same.length === 1 ? same[0] : undefined;
  };
  const taken = new Set<Appearance>();
  const pairedFiles = new Set<string>();
  for (const e of goneFiles) {
    const u = best(newFiles.filter((x) => agrees(e, x)), e.lname);
    if (!u || taken.has(u)) continue;
    const back = best(goneFiles.filter((x) => agrees(x, u)).map((x) => ({ name: x.lname, e: x })), u.name);
    if (back?.e !== e) continue;
    taken.add(u);
    pairedFiles.add(e.id);
    res.rebound.push({ id: e.id, ino: u.d.ino, filled: false });
    res.moves.push({ id: e.id, toParent: u.parent!, toName: u.name, reason: `same kind, size and time, the only candidate (${why})` });
  }

  // What is still gone: a delete only when nothing unpaired could be it.
  const left = pass.unknown.filter((u) => !taken.has(u));
  for (const e of pass.gone) {
    if (movedIds.has(e.id) || pairedFiles.has(e.id)) continue;
    const could = left.filter((u) => u.d.kind === e.kind);
    if (could.length === 0) { res.deletes.push(e.id); continue; }
    const likely = e.kind === 'file' ? could.filter((u) => agrees(e, u)) : could;
    res.uncertain.push({ id: e.id, candidates: (likely.length ? likely : could).slice(0, 3).map((u) => u.path) });
  }
  for (const u of left) res.localOnly.push({ path: u.path, kind: u.d.kind, parent: u.parent, name: u.name });
  return res;
}

interface Pass {
  /** Folder path -> its id, for every scanned folder that resolved. */
  resolved: Map<string, string>;
  folders: { path: string; id: string }[];
  rebound: PairResult['rebound'];
  /** Appearances in resolved folders that no entry claims by place. */
  unknown: Appearance[];
  /** Entries of resolved folders not found at their place. */
  gone: LocalEntry[];
}

/** One reading of the scans by place, with the folders paired so far at their new paths. */
function placePass(model: LocalModel, scans: readonly DirScan[], movedTo: ReadonlyMap<string, string>, movedIds: ReadonlySet<string>): Pass {
  const resolved = new Map<string, string>();
  const root = model.get(model.rootId);
  if (root) resolved.set('', root.id);
  const out: Pass = { resolved, folders: [], rebound: [], unknown: [], gone: [] };
  const seen = new Set<string>();
  const childByName = (parent: string, name: string): LocalEntry | undefined => {
    for (const k of model.children(parent)) {
      const e = model.get(k);
      if (e && e.state === 'ok' && e.ino !== null && !movedIds.has(e.id) && nfc(e.lname) === nfc(name)) return e;
    }
    return undefined;
  };
  // scans come sorted by depth (analyse.ts), so a folder's parent resolves first
  for (const s of scans) {
    let id: string | undefined;
    if (s.path === '') id = root?.id;
    else {
      id = movedTo.get(s.path);
      if (id === undefined) {
        const [dir, name] = split(s.path);
        const p = resolved.get(dir);
        const e = p === undefined ? undefined : childByName(p, name);
        id = e?.kind === 'dir' ? e.id : undefined;
      }
    }
    if (id === undefined) continue; // inside a folder the NAS does not have: that folder is the local-only entry
    resolved.set(s.path, id);
    out.folders.push({ path: s.path, id });
    if (id === model.rootId && root && root.ino !== s.ino) out.rebound.push({ id, ino: s.ino, filled: false });
    const here = new Map<string, LocalEntry>();
    for (const k of model.children(id)) {
      const e = model.get(k);
      if (e && e.state === 'ok' && e.ino !== null && !movedIds.has(e.id)) here.set(nfc(e.lname), e);
    }
    for (const d of s.entries) {
      const path = join(s.path, d.name);
      const e = here.get(nfc(d.name));
      if (e && e.kind === d.kind && !seen.has(e.id)) {
        seen.add(e.id);
        const filled = e.kind === 'file' && d.size > 0;
        if (e.ino !== d.ino || e.filled !== filled) out.rebound.push({ id: e.id, ino: d.ino, filled });
        continue;
      }
      const moved = movedTo.get(path);
      if (moved !== undefined && model.get(moved)?.kind === d.kind) {
        seen.add(moved);
        if (model.get(moved)!.ino !== d.ino) out.rebound.push({ id: moved, ino: d.ino, filled: false });
        continue;
      }
      out.unknown.push({ parent: id, path, name: d.name, d });
    }
    for (const e of here.values()) if (!seen.has(e.id)) out.gone.push(e);
  }
  return out;
}

/** Gone folders and appeared folders whose contents agree, one candidate each way: new path -> id. */
function pairFolders(model: LocalModel, pass: Pass, byPath: ReadonlyMap<string, DirScan>): [string, string][] {
  const gone = pass.gone.filter((e) => e.kind === 'dir');
  const appeared = pass.unknown.filter((u) => u.d.kind === 'dir');
  if (!gone.length || !appeared.length) return [];
  const namesOf = (id: string): Set<string> => {
    const s = new Set<string>();
    for (const k of model.children(id)) { const c = model.get(k); if (c && c.state === 'ok' && c.ino !== null) s.add(nfc(c.lname)); }
    return s;
  };
  const score = (a: Set<string>, b: Set<string>): number => {
    if (a.size === 0 && b.size === 0) return 0;
    let both = 0;
    for (const n of a) if (b.has(n)) both++;
    return both / (a.size + b.size - both);
  };
  const goneNames = new Map(gone.map((g) => [g.id, namesOf(g.id)]));
  const newNames = new Map(appeared.map((u) => [u.path, new Set((byPath.get(u.path)?.entries ?? []).map((d) => nfc(d.name)))]));
  const agree = (g: LocalEntry, u: Appearance): boolean => {
    const a = goneNames.get(g.id)!;
    const b = newNames.get(u.path)!;
    // an empty folder has only its name to go by: moved with it, it is the same folder
    if (a.size === 0 && b.size === 0) return nfc(g.lname) === nfc(u.name);
    return score(a, b) >= FOLDER_MATCH;
  };
  const out: [string, string][] = [];
  for (const g of gone) {
    const cands = appeared.filter((u) => agree(g, u));
    if (cands.length !== 1) continue;
    const u = cands[0]!;
    if (gone.filter((x) => agree(x, u)).length !== 1) continue;
    out.push([u.path, g.id]);
  }
  return out;
}

