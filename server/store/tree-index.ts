/**
 * The in-memory mirror of the tree: parent links, names, searchable fields, the "being
 * deleted" mark, the wire metadata (sizes, times, versions, child counts) so listings are
 * built without reading rows, roots' owners and grants, keyed by `objects.row`. Rebuilt from SQLite at
 * start (and when another process wrote to the database); updated by the Store only after
 * a transaction committed, so it never shows an uncommitted state.
 */
import { foldCase } from '../../app/search/fold.js';
import type { Db } from './schema.js';

/** Permission levels: none < ReadFile < WriteFile < FileOwner. */
export const PERM = { none: 0, ReadFile: 1, WriteFile: 2, FileOwner: 3 } as const;
export type PermName = 'ReadFile' | 'WriteFile' | 'FileOwner';
export const PERM_NAMES: readonly PermName[] = ['ReadFile', 'WriteFile', 'FileOwner'];

const ALIVE = 1,
  DIR = 2,
  DELETING = 4,
  PARTIAL = 8;

/** The wire metadata of an object that search does not look at. */
export interface ObjectMeta {
  size: number;
  mtime: number;
  ctime: number;
  version: number;
  child_count: number;
  hidden: string;
  image: string | null;
  flags: string | null;
}

export const HIDDEN_CODES = ['none', 'mac', 'linux', 'windows'] as const;

/** The searchable part of an object, as stored in memory. */
export interface IndexedFields {
  id: string;
  parent: number;
  name: string;
  dir: boolean;
  mime: string;
  cameraMake?: string | undefined;
  cameraModel?: string | undefined;
  deleting: boolean;
  /** A new file whose first upload is unfinished: listed, never returned by text search. */
  partial?: boolean;
}

/** Interned strings (mimeTypes, camera makes and models): few distinct values, many objects. */
export class Interner {
  readonly values: string[] = [];
  readonly folded: string[] = [];
  private readonly map = new Map<string, number>();
  intern(v: string | undefined): number {
    if (v === undefined) return -1;
    let n = this.map.get(v);
    if (n === undefined) {
      n = this.values.length;
      this.values.push(v);
      this.folded.push(foldCase(v));
      this.map.set(v, n);
    }
    return n;
  }
}

/** Receives every change of the indexed fields (the text-search index listens). */
export interface IndexListener {
  changed(row: number): void;
  reset(): void;
}

export class TreeIndex {
  parent = new Int32Array(1024);
  flags = new Uint8Array(1024);
  /** Bumped on every change of a row's searchable fields. */
  gen = new Uint32Array(1024);
  mimeId = new Int32Array(1024);
  makeId = new Int32Array(1024);
  modelId = new Int32Array(1024);
  size = new Float64Array(1024);
  mtime = new Float64Array(1024);
  ctime = new Float64Array(1024);
  version = new Uint32Array(1024);
  childCount = new Uint32Array(1024);
  hidden = new Uint8Array(1024);
  images: (string | null)[] = [];
  flagsJson: (string | null)[] = [];
  ids: string[] = [];
  names: string[] = [];
  fnames: string[] = [];
  readonly mimes = new Interner();
  readonly makes = new Interner();
  readonly models = new Interner();
  /** Root row -> owning user id. */
  readonly rootOwner = new Map<number, number>();
  /** Row -> (user id -> permission level). */
  readonly grants = new Map<number, Map<number, number>>();
  /** Highest row ever seen + 1. */
  end = 1;
  count = 0;
  private readonly listeners: IndexListener[] = [];

  listen(l: IndexListener): void {
    this.listeners.push(l);
  }

  /** Rebuilds everything from the database. */
  load(db: Db): void {
    this.parent = new Int32Array(1024);
    this.flags = new Uint8Array(1024);
    this.gen = new Uint32Array(1024);
    this.mimeId = new Int32Array(1024);
    this.makeId = new Int32Array(1024);
    this.modelId = new Int32Array(1024);
    this.size = new Float64Array(1024);
    this.mtime = new Float64Array(1024);
    this.ctime = new Float64Array(1024);
    this.version = new Uint32Array(1024);
    this.childCount = new Uint32Array(1024);
    this.hidden = new Uint8Array(1024);
    this.images = [];
    this.flagsJson = [];
    this.ids = [];
    this.names = [];
    this.fnames = [];
    this.rootOwner.clear();
    this.grants.clear();
    this.end = 1;
    this.count = 0;
    const max = (db.prepare('SELECT max(row) AS m FROM objects').get() as { m: number | null }).m ?? 0;
    this.ensure(max + 1);
    // Raw rows (arrays) and a small extraction of make/model: this runs over every object at start.
    const stmt = db
      .prepare(
        `SELECT row, id, parent, name, dir, mime, deleting, size, mtime, ctime, version, child_count, hidden, image, flags,
      partial FROM objects`,
      )
      .raw(true);
    const meta: ObjectMeta = { size: 0, mtime: 0, ctime: 0, version: 0, child_count: 0, hidden: 'none', image: null, flags: null };
    for (const a of stmt.iterate() as Iterable<unknown[]>) {
      const row = a[0] as number;
      const image = a[13] as string | null;
      this.put(
        row,
        {
          id: a[1] as string,
          parent: a[2] as number,
          name: a[3] as string,
          dir: a[4] === 1,
          mime: a[5] as string,
          deleting: a[6] === 1,
          partial: a[15] === 1,
          cameraMake: image ? jsonStringField(image, 'cameraMake') : undefined,
          cameraModel: image ? jsonStringField(image, 'cameraModel') : undefined,
        },
        false,
      );
      meta.size = a[7] as number;
      meta.mtime = a[8] as number;
      meta.ctime = a[9] as number;
      meta.version = a[10] as number;
      meta.child_count = a[11] as number;
      meta.hidden = a[12] as string;
      meta.image = image;
      meta.flags = a[14] as string | null;
      this.setMeta(row, meta);
    }
    for (const u of db.prepare('SELECT id, root FROM users').all() as { id: number; root: number }[]) this.rootOwner.set(u.root, u.id);
    for (const g of db.prepare('SELECT row, user_id, perm FROM grants').all() as { row: number; user_id: number; perm: PermName }[])
      this.setGrant(g.row, g.user_id, PERM[g.perm]);
    for (const l of this.listeners) l.reset();
  }

  private ensure(n: number): void {
    if (n <= this.parent.length) return;
    let cap = this.parent.length;
    while (cap < n) cap *= 2;
    const grow = <T extends Int32Array | Uint8Array | Uint32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.parent = grow(this.parent, (c) => new Int32Array(c));
    this.flags = grow(this.flags, (c) => new Uint8Array(c));
    this.gen = grow(this.gen, (c) => new Uint32Array(c));
    this.mimeId = grow(this.mimeId, (c) => new Int32Array(c));
    this.makeId = grow(this.makeId, (c) => new Int32Array(c));
    this.modelId = grow(this.modelId, (c) => new Int32Array(c));
    this.size = grow(this.size, (c) => new Float64Array(c));
    this.mtime = grow(this.mtime, (c) => new Float64Array(c));
    this.ctime = grow(this.ctime, (c) => new Float64Array(c));
    this.version = grow(this.version, (c) => new Uint32Array(c));
    this.childCount = grow(this.childCount, (c) => new Uint32Array(c));
    this.hidden = grow(this.hidden, (c) => new Uint8Array(c));
  }

  /** Sets the wire metadata of a row (no listener is told: search does not use it). */
  setMeta(row: number, m: ObjectMeta): void {
    this.ensure(row + 1);
    this.size[row] = m.size;
    this.mtime[row] = m.mtime;
    this.ctime[row] = m.ctime;
    this.version[row] = m.version;
    this.childCount[row] = m.child_count;
    this.hidden[row] = Math.max(0, (HIDDEN_CODES as readonly string[]).indexOf(m.hidden));
    this.images[row] = m.image;
    this.flagsJson[row] = m.flags;
  }

  /** Adds or replaces a row. */
  put(row: number, f: IndexedFields, notify = true): void {
    this.ensure(row + 1);
    if (!(this.flags[row]! & ALIVE)) this.count++;
    this.parent[row] = f.parent;
    this.flags[row] = ALIVE | (f.dir ? DIR : 0) | (f.deleting ? DELETING : 0) | (f.partial ? PARTIAL : 0);
    this.gen[row] = this.gen[row]! + 1;
    this.mimeId[row] = this.mimes.intern(f.mime);
    this.makeId[row] = this.makes.intern(f.cameraMake);
    this.modelId[row] = this.models.intern(f.cameraModel);
    this.ids[row] = f.id;
    this.names[row] = f.name;
    this.fnames[row] = foldCase(f.name);
    if (row >= this.end) this.end = row + 1;
    if (notify) for (const l of this.listeners) l.changed(row);
  }

  /** Changes name and/or parent of a live row. */
  move(row: number, parent: number, name: string): void {
    this.parent[row] = parent;
    if (this.names[row] !== name) {
      this.names[row] = name;
      this.fnames[row] = foldCase(name);
    }
    this.gen[row] = this.gen[row]! + 1;
    for (const l of this.listeners) l.changed(row);
  }

  setMime(row: number, mime: string): void {
    this.mimeId[row] = this.mimes.intern(mime);
    this.gen[row] = this.gen[row]! + 1;
    for (const l of this.listeners) l.changed(row);
  }

  markDeleting(row: number): void {
    this.flags[row] = this.flags[row]! | DELETING;
    for (const l of this.listeners) l.changed(row);
  }

  remove(row: number): void {
    if (!(this.flags[row]! & ALIVE)) return;
    this.flags[row] = 0;
    this.gen[row] = this.gen[row]! + 1;
    this.ids[row] = '';
    this.images[row] = null;
    this.flagsJson[row] = null;
    this.names[row] = '';
    this.fnames[row] = '';
    this.grants.delete(row);
    this.rootOwner.delete(row);
    this.count--;
    for (const l of this.listeners) l.changed(row);
  }

  setGrant(row: number, userId: number, level: number): void {
    let m = this.grants.get(row);
    if (!m) this.grants.set(row, (m = new Map()));
    m.set(userId, level);
  }

  isAlive(row: number): boolean {
    return row > 0 && row < this.end && (this.flags[row]! & ALIVE) !== 0;
  }

  /** True when this row itself is marked for deletion (not its ancestors). */
  isDeletingRow(row: number): boolean {
    return (this.flags[row]! & DELETING) !== 0;
  }

  /** True while a new file's first upload is unfinished. */
  isPartial(row: number): boolean {
    return (this.flags[row]! & PARTIAL) !== 0;
  }

  isDir(row: number): boolean {
    return (this.flags[row]! & DIR) !== 0;
  }

  isRoot(row: number): boolean {
    return this.rootOwner.has(row);
  }

  /**
   * The permission level of `userId` on `row`: the highest grant on the row or an ancestor,
   * FileOwner in the user's own tree. -1 when the row does not exist or it or an ancestor
   * is being deleted.
   */
  access(userId: number, row: number): number {
    let level = 0;
    let s = row;
    for (let depth = 0; depth < 100_000; depth++) {
      if (s <= 0 || s >= this.end) return -1;
      const fl = this.flags[s]!;
      if (!(fl & ALIVE) || fl & DELETING) return -1;
      if (this.grants.size > 0) {
        const g = this.grants.get(s)?.get(userId);
        if (g !== undefined && g > level) level = g;
      }
      const p = this.parent[s]!;
      if (p === 0) {
        if (this.rootOwner.get(s) === userId) level = PERM.FileOwner;
        return level;
      }
      s = p;
    }
    return -1;
  }

  /** True when `anc` is `row` or one of its ancestors. */
  isAncestorOrSelf(anc: number, row: number): boolean {
    let s = row;
    for (let depth = 0; s > 0 && depth < 100_000; depth++) {
      if (s === anc) return true;
      s = this.parent[s]!;
    }
    return false;
  }

  /** Visible candidate rows for a user's text search: alive, not a root. Access is checked later. */
  *rows(): Generator<number> {
    for (let r = 1; r < this.end; r++) if (this.flags[r]! & ALIVE) yield r;
  }
}

/** A string field of a flat JSON object (the stored `image`), without parsing the whole text. */
export function jsonStringField(json: string, field: string): string | undefined {
  const at = json.indexOf(`"${field}":"`);
  if (at < 0) return undefined;
  const start = at + field.length + 4;
  let i = start;
  let escaped = false;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    if (c === 92) {
      escaped = true;
      i += 2;
      continue;
    }
    if (c === 34) break;
    i++;
  }
  const raw = json.slice(start, i);
  return escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
}
