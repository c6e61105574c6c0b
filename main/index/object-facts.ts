/**
 * The facts of every mirrored object (app/filters/facts.ts) in memory, as columns: each id gets
 * a slot number, kept while the id is present or is the parent of one (so a present object's
 * slot never changes meaning; a slot freed by a removal is given to a later new id, and the
 * slots stay as many as the most objects held at once) and each fact field is a typed array
 * indexed by slot (kind, extension and camera as ids into small string tables, size, day,
 * parent slot, children as linked lists). Only the ids and names are JS strings: a million
 * facts are a few typed arrays for the garbage collector, not a million objects. Built once
 * from the mirror store on first use (one pass over the stored JSON, in chunks: see
 * facts-keeper.ts) and then kept up to date by the same change batches that update the offline
 * index. `version` moves with each batch, so derived views (storage totals, name order) know
 * when their cache is stale. Used by the search filters (fact-filter.ts reads the columns) and
 * the storage view; never by the plain text search.
 */
import { KINDS, factOf, type Fact, type ObjectKind } from '../../app/filters/facts.js';
import type { RemoteChange } from '../mirror/changes.js';
import type { MirrorStore } from '../mirror/store.js';
import { FactsById, IdTable, Strings, factOfRow, type FactRow } from './fact-columns.js';

/**
 * Told about each change, in order: `leaving` with the old fact while the tree is still as
 * before, then `arrived` with the new fact once it is in place (or `gone` when it left).
 */
export interface FactListener {
  leaving(before: Fact): void;
  arrived(after: Fact): void;
  gone(before: Fact): void;
}

const KIND_CODE = new Map<ObjectKind, number>(KINDS.map((k, i) => [k, i]));
export const FOLDER_CODE = KIND_CODE.get('folder')!;

/** The columns, read-only to callers; valid until the next change (arrays grow by reallocation). */
export interface FactColumns {
  /** Slots in use (some may be absent: ids seen as a parent only, or removed). */
  readonly slots: number;
  readonly present: Uint8Array;
  readonly kind: Uint8Array;
  readonly ext: Uint32Array;
  readonly size: Float64Array;
  readonly day: Uint32Array;
  readonly camera: Uint32Array;
  /** Slot of the parent, -1 when none. */
  readonly parent: Int32Array;
  readonly ids: readonly string[];
  readonly names: readonly string[];
  /** The extension and camera tables (id 0 is ''). */
  readonly exts: readonly string[];
  readonly cameras: readonly string[];
  readonly rootSlot: number;
}

export class ObjectFacts {
  /** Moves with every applied batch. */
  version = 0;
  private count = 0;
  private n = 0;
  private cap = 0;
  private readonly ids: string[] = [];
  private readonly slotOf: IdTable;
  private readonly names: string[] = [];
  private present = new Uint8Array(0);
  private kind = new Uint8Array(0);
  private ext = new Uint32Array(0);
  private size_ = new Float64Array(0);
  private day = new Uint32Array(0);
  private camera = new Uint32Array(0);
  private parent = new Int32Array(0);
  private firstChild = new Int32Array(0);
  private lastChild = new Int32Array(0);
  private next = new Int32Array(0);
  private prev = new Int32Array(0);
  /** Slots freed by removals, taken first by new ids. */
  private readonly free: number[] = [];
  private readonly exts = new Strings();
  private readonly cameras = new Strings();
  readonly rootSlot: number;
  /** The facts by id, as a read-only map (each fact read from the columns when asked). */
  readonly byId: FactsById;

  /** `expected`: about how many objects there will be (the tables are sized for them up front). */
  private constructor(
    readonly rootId: string,
    expected = 0,
  ) {
    this.slotOf = new IdTable(this.ids, expected);
    if (expected > 0) this.grow(expected + 1);
    this.rootSlot = this.slotFor(rootId);
    this.byId = new FactsById(this);
  }

  /**
   * One pass over the mirror table in one go (the command line, tests). The engine uses
   * `building` (via FactsKeeper) so the event loop is never held for more than a chunk.
   */
  static build(store: MirrorStore): ObjectFacts {
    const steps = ObjectFacts.building(store);
    for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
  }

  /**
   * The same pass in chunks (rowid order, each chunk its own query, so no statement stays
   * open between chunks): yields after each chunk, returns the facts. A chunk is `chunk`
   * rows when given a number, else sized to take about `targetMs` (from the time the last
   * one took: the machine's speed and load decide, not a guess). Reads only the fields
   * facts need (json_extract in SQLite: parsing each object's whole JSON in JS was 3x
   * slower). Same result as factOf. Rows changed between chunks may be read in either
   * state: the caller replays the changes of that time (FactsKeeper).
   */
  static *building(store: MirrorStore, chunk: number | { targetMs: number } = 5_000): Generator<number, ObjectFacts> {
    const rows = (store.db.prepare('SELECT max(rowid) AS n FROM mirror_objects').get() as { n: number | null }).n ?? 0;
    const f = new ObjectFacts(store.root()?.id ?? 'root', Math.min(rows, 1 << 24));
    const stmt = store.db
      .prepare(
        `SELECT rowid, id, parent_id, name, mime, json_extract(json, '$.size'), json_extract(json, '$.extension'),
      json_extract(json, '$.mTime'), json_extract(json, '$.image.date'), camera_make, camera_model ` +
          'FROM mirror_objects WHERE rowid > ? ORDER BY rowid LIMIT ?',
      )
      .raw(true);
    let rowsNext = typeof chunk === 'number' ? chunk : 500;
    for (let after = 0; ;) {
      const t0 = performance.now();
      const rows = stmt.all(after, rowsNext) as FactRow[];
      for (const r of rows) f.put(factOfRow(r));
      if (rows.length < rowsNext) return f;
      after = rows[rows.length - 1]![0];
      if (typeof chunk !== 'number') {
        const ms = Math.max(0.5, performance.now() - t0);
        rowsNext = Math.round(Math.min(50_000, rowsNext * 4, Math.max(100, (rowsNext * chunk.targetMs) / ms, rowsNext / 4)));
      }
      yield f.count;
    }
  }

  get size(): number {
    return this.count;
  }

  /** The slot of an id when it has one (present or not), else undefined. */
  slotOfId(id: string): number | undefined {
    return this.slotOf.get(id);
  }

  /** The slot of a present object, else -1. */
  presentSlot(id: string): number {
    const s = this.slotOf.get(id);
    return s !== undefined && this.present[s] ? s : -1;
  }

  /** The fact at a present slot (a new object each call). */
  factAt(s: number): Fact {
    const p = this.parent[s]!;
    return {
      id: this.ids[s]!,
      parent: p < 0 ? '' : this.ids[p]!,
      name: this.names[s]!,
      kind: KINDS[this.kind[s]!]!,
      ext: this.exts.at(this.ext[s]!),
      size: this.size_[s]!,
      day: this.day[s]!,
      camera: this.cameras.at(this.camera[s]!),
    };
  }

  get(id: string): Fact | undefined {
    const s = this.presentSlot(id);
    return s < 0 ? undefined : this.factAt(s);
  }

  /** Present slots, in slot order. */
  *presentSlots(): Generator<number> {
    for (let s = 0; s < this.n; s++) if (this.present[s]) yield s;
  }

  columns(): FactColumns {
    return {
      slots: this.n,
      present: this.present,
      kind: this.kind,
      ext: this.ext,
      size: this.size_,
      day: this.day,
      camera: this.camera,
      parent: this.parent,
      ids: this.ids,
      names: this.names,
      exts: this.exts.list,
      cameras: this.cameras.list,
      rootSlot: this.rootSlot,
    };
  }

  /** Direct children ids of a folder (the root id for the top). */
  children(id: string): string[] {
    const out: string[] = [];
    const s = this.slotOf.get(id);
    if (s === undefined) return out;
    for (let c = this.firstChild[s]!; c >= 0; c = this.next[c]!) out.push(this.ids[c]!);
    return out;
  }

  /** True when `id` is strictly below `folderId` (the root holds everything). */
  isUnder(id: string, folderId: string): boolean {
    const s = this.presentSlot(id);
    if (folderId === this.rootId) return s >= 0;
    const folder = this.slotOf.get(folderId);
    return s >= 0 && folder !== undefined && this.slotUnder(s, folder);
  }

  /** isUnder by slots (s present). */
  slotUnder(s: number, folder: number): boolean {
    if (folder === this.rootSlot) return true;
    let cur = this.parent[s]!;
    for (let guard = 0; cur >= 0 && guard < 4096; guard++) {
      if (cur === folder) return true;
      if (cur === this.rootSlot || !this.present[cur]) return false;
      cur = this.parent[cur]!;
    }
    return false;
  }

  /** The folder at a '/'-joined path below the root ('' is the root); undefined when absent. */
  folderAt(path: string): string | undefined {
    let cur = this.rootSlot;
    for (const seg of path.split('/').filter((x) => x !== '')) {
      let found = -1;
      for (let c = this.firstChild[cur]!; c >= 0 && found < 0; c = this.next[c]!)
        if (this.kind[c] === FOLDER_CODE && this.names[c] === seg) found = c;
      if (found < 0) return undefined;
      cur = found;
    }
    return this.ids[cur]!;
  }

  /** Names from the root down to `id` ('' for the root). */
  pathOf(id: string): string {
    const names: string[] = [];
    let cur = this.presentSlot(id);
    for (let guard = 0; cur >= 0 && cur !== this.rootSlot && guard < 4096; guard++) {
      if (!this.present[cur]) break;
      names.push(this.names[cur]!);
      cur = this.parent[cur]!;
    }
    return names.reverse().join('/');
  }

  private readonly listeners = new Set<FactListener>();

  /** Follows every fact change (aggregates kept incrementally); returns the unsubscribe. */
  listen(l: FactListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  apply(changes: readonly RemoteChange[]): void {
    for (const c of changes) {
      const id = c.kind === 'removed' ? c.before.id : c.after.id;
      if (id === this.rootId) continue;
      const listening = this.listeners.size > 0;
      const before = listening ? this.get(id) : undefined;
      if (before) for (const l of this.listeners) l.leaving(before);
      if (c.kind === 'removed') this.remove(id);
      else this.put(factOf(c.after));
      if (!listening) continue;
      const after = this.get(id);
      for (const l of this.listeners) {
        if (after) l.arrived(after);
        else if (before) l.gone(before);
      }
    }
    if (changes.length) this.version++;
  }

  private slotFor(id: string): number {
    const have = this.slotOf.get(id);
    if (have !== undefined) return have;
    let s = this.free.pop();
    if (s !== undefined) this.ids[s] = id;
    else {
      if (this.n === this.cap) this.grow();
      s = this.n++;
      this.ids.push(id);
      this.names.push('');
    }
    this.slotOf.add(id, s);
    this.names[s] = '';
    this.parent[s] = -1;
    this.firstChild[s] = this.lastChild[s] = this.next[s] = this.prev[s] = -1;
    return s;
  }

  private grow(atLeast = 0): void {
    const cap = Math.max(1024, this.cap * 2, atLeast);
    const more = <T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.present = more(this.present, (k) => new Uint8Array(k));
    this.kind = more(this.kind, (k) => new Uint8Array(k));
    this.ext = more(this.ext, (k) => new Uint32Array(k));
    this.size_ = more(this.size_, (k) => new Float64Array(k));
    this.day = more(this.day, (k) => new Uint32Array(k));
    this.camera = more(this.camera, (k) => new Uint32Array(k));
    for (const k of ['parent', 'firstChild', 'lastChild', 'next', 'prev'] as const) this[k] = more(this[k], (x) => new Int32Array(x));
    this.cap = cap;
  }

  private put(f: Fact): void {
    const s = this.slotFor(f.id);
    if (this.present[s]) this.unlink(s);
    else this.count++;
    this.present[s] = 1;
    this.names[s] = f.name;
    this.kind[s] = KIND_CODE.get(f.kind)!;
    this.ext[s] = this.exts.idOf(f.ext);
    this.size_[s] = f.size;
    this.day[s] = f.day;
    this.camera[s] = this.cameras.idOf(f.camera);
    const p = f.parent === '' ? -1 : this.slotFor(f.parent);
    this.parent[s] = p;
    if (p >= 0) {
      const last = this.lastChild[p]!;
      this.prev[s] = last;
      this.next[s] = -1;
      if (last >= 0) this.next[last] = s;
      else this.firstChild[p] = s;
      this.lastChild[p] = s;
    }
  }

  private unlink(s: number): void {
    const p = this.parent[s]!;
    if (p < 0) return;
    const a = this.prev[s]!,
      b = this.next[s]!;
    if (a >= 0) this.next[a] = b;
    else this.firstChild[p] = b;
    if (b >= 0) this.prev[b] = a;
    else this.lastChild[p] = a;
    this.prev[s] = this.next[s] = this.parent[s] = -1;
    this.releaseIfUnused(p);
  }

  /**
   * Frees slot s for another id when nothing refers to it any more: not present, no child
   * (an id seen only as a parent, or a removed folder whose children have all left), not the root.
   */
  private releaseIfUnused(s: number): void {
    if (this.present[s] || this.firstChild[s]! >= 0 || s === this.rootSlot) return;
    this.slotOf.delete(this.ids[s]!);
    this.ids[s] = '';
    this.free.push(s);
  }

  private remove(id: string): void {
    const s = this.slotOf.get(id);
    if (s === undefined || !this.present[s]) return;
    this.unlink(s);
    this.present[s] = 0;
    this.names[s] = '';
    this.count--;
    this.releaseIfUnused(s);
  }
}
