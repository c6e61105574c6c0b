/**
 * The facts of every mirrored object (app/filters/facts.ts) in memory, by id: built once
 * from the mirror store on first use (one pass over the stored JSON, in chunks: see
 * facts-keeper.ts) and then kept up to date by the same change batches that update the
 * offline index. `version` moves with each
 * batch, so derived views (storage totals, name order) know when their cache is stale.
 * Used by the search filters and the storage view; never by the plain text search.
 */
import { factOf, type Fact } from '../../app/filters/facts.js';
import type { RemoteObject } from '../../app/model/remote-object.js';
import type { RemoteChange } from '../mirror/changes.js';
import type { MirrorStore } from '../mirror/store.js';

/**
 * Told about each change, in order: `leaving` with the old fact while the tree is still as
 * before, then `arrived` with the new fact once it is in place (or `gone` when it left).
 */
export interface FactListener {
  leaving(before: Fact): void;
  arrived(after: Fact): void;
  gone(before: Fact): void;
}

type FactRow = [number, string, string, string, string, unknown, unknown, unknown, unknown, string | null, string | null];

function factOfRow(r: FactRow): Fact {
  const [, id, parentID, name, mimeType, size, extension, mTime, date, cameraMake, cameraModel] = r;
  const o = { id, parentID, name, mimeType, mTime, eTag: '', cTime: '', hidden: 'none' } as RemoteObject;
  if (typeof size === 'number') o.size = size;
  if (typeof extension === 'string') o.extension = extension;
  if (typeof date === 'string' || cameraMake !== null || cameraModel !== null) {
    o.image = {};
    if (typeof date === 'string') o.image.date = date;
    if (cameraMake !== null) o.image.cameraMake = cameraMake;
    if (cameraModel !== null) o.image.cameraModel = cameraModel;
  }
  return factOf(o);
}

export class ObjectFacts {
  readonly byId = new Map<string, Fact>();
  private kids = new Map<string, Set<string>>();
  /** Moves with every applied batch. */
  version = 0;

  private constructor(readonly rootId: string) {}

  /**
   * One pass over the mirror table in one go (the command line, tests). The engine uses
   * `building` (via FactsKeeper) so the event loop is never held for more than a chunk.
   */
  static build(store: MirrorStore): ObjectFacts {
    const steps = ObjectFacts.building(store);
    for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
  }

  /**
   * The same pass in chunks of `chunk` rows (rowid order, each chunk its own query, so no
   * statement stays open between chunks): yields after each chunk, returns the facts.
   * Reads only the fields facts need (json_extract in SQLite: parsing each object's whole
   * JSON in JS was 3x slower). Same result as factOf. Rows changed between chunks may be
   * read in either state: the caller replays the changes of that time (FactsKeeper).
   */
  static *building(store: MirrorStore, chunk = 5_000): Generator<number, ObjectFacts> {
    const f = new ObjectFacts(store.root()?.id ?? 'root');
    const stmt = store.db.prepare(`SELECT rowid, id, parent_id, name, mime, json_extract(json, '$.size'), json_extract(json, '$.extension'),
      json_extract(json, '$.mTime'), json_extract(json, '$.image.date'), camera_make, camera_model FROM mirror_objects WHERE rowid > ? ORDER BY rowid LIMIT ?`).raw(true);
    for (let after = 0; ;) {
      const rows = stmt.all(after, chunk) as FactRow[];
      for (const r of rows) f.put(factOfRow(r));
      if (rows.length < chunk) return f;
      after = rows[rows.length - 1]![0];
      yield f.byId.size;
    }
  }

  get size(): number {
    return this.byId.size;
  }

  get(id: string): Fact | undefined {
    return this.byId.get(id);
  }

  /** Direct children ids of a folder (the root id for the top). */
  children(id: string): string[] {
    return [...(this.kids.get(id) ?? [])];
  }

  /** True when `id` is strictly below `folderId` (the root holds everything). */
  isUnder(id: string, folderId: string): boolean {
    if (folderId === this.rootId) return this.byId.has(id);
    let cur = this.byId.get(id)?.parent;
    for (let guard = 0; cur !== undefined && guard < 4096; guard++) {
      if (cur === folderId) return true;
      if (cur === this.rootId) return false;
      cur = this.byId.get(cur)?.parent;
    }
    return false;
  }

  /** The folder at a '/'-joined path below the root ('' is the root); undefined when absent. */
  folderAt(path: string): string | undefined {
    let cur = this.rootId;
    for (const seg of path.split('/').filter((s) => s !== '')) {
      const next = this.children(cur).map((id) => this.byId.get(id)!).find((f) => f.kind === 'folder' && f.name === seg);
      if (!next) return undefined;
      cur = next.id;
    }
    return cur;
  }

  /** Names from the root down to `id` ('' for the root). */
  pathOf(id: string): string {
    const names: string[] = [];
    let cur = id;
    for (let guard = 0; cur !== this.rootId && guard < 4096; guard++) {
      const f = this.byId.get(cur);
      if (!f) break;
      names.push(f.name);
      cur = f.parent;
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
      const before = this.byId.get(id);
      if (before) for (const l of this.listeners) l.leaving(before);
      if (c.kind === 'removed') this.remove(id);
      else this.put(factOf(c.after));
      const after = this.byId.get(id);
      for (const l of this.listeners) {
        if (after) l.arrived(after);
        else if (before) l.gone(before);
      }
    }
    if (changes.length) this.version++;
  }

  /** One copy of the strings many facts share (parent ids, extensions, cameras): less heap for the collector to walk. */
  private readonly strings = new Map<string, string>();

  private shared(s: string): string {
    if (s === '') return s;
    const have = this.strings.get(s);
    if (have !== undefined) return have;
    this.strings.set(s, s);
    return s;
  }

  private put(f: Fact): void {
    f.parent = this.shared(f.parent);
    f.ext = this.shared(f.ext);
    f.camera = this.shared(f.camera);
    this.remove(f.id);
    this.byId.set(f.id, f);
    let s = this.kids.get(f.parent);
    if (!s) this.kids.set(f.parent, (s = new Set()));
    s.add(f.id);
  }

  private remove(id: string): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.byId.delete(id);
    this.kids.get(old.parent)?.delete(id);
  }
}
