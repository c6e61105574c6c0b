/**
 * Step 3 of the local pipeline when the disk's file ids cannot be trusted (the mirror is on
 * exFAT or FAT, was restored from a copy, or its mount changed: `volume.ts`). Pure, like
 * `pair-moves.ts`, with the same result, but identity comes from PLACE, never from an inode:
 *
 * - An entry found at its recorded place (its folder, found the same way, + its name) with its
 *   kind is the same entry, whatever its inode: the inode is re-read (`rebound`), nothing sent.
 * - What is left is paired only when everything that can be compared agrees, and exactly one
 *   candidate does on both sides (rclone takes the first match; we refuse ambiguity):
 *   a folder by its contents (the names inside it: a renamed folder keeps most of them), a placeholder
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
import { asDownloaded, type LocalEntry, type LocalModel } from './model.js';
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
const split = (path: string): [string, string] => {
  const i = path.lastIndexOf('/');
  return i < 0 ? ['', path] : [path.slice(0, i), path.slice(i + 1)];
};

/** How much of a folder's contents (its names) must be found in another for it to be the same folder. */
const FOLDER_MATCH = 0.75;

export function pairByPlace({ model, scans, granularityMs, why }: PlaceInput): PairResult {
  const byPath = new Map(scans.map((s) => [s.path, s]));
  /** How far a placeholder's time may be from the NAS time it was given: the file system's granularity. */
  const tol = Math.max(1, granularityMs) + 1;
  const paired = pairFoldersByContents(model, scans, byPath, tol);
  const { pass } = paired;

  const res: PairResult = {
    moves: [],
    unsendable: [],
    replaced: [],
    filled: [],
    deletes: [],
    carry: [],
    localOnly: [],
    rebound: pass.rebound,
    uncertain: [],
    folders: pass.folders,
  };
  for (const [path, id] of paired.movedTo) {
    const [dir, name] = split(path);
    const parent = pass.resolved.get(dir);
    if (parent === undefined) res.unsendable.push({ id, path });
    else res.moves.push({ id, toParent: parent, toName: name, reason: `same contents at a new place (${why})` });
  }
  pairPlaceholders(model, paired, tol, why, res);

  // What is still gone: a delete only when nothing unpaired could be it.
  const left = pass.unknown.filter((u) => !paired.taken.has(u));
  stillGone(model, paired, left, tol, res);
  for (const u of left) res.localOnly.push({ path: u.path, kind: u.d.kind, parent: u.parent, name: u.name, fresh: true });
  return res;
}

/** The pairing so far: the last reading by place, and what it paired beyond place. */
interface Paired {
  pass: Pass;
  /** Folders paired by their contents: the path they are at now -> their id. */
  movedTo: Map<string, string>;
  movedIds: Set<string>;
  /** Appearances a placeholder was paired with. */
  taken: Set<Appearance>;
  /** Placeholders paired with an appearance (their ids). */
  pairedFiles: Set<string>;
}

/** Pairs folders by contents; their insides then resolve by place, which may pair folders below. */
function pairFoldersByContents(model: LocalModel, scans: readonly DirScan[], byPath: ReadonlyMap<string, DirScan>, tol: number): Paired {
  const movedTo = new Map<string, string>();
  const movedIds = new Set<string>();
  const ix = scanIndex(scans, byPath, tol);
  let pass = placePass(model, scans, movedTo, movedIds, ix);
  for (let guard = 0; guard < 64; guard++) {
    // the top-most gone folders first: once one is found, what is inside it resolves by place,
    // which is better evidence than contents; folders below them only when that finds nothing
    let found = pairFolders(model, pass, byPath, [], tol);
    if (found.length === 0) found = pairFolders(model, pass, byPath, hiddenBelow(model, pass.gone, movedIds), tol);
    if (found.length === 0) break;
    for (const [path, id] of found) {
      movedTo.set(path, id);
      movedIds.add(id);
    }
    pass = placePass(model, scans, movedTo, movedIds, ix);
  }
  return { pass, movedTo, movedIds, taken: new Set(), pairedFiles: new Set() };
}

/**
 * Whether an appearance agrees with a placeholder: a placeholder is empty, a download the
 * engine left has its recorded size (the user's own content, which the NAS does not have, is
 * no evidence to compare), and its time is the NAS time it was given.
 */
function agrees(e: LocalEntry, u: Appearance, tol: number): boolean {
  if (e.filled || u.d.size !== (e.content?.size ?? 0)) return false;
  const t = Date.parse(e.mtime);
  return Number.isFinite(t) && Math.abs(u.d.mtimeMs - t) <= tol;
}

/** The one candidate, or among several the only one with this name. */
function best<T extends { name: string }>(cands: T[], name: string): T | undefined {
  if (cands.length === 1) return cands[0];
  const same = cands.filter((c) => nfc(c.name) === nfc(name));
  return same.length === 1 ? same[0] : undefined;
}

/**
 * Placeholders: kind, size 0 and the NAS time agree, one candidate each way. What was in a
 * folder that is gone is gone from its place too: a candidate (moved out before the folder went).
 */
function pairPlaceholders(model: LocalModel, paired: Paired, tol: number, why: string, res: PairResult): void {
  const { pass, movedIds, taken, pairedFiles } = paired;
  const goneFiles = [...pass.gone, ...hiddenBelow(model, pass.gone, movedIds)].filter((e) => e.kind === 'file' && !movedIds.has(e.id));
  const newFiles = pass.unknown.filter((u) => u.d.kind === 'file');
  // by time, so a mass change (thousands gone, thousands new) compares neighbours only
  const newByTime = new TimeBuckets<Appearance>(tol, (u) => u.d.mtimeMs);
  for (const u of newFiles) newByTime.add(u);
  const goneByTime = new TimeBuckets<LocalEntry>(tol, (e) => (e.filled ? undefined : Date.parse(e.mtime)));
  for (const e of goneFiles) goneByTime.add(e);
  for (const e of goneFiles) {
    const u = best(
      newByTime.near(Date.parse(e.mtime)).filter((x) => agrees(e, x, tol)),
      e.lname,
    );
    if (!u || taken.has(u)) continue;
    const back = best(
      goneByTime
        .near(u.d.mtimeMs)
        .filter((x) => agrees(x, u, tol))
        .map((x) => ({ name: x.lname, e: x })),
      u.name,
    );
    if (back?.e !== e) continue;
    taken.add(u);
    pairedFiles.add(e.id);
    res.rebound.push({ id: e.id, ino: u.d.ino, filled: false });
    res.moves.push({ id: e.id, toParent: u.parent!, toName: u.name, reason: `same kind, size and time, the only candidate (${why})` });
  }
}

/**
 * What is still gone (not paired): uncertain while anything unpaired (`left`, or what is inside
 * folders that did not resolve) could be it, a delete otherwise.
 */
function stillGone(model: LocalModel, paired: Paired, left: readonly Appearance[], tol: number, res: PairResult): void {
  const { pass, movedTo, movedIds, taken, pairedFiles } = paired;
  const anywhere = [...left, ...pass.orphans];
  // a folder found by its contents may have taken another's (everything moved from one folder
  // to another, both renamed): a gone folder is deleted only when no folder appeared at all
  const anyDirs = [...anywhere.filter((u) => u.d.kind === 'dir').map((u) => u.path), ...movedTo.keys()].slice(0, 3);
  // a placeholder could have become: anything empty, anything next to it or with its name
  // (renamed or moved, and written to), anything of its time; a file with content elsewhere is someone else
  const files = anywhere.filter((u) => u.d.kind === 'file' && !taken.has(u));
  const empty = files.filter((u) => u.d.size === 0);
  const byParent = groupBy(files, (u) => u.parent ?? '');
  const byName = groupBy(files, (u) => nfc(u.name));
  const leftByTime = new TimeBuckets<Appearance>(tol, (u) => u.d.mtimeMs);
  for (const u of files) leftByTime.add(u);
  const likely = (e: LocalEntry): Appearance[] => leftByTime.near(Date.parse(e.mtime)).filter((u) => agrees(e, u, tol));
  const paths = (us: readonly Appearance[]): string[] => [...new Set(us.map((u) => u.path))].slice(0, 3);
  for (const e of pass.gone) {
    if (movedIds.has(e.id) || pairedFiles.has(e.id)) continue;
    const could =
      e.kind === 'dir' ? anyDirs : paths([...likely(e), ...(byParent.get(e.lparent) ?? []), ...(byName.get(nfc(e.lname)) ?? []), ...empty]);
    if (could.length > 0) {
      res.uncertain.push({ id: e.id, candidates: could });
      continue;
    }
    res.deletes.push(e.id);
    // What a deleted folder held may have left it first (moved out, changed, then the folder
    // deleted): a placeholder below it with a possible twin elsewhere (its time, or its name)
    // is held, and the folder's delete with it (local-batch.ts), never sent over it.
    if (e.kind === 'dir') {
      for (const id of model.descendants(e.id)) {
        const d = model.get(id)!;
        if (d.kind !== 'file' || d.state !== 'ok' || pairedFiles.has(id)) continue;
        const twins = paths([...likely(d), ...(byName.get(nfc(d.lname)) ?? [])]);
        if (twins.length > 0) res.uncertain.push({ id, candidates: twins });
      }
    }
  }
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
  /** What is inside folders that did not resolve (new, or not paired yet): not pairable, but it could be what is gone. */
  orphans: Appearance[];
}

interface ScanIndex {
  byPath: ReadonlyMap<string, DirScan>;
  /** The folders (paths) holding an item by its name, or a placeholder by its NAS time. */
  dirsHolding(k: LocalEntry): Set<string>;
}

/** The scans by path, and where each name and placeholder time is (built once, when first asked). */
function scanIndex(scans: readonly DirScan[], byPath: ReadonlyMap<string, DirScan>, tol: number): ScanIndex {
  let whereName: Map<string, Set<string>> | undefined;
  const whereTime = new TimeBuckets<{ t: number; dir: string }>(tol, (x) => x.t);
  const build = (): Map<string, Set<string>> => {
    const m = new Map<string, Set<string>>();
    for (const sc of scans) {
      for (const d of sc.entries) {
        const n = nfc(d.name);
        (m.get(n) ?? m.set(n, new Set()).get(n)!).add(sc.path);
        if (d.kind === 'file' && d.size === 0) whereTime.add({ t: d.mtimeMs, dir: sc.path });
      }
    }
    return m;
  };
  return {
    byPath,
    dirsHolding(k) {
      whereName ??= build();
      const out = new Set(whereName.get(nfc(k.lname)) ?? []);
      const t = Date.parse(k.mtime);
      if (k.kind === 'file' && !k.filled && Number.isFinite(t))
        for (const x of whereTime.near(t)) if (Math.abs(x.t - t) <= tol) out.add(x.dir);
      return out;
    },
  };
}

/** One reading of the scans by place, with the folders paired so far at their new paths. */
function placePass(
  model: LocalModel,
  scans: readonly DirScan[],
  movedTo: ReadonlyMap<string, string>,
  movedIds: ReadonlySet<string>,
  ix: ScanIndex,
): Pass {
  const traded = new TradedFolders(model, ix);
  const resolved = new Map<string, string>();
  const root = model.get(model.rootId);
  if (root) resolved.set('', root.id);
  const out: Pass = { resolved, folders: [], rebound: [], unknown: [], gone: [], orphans: [] };
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
        id = e?.kind === 'dir' && !traded.notThatFolder(e, s.path) ? e.id : undefined;
      }
    }
    if (id === undefined) {
      // inside a folder the NAS does not have (that folder is the local-only entry), or one not paired
      for (const d of s.entries) out.orphans.push({ parent: undefined, path: join(s.path, d.name), name: d.name, d });
      continue;
    }
    resolved.set(s.path, id);
    out.folders.push({ path: s.path, id });
    if (id === model.rootId && root && root.ino !== s.ino) out.rebound.push({ id, ino: s.ino, filled: false });
    readFolder({ model, movedTo, movedIds, traded, seen, out }, s, id);
  }
  return out;
}

/** What reading one resolved folder uses and adds to: the pass so far, and the entries already seen. */
interface FolderRead {
  model: LocalModel;
  movedTo: ReadonlyMap<string, string>;
  movedIds: ReadonlySet<string>;
  traded: TradedFolders;
  seen: Set<string>;
  out: Pass;
}

/** Reads a resolved folder's entries by place: each found at its place (`rebound`), unknown, or gone. */
function readFolder({ model, movedTo, movedIds, traded, seen, out }: FolderRead, s: DirScan, id: string): void {
  const here = new Map<string, LocalEntry>();
  for (const k of model.children(id)) {
    const e = model.get(k);
    if (e && e.state === 'ok' && e.ino !== null && !movedIds.has(e.id)) here.set(nfc(e.lname), e);
  }
  for (const d of s.entries) {
    const path = join(s.path, d.name);
    const e = here.get(nfc(d.name));
    if (e && e.kind === d.kind && !seen.has(e.id) && !traded.notThatFolder(e, path)) {
      seen.add(e.id);
      // a download the engine left here (size and time as recorded; inodes are not valid here) is not the user's content
      const filled = e.kind === 'file' && d.size > 0 && !asDownloaded(e, { size: d.size, mtimeMs: d.mtimeMs });
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

/**
 * The folder at a folder's place is not that folder when nothing it held is in it while
 * what it held is in another folder: two folders that traded names. Each is then found by
 * its contents (a swap), not read as moves of everything inside them. Two or more known
 * items only (one says too little); items renamed in place count by their NAS time.
 */
class TradedFolders {
  /** Known folders with no scanned folder at their recorded place (built once, when first asked). */
  private goneDirs: LocalEntry[] | undefined;
  private readonly root: LocalEntry | undefined;

  constructor(
    private readonly model: LocalModel,
    private readonly ix: ScanIndex,
  ) {
    this.root = model.get(model.rootId);
  }

  /** Whether the folder `e`, found at `path`, traded places with another (then it is not that folder). */
  notThatFolder(e: LocalEntry, path: string): boolean {
    if (e.kind !== 'dir' || !this.ix.byPath.has(path)) return false;
    if (!this.elsewhere(e, path, 1)) return false;
    // the trade goes round: the folder at one of those places holds what was here, what it held
    // is at a third place... and back here (two folders that traded names, or three or more whose
    // names went round: soak seed 9015 r20); three items in all at least (two folders of one
    // item each say too little: their items may as well have traded folders; soak seed 4049)
    if (this.goesRound(e, path)) return true;
    const mine = this.kidsOf(e.id).length;
    if (mine < 2) return false;
    // or the folder here holds most of what a folder gone from its own place held (a trade,
    // then one of the two moved away): it is that folder, found by its contents; one item of
    // its is enough beside two or more of this one's elsewhere (three in all, as above; soak
    // seed 10007 r6)
    const names = new Set((this.ix.byPath.get(path)?.entries ?? []).map((d) => nfc(d.name)));
    return this.gone().some((g) => {
      if (g.id === e.id) return false;
      const kids = this.kidsOf(g.id);
      return kids.length >= 1 && kids.filter((k) => names.has(nfc(k.lname))).length * 2 >= kids.length;
    });
  }

  /**
   * Whether following "what was at this place is now at that place" from `e` at `path` comes
   * back to `path` (at most 8 folders round), with three known items in all at least.
   */
  private goesRound(e: LocalEntry, path: string): boolean {
    const visited = new Set([path]);
    const follow = (cur: LocalEntry, at: string, items: number, depth: number): boolean => {
      const next = depth < 8 ? this.elsewhere(cur, at, 1) : undefined;
      for (const q of next ?? []) {
        if (q === path) return depth > 0 && items >= 3;
        const f = visited.has(q) ? undefined : this.folderAt(q);
        if (!f || f.id === cur.id) continue;
        visited.add(q);
        if (follow(f, q, items + this.kidsOf(f.id).length, depth + 1)) return true;
      }
      return false;
    };
    return follow(e, path, this.kidsOf(e.id).length, 0);
  }

  /** What a folder holds in the model (known entries with an inode). */
  private kidsOf(id: string): LocalEntry[] {
    return this.model
      .children(id)
      .map((k) => this.model.get(k)!)
      .filter((k) => k.state === 'ok' && k.ino !== null);
  }

  /** Folder paths (other than `path`) holding what `e` held (at least `min` items), when nothing of it is at `path`. */
  private elsewhere(e: LocalEntry, path: string, min = 2): Set<string> | undefined {
    const kids = this.kidsOf(e.id);
    if (kids.length < min) return undefined;
    // the common case, cheap: something it held is there by name
    const names = new Set((this.ix.byPath.get(path)?.entries ?? []).map((d) => nfc(d.name)));
    if (kids.some((k) => names.has(nfc(k.lname)))) return undefined;
    const where = kids.map((k) => this.ix.dirsHolding(k));
    if (where.some((w) => w.has(path))) return undefined;
    const out = new Set<string>();
    for (const w of where) for (const d of w) out.add(d);
    return out.size ? out : undefined;
  }

  /** The known folder at this path in the model, by name. */
  private folderAt(path: string): LocalEntry | undefined {
    const { model } = this;
    let cur = this.root;
    for (const seg of path === '' ? [] : path.split('/')) {
      const next = cur
        ? model
            .children(cur.id)
            .map((k) => model.get(k)!)
            .find((k) => k.kind === 'dir' && k.state === 'ok' && nfc(k.lname) === nfc(seg))
        : undefined;
      if (!next) return undefined;
      cur = next;
    }
    return cur;
  }

  /** Known folders with no scanned folder at their recorded place. */
  private gone(): LocalEntry[] {
    const { model } = this;
    return (this.goneDirs ??= model
      .dirs()
      .filter(
        (d) =>
          d.kind === 'dir' && d.state === 'ok' && d.ino !== null && d.id !== model.rootId && !this.ix.byPath.has(model.pathOf(d.id) ?? ''),
      ));
  }
}

/** What is below gone folders (not paired), itself not below a folder paired meanwhile: gone from its place too. */
function hiddenBelow(model: LocalModel, gone: readonly LocalEntry[], movedIds: ReadonlySet<string>): LocalEntry[] {
  const out: LocalEntry[] = [];
  const stack = gone.filter((e) => e.kind === 'dir' && !movedIds.has(e.id)).map((e) => e.id);
  while (stack.length) {
    for (const k of model.children(stack.pop()!)) {
      const e = model.get(k);
      if (!e || e.state !== 'ok' || e.ino === null || movedIds.has(k)) continue;
      out.push(e);
      if (e.kind === 'dir') stack.push(k);
    }
  }
  return out;
}

/**
 * Gone folders (and folders below them) and appeared folders whose contents agree, one
 * candidate each way: new path -> id. Contents agree item by item: same name and kind, and
 * for a placeholder the same NAS time (a folder's name list alone would also match a new
 * folder the user filled with look-alikes). Most of what the folder held must be in the new
 * one (>= 75 %), and be most of it (>= 50 %: the user may have added some). An empty folder
 * has only its name: the same name elsewhere (moved) is the same folder, anything else is not known.
 */
function pairFolders(
  model: LocalModel,
  pass: Pass,
  byPath: ReadonlyMap<string, DirScan>,
  hidden: readonly LocalEntry[],
  tol: number,
): [string, string][] {
  const gone = [...pass.gone, ...hidden].filter((e) => e.kind === 'dir');
  const appeared = pass.unknown.filter((u) => u.d.kind === 'dir');
  if (!gone.length || !appeared.length) return [];
  const kidsOf = (id: string): Map<string, LocalEntry> => {
    const m = new Map<string, LocalEntry>();
    for (const k of model.children(id)) {
      const c = model.get(k);
      if (c && c.state === 'ok' && c.ino !== null) m.set(nfc(c.lname), c);
    }
    return m;
  };
  const sameItem = (c: LocalEntry, d: DiskEntry): boolean => {
    if (c.kind !== d.kind) return false;
    if (c.kind === 'dir' || c.filled) return true;
    const t = Date.parse(c.mtime);
    return d.size === 0 && Number.isFinite(t) && Math.abs(d.mtimeMs - t) <= tol;
  };
  const goneKids = new Map(gone.map((g) => [g.id, kidsOf(g.id)]));
  const shared = (g: LocalEntry, u: Appearance): number => {
    const a = goneKids.get(g.id)!;
    let both = 0;
    for (const d of byPath.get(u.path)?.entries ?? []) {
      const c = a.get(nfc(d.name));
      if (c && sameItem(c, d)) both++;
    }
    return both;
  };
  const agree = (g: LocalEntry, u: Appearance): boolean => {
    const a = goneKids.get(g.id)!;
    const b = byPath.get(u.path)?.entries ?? [];
    if (a.size === 0 && b.length === 0) return nfc(g.lname) === nfc(u.name);
    const both = shared(g, u);
    return both > 0 && both / a.size >= FOLDER_MATCH && both / b.length >= 0.5;
  };
  const out: [string, string][] = [];
  for (const g of gone) {
    const cands = appeared.filter((u) => agree(g, u));
    if (cands.length !== 1) continue;
    const u = cands[0]!;
    if (gone.filter((x) => agree(x, u)).length !== 1) continue;
    // its contents come from this folder alone (items of another gone folder in it: which one it is, is not known)
    if (gone.some((x) => x !== g && shared(x, u) > 0)) continue;
    out.push([u.path, g.id]);
  }
  return out;
}

/** Items grouped by a key. */
function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const t of items) {
    const k = key(t);
    const l = m.get(k);
    if (l) l.push(t);
    else m.set(k, [t]);
  }
  return m;
}

/** Items by their time in buckets as wide as the tolerance: `near(t)` holds every item within it (and a few more). */
class TimeBuckets<T> {
  private readonly buckets = new Map<number, T[]>();
  private readonly width: number;

  constructor(
    tol: number,
    private readonly timeOf: (t: T) => number | undefined,
  ) {
    this.width = Math.max(1, tol);
  }

  add(item: T): void {
    const t = this.timeOf(item);
    if (t === undefined || !Number.isFinite(t)) return;
    const b = Math.floor(t / this.width);
    const l = this.buckets.get(b);
    if (l) l.push(item);
    else this.buckets.set(b, [item]);
  }

  near(t: number): T[] {
    if (!Number.isFinite(t)) return [];
    const b = Math.floor(t / this.width);
    return [...(this.buckets.get(b - 1) ?? []), ...(this.buckets.get(b) ?? []), ...(this.buckets.get(b + 1) ?? [])];
  }
}
