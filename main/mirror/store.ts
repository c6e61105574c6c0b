/**
 * The mirror's state: the last-known remote object of every id (keyed by id, not path),
 * in the state database (component `mirror`). Rows hold parent ids, so a remote move of a
 * folder is one row update whatever it contains. The root folder is kept apart (meta), as
 * it is in no listing. `generation` counts applied change batches (the index checks it).
 */
import type { RemoteObject } from '../../app/model/remote-object.js';
import { FOLDER_MIME } from '../../app/model/remote-object.js';
import { migrate, type Db } from '../state/db.js';
import { jsonOf, type RemoteChange } from './changes.js';
import { storedObject } from './stored-object.js';
import { UnfollowedIds } from './unfollowed.js';

export const MIRROR_MIGRATIONS = [
  {
    version: 1,
    up: (db: Db): void => {
      db.exec(`
        CREATE TABLE mirror_objects (
          id TEXT PRIMARY KEY,
          parent_id TEXT NOT NULL,
          name TEXT NOT NULL,
          etag TEXT NOT NULL,
          is_folder INTEGER NOT NULL,
          mime TEXT NOT NULL,
          camera_make TEXT,
          camera_model TEXT,
          json TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX mirror_objects_parent ON mirror_objects(parent_id, name);
        CREATE TABLE mirror_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      `);
    },
  },
  {
    // v2: a rowid table with a unique id index. Ids are random: inserting them into a
    // WITHOUT ROWID table moved whole rows around (4x slower first walks).
    version: 2,
    up: (db: Db): void => {
      db.exec(`
        CREATE TABLE mirror_objects_v2 (
          id TEXT NOT NULL UNIQUE,
          parent_id TEXT NOT NULL,
          name TEXT NOT NULL,
          etag TEXT NOT NULL,
          is_folder INTEGER NOT NULL,
          mime TEXT NOT NULL,
          camera_make TEXT,
          camera_model TEXT,
          json TEXT NOT NULL
        );
        INSERT INTO mirror_objects_v2 (id, parent_id, name, etag, is_folder, mime, camera_make, camera_model, json)
          SELECT id, parent_id, name, etag, is_folder, mime, camera_make, camera_model, json FROM mirror_objects;
        DROP TABLE mirror_objects;
        ALTER TABLE mirror_objects_v2 RENAME TO mirror_objects;
        CREATE INDEX mirror_objects_parent ON mirror_objects(parent_id, name);
      `);
    },
  },
  {
    // v3: the ETag of each listing page of each folder, to re-walk with If-None-Match (304 =
    // the folder's children did not change: nothing is transferred, diffed or applied).
    version: 3,
    up: (db: Db): void => {
      db.exec('CREATE TABLE mirror_listings (folder_id TEXT PRIMARY KEY, pages TEXT NOT NULL) WITHOUT ROWID;');
    },
  },
  {
    // v4: the ids an apply changed that the disk has not followed yet (`unfollowed`), written
    // in the apply's own transaction: a restart, even after kill -9 in a re-walk, places just
    // those instead of planning every object. What was applied before is not in it: `fillGen`.
    version: 4,
    up: (db: Db): void => {
      db.exec('CREATE TABLE mirror_unfollowed (id TEXT PRIMARY KEY) WITHOUT ROWID;');
      db.prepare("INSERT INTO mirror_meta (key, value) SELECT 'fillGen', value FROM mirror_meta WHERE key = 'generation'").run();
    },
  },
  {
    // v5: the folders of each parent (a partial index: folders only). A walk's 304 folder
    // queues its subfolders without reading a row of its files (`childSummary`).
    version: 5,
    up: (db: Db): void => {
      db.exec('CREATE INDEX mirror_objects_folders ON mirror_objects(parent_id) WHERE is_folder = 1;');
    },
  },
  {
    // v6: beside each listing chain, what the folder held when it was stored (its children
    // counted, its subfolders): a walk's 304 takes them from there instead of three queries a
    // folder (`StoredListing`). Chains stored before have none (read from the objects).
    version: 6,
    up: (db: Db): void => {
      db.exec('ALTER TABLE mirror_listings ADD COLUMN children TEXT;');
    },
  },
];

/**
 * A folder's listing as last fetched in full: per page, its ETag and the token of the next page.
 * `group`: the folder was listed in one request with other small folders (`ids=a,b,c`, walk.ts);
 * the ETag is that request's page, and stands for this folder only in that same group (the key
 * of its folders), asked again together.
 */
export type ListingChain = { etag: string; next: string; group?: string }[];

/** A subfolder as its parent's listing showed it, with the childCount listed. */
export type ListedFolder = { id: string; childCount: number | undefined };

/** What a folder holds: how many children, and which of them are folders. */
export interface FolderChildren {
  count: number;
  folders: ListedFolder[];
}

/**
 * A folder's stored listing: its chain, and what the folder held then (`children`; undefined
 * for a chain stored before they were kept with it). While the row stands, the store holds
 * exactly those children: a record is kept only when the stored children match its count,
 * and every apply that changes which children a folder has (or a subfolder's kind or
 * childCount) drops that folder's row (`apply`).
 */
export interface StoredListing {
  chain: ListingChain;
  children: FolderChildren | undefined;
}

const PARENT_INDEX = 'CREATE INDEX IF NOT EXISTS mirror_objects_parent ON mirror_objects(parent_id, name)';

export interface WalkRecord {
  /** ISO time the last complete walk ended. */
  completedAt: string;
  objects: number;
  folders: number;
}

export class MirrorStore {
  private readonly q;
  /** Ids applied that the disk has not followed yet (the local side reads and clears them). */
  readonly unfollowed: UnfollowedIds;

  /**
   * `reader`: another thread's read-only view of a store its owner keeps (the index build
   * worker): no migrations, no index restored. Writing through it is a bug (the connection
   * is read-only); a reader that wrote would take the database's write lock from the owner,
   * and restoring the parent index during the owner's bulk fill would undo the fill's speed.
   */
  constructor(
    readonly db: Db,
    role: 'owner' | 'reader' = 'owner',
  ) {
    if (role === 'owner') {
      migrate(db, 'mirror', MIRROR_MIGRATIONS);
      // a bulk fill interrupted by a crash leaves the parent index dropped: restore it
      db.exec(PARENT_INDEX);
    }
    this.unfollowed = new UnfollowedIds(db);
    this.q = {
      // the JSON text alone (`pluck`): no row object per read, on paths that read every row
      get: db.prepare<[string], string>('SELECT json FROM mirror_objects WHERE id = ?').pluck(true),
      getMany: db.prepare<[string], { id: string; json: string }>(
        'SELECT id, json FROM mirror_objects WHERE id IN (SELECT value FROM json_each(?))',
      ),
      children: db.prepare<[string], string>('SELECT json FROM mirror_objects WHERE parent_id = ?').pluck(true),
      childIds: db.prepare<[string], { id: string }>('SELECT id FROM mirror_objects WHERE parent_id = ?'),
      byName: db.prepare<[string, string], string>('SELECT json FROM mirror_objects WHERE parent_id = ? AND name = ?').pluck(true),
      all: db.prepare<[], string>('SELECT json FROM mirror_objects').pluck(true),
      count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM mirror_objects'),
      upsert: db.prepare(
        'INSERT INTO mirror_objects (id, parent_id, name, etag, is_folder, mime, camera_make, camera_model, json) ' +
          'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ' +
          'ON CONFLICT(id) DO UPDATE SET parent_id = excluded.parent_id, name = excluded.name, etag = excluded.etag, ' +
          'is_folder = excluded.is_folder, mime = excluded.mime, camera_make = excluded.camera_make, ' +
          'camera_model = excluded.camera_model, json = excluded.json',
      ),
      docs: db
        .prepare<[], [string, string, string, string | null, string | null]>(
          'SELECT id, name, mime, camera_make, camera_model FROM mirror_objects',
        )
        .raw(true),
      del: db.prepare('DELETE FROM mirror_objects WHERE id = ?'),
      meta: db.prepare<[string], { value: string }>('SELECT value FROM mirror_meta WHERE key = ?'),
      listings: db
        .prepare<[string], [string, string, string | null]>(
          'SELECT folder_id, pages, children FROM mirror_listings WHERE folder_id IN (SELECT value FROM json_each(?))',
        )
        .raw(true),
      allListings: db.prepare<[], [string, string, string | null]>('SELECT folder_id, pages, children FROM mirror_listings').raw(true),
      setListing: db.prepare(
        'INSERT INTO mirror_listings (folder_id, pages, children) VALUES (?, ?, ?) ' +
          'ON CONFLICT(folder_id) DO UPDATE SET pages = excluded.pages, children = excluded.children',
      ),
      delListing: db.prepare('DELETE FROM mirror_listings WHERE folder_id = ?'),
      childCount: db.prepare<[string], number>('SELECT count(*) FROM mirror_objects WHERE parent_id = ?').pluck(true),
      childFolders: db
        .prepare<[string], [string, number | null]>(
          "SELECT id, json_extract(json, '$.childCount') FROM mirror_objects WHERE parent_id = ? AND is_folder = 1",
        )
        .raw(true),
      parentOf: db.prepare<[string], string>('SELECT parent_id FROM mirror_objects WHERE id = ?').pluck(true),
      idsAndParents: db.prepare<[], [string, string]>('SELECT id, parent_id FROM mirror_objects').raw(true),
      setMeta: db.prepare('INSERT INTO mirror_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    };
  }

  /** The last-known object (the root included), or undefined. */
  get(id: string): RemoteObject | undefined {
    const root = this.root();
    if (id === 'root' || (root && id === root.id)) return root;
    const json = this.q.get.get(id);
    return json === undefined ? undefined : storedObject(json, id);
  }

  /** The stored JSON text of an object (exactly as the service sent it). */
  getJson(id: string): string | undefined {
    return this.q.get.get(id);
  }

  /** Many objects by id, as a map (missing ids are absent). */
  getMany(ids: readonly string[]): Map<string, RemoteObject> {
    const out = new Map<string, RemoteObject>();
    for (const r of this.q.getMany.all(JSON.stringify(ids))) out.set(r.id, storedObject(r.json, r.id));
    return out;
  }

  /** The stored JSON texts of many ids (missing ids are absent). */
  getManyJson(ids: readonly string[]): Map<string, string> {
    const out = new Map<string, string>();
    for (const r of this.q.getMany.all(JSON.stringify(ids))) out.set(r.id, r.json);
    return out;
  }

  /** Direct children of a folder id (`root` accepted), in no particular order. */
  children(parentId: string): RemoteObject[] {
    return this.q.children.all(this.resolve(parentId)).map((json) => storedObject(json, `a child of ${parentId}`));
  }

  childIds(parentId: string): string[] {
    return this.q.childIds.all(this.resolve(parentId)).map((r) => r.id);
  }

  /** `id` and every id below it in the store (what the NAS deletes with it), parents first. */
  subtreeIds(id: string): string[] {
    const out: string[] = [];
    for (let next = [id]; next.length;) {
      out.push(...next);
      next = next.flatMap((p) => this.childIds(p));
    }
    return out;
  }

  /** The child of `parentId` named exactly `name`. */
  childByName(parentId: string, name: string): RemoteObject | undefined {
    const json = this.q.byName.get(this.resolve(parentId), name);
    return json === undefined ? undefined : storedObject(json, `${name} in ${parentId}`);
  }

  /**
   * Names from the root down to `id` (the root itself is `[]`); undefined when unknown,
   * detached, or in a parent cycle a NAS served (an unknown path, never an error).
   */
  pathOf(id: string): string[] | undefined {
    const root = this.root();
    const names: string[] = [];
    const visited = new Set<string>();
    let cur = id;
    for (;;) {
      if (root && (cur === root.id || cur === 'root')) return names.reverse();
      if (visited.has(cur)) return undefined;
      visited.add(cur);
      const o = this.get(cur);
      if (!o) return undefined;
      names.push(o.name);
      cur = o.parentID;
    }
  }

  /** The stored listings of these folders (one read; a folder never listed in full is absent). */
  listings(folderIds: readonly string[]): Map<string, StoredListing> {
    const out = new Map<string, StoredListing>();
    const cache = this.listingCache;
    if (cache) {
      for (const id of folderIds) {
        const row = cache.get(id);
        if (row) out.set(id, storedListing(row[0], row[1]));
      }
      return out;
    }
    for (const [id, pages, children] of this.q.listings.all(JSON.stringify(folderIds))) out.set(id, storedListing(pages, children));
    return out;
  }

  /**
   * Reads every stored listing at once, for a walk about to ask most of them: one scan (at 1M,
   * 14,666 rows in ~25 ms) where a query a listing unit cost ~10x that in the walk. Until
   * `releaseListings`, `listings` answers from these rows as read, less every row written or
   * dropped since (never a row the table no longer holds: such a folder is listed in full).
   */
  preloadListings(): void {
    const cache = new Map<string, [string, string | null]>();
    for (const [id, pages, children] of this.q.allListings.iterate()) cache.set(id, [pages, children]);
    this.listingCache = cache;
  }

  /** Back to reading listings from the table (the walk ended). */
  releaseListings(): void {
    this.listingCache = undefined;
  }

  /**
   * Records listings (after the objects of those pages are applied), in one transaction. A
   * listing whose children count differs from the stored children (objects its pages left
   * out, read again at the end of the walk, or moved out since) is not kept, and the folder's
   * earlier one goes: the next walk lists it in full. (In a bulk fill the store holds only
   * what this walk wrote, and counting without the parent index would read every row.)
   */
  setListings(listings: ReadonlyMap<string, StoredListing>): void {
    if (listings.size === 0) return;
    this.db.transaction(() => {
      for (const [id, { chain, children }] of listings) {
        this.listingCache?.delete(id);
        if (children && !this.bulk && this.childCount(id) !== children.count) {
          this.q.delListing.run(id);
          continue;
        }
        const kept =
          children && JSON.stringify({ count: children.count, folders: children.folders.map((f) => [f.id, f.childCount ?? null]) });
        this.q.setListing.run(id, JSON.stringify(chain), kept ?? null);
      }
    })();
  }

  /**
   * Forgets the stored listing chains of these folders: the next walk lists them in full. Our
   * own change moved or renamed something in them; a 304 against the chain stored before it
   * could hide a later change by someone else that makes the listing look as it was.
   */
  forgetListings(folderIds: Iterable<string>): void {
    for (const id of folderIds) this.dropListing(id);
  }

  /** A folder's stored listing goes (from the table, and from a walk's preloaded rows). */
  private dropListing(id: string): void {
    this.listingCache?.delete(id);
    this.q.delListing.run(id);
  }

  /** How many direct children `parentId` has, and which of them are folders, with their stored `childCount` (no file's row is read). */
  childSummary(parentId: string): FolderChildren {
    const folders = this.q.childFolders.all(this.resolve(parentId)).map(([id, n]) => ({ id, childCount: n ?? undefined }));
    return { count: this.childCount(parentId), folders };
  }

  /** How many direct children `parentId` has (counted in the parent index). */
  childCount(parentId: string): number {
    return this.q.childCount.get(this.resolve(parentId)) ?? 0;
  }

  /** Whether `id` is stored (the root excepted). */
  has(id: string): boolean {
    return this.q.parentOf.get(id) !== undefined;
  }

  /** `[id, parentId]` of each of `ids` that is stored (the root excepted), one indexed read each. */
  *parentsOf(ids: Iterable<string>): Generator<[string, string]> {
    for (const id of ids) {
      const parentId = this.q.parentOf.get(id);
      if (parentId !== undefined) yield [id, parentId];
    }
  }

  /** `[id, parentId]` of every stored object except the root, streamed. */
  idsAndParents(): IterableIterator<[string, string]> {
    return this.q.idsAndParents.iterate();
  }

  /** Every object except the root, streamed. */
  all(): IterableIterator<RemoteObject> {
    // a plain iterator over the statement's (no generator: this reads every row of a reconcile)
    const rows = this.q.all.iterate();
    const it: IterableIterator<RemoteObject> = {
      next: () => {
        const r = rows.next();
        if (r.done === true) return { done: true, value: undefined };
        try {
          return { done: false, value: storedObject(r.value, 'listing every object') };
        } catch (e) {
          rows.return?.(); // a damaged row ends the read: the connection is free again
          throw e;
        }
      },
      return: (value?: unknown) => {
        rows.return?.();
        return { done: true, value };
      },
      [Symbol.iterator]: () => it,
    };
    return it;
  }

  /** Every stored JSON text except the root's, streamed (cheap: no parse). */
  allJson(): IterableIterator<string> {
    return this.q.all.iterate();
  }

  /** The searchable fields of every object except the root: `[id, name, mimeType, cameraMake, cameraModel]`. */
  docRows(): IterableIterator<[string, string, string, string | null, string | null]> {
    return this.q.docs.iterate();
  }

  /** Objects stored (the root not counted); counted once, then kept by `apply`. */
  count(): number {
    this.counted ??= this.q.count.get()!.n;
    return this.counted;
  }

  private counted: number | undefined;

  /** The user's root folder, once a walk has seen it. */
  root(): RemoteObject | undefined {
    const v = this.q.meta.get('root')?.value;
    if (!v) return undefined;
    // `get` asks for the root on every call: its text is parsed and checked once per change
    if (v !== this.rootRead?.json) this.rootRead = { json: v, root: Object.freeze(storedObject(v, 'root')) };
    return this.rootRead.root;
  }

  private rootRead: { json: string; root: RemoteObject } | undefined;

  setRoot(o: RemoteObject): void {
    const v = JSON.stringify(o);
    if (this.q.meta.get('root')?.value !== v) this.q.setMeta.run('root', v);
  }

  /** Incremented by every applied batch of changes. */
  generation(): number {
    return Number(this.q.meta.get('generation')?.value ?? '0');
  }

  lastWalk(): WalkRecord | undefined {
    const v = this.q.meta.get('lastWalk')?.value;
    return v ? (JSON.parse(v) as WalkRecord) : undefined;
  }

  setLastWalk(w: WalkRecord): void {
    this.q.setMeta.run('lastWalk', JSON.stringify(w));
  }

  /**
   * Filling an EMPTY store: the (parent_id, name) index is dropped and built once at the
   * end (random inserts into it cost half of a first walk's writes). Reads by parent work
   * meanwhile, slower. `endBulkFill` (or the next open) restores it.
   */
  beginBulkFill(): void {
    this.db.exec('DROP INDEX IF EXISTS mirror_objects_parent');
    this.bulk = true;
  }

  endBulkFill(): void {
    this.bulk = false;
    this.db.exec(PARENT_INDEX);
  }

  /** In a bulk fill, applies are not written to `mirror_unfollowed` (the disk follows all of them: see `fillGen`). */
  private bulk = false;
  /** A walk's preloaded listing rows (`preloadListings`): [pages, children] as stored. */
  private listingCache: Map<string, [string, string | null]> | undefined;

  /**
   * The generation of the last apply whose ids `mirror_unfollowed` does not hold (a bulk
   * fill's, or before the table existed): a disk that followed the store up to an older
   * generation must plan every object.
   */
  fillGen(): number {
    return Number(this.q.meta.get('fillGen')?.value ?? '0');
  }

  /**
   * Applies a batch in one transaction; a batch with no change writes nothing. The stored
   * listing of each folder whose children it changes goes (`StoredListing`).
   */
  apply(changes: readonly RemoteChange[]): void {
    if (changes.length === 0) return;
    this.db.transaction(() => {
      const changed = new Set<string>();
      for (const c of changes) {
        if (!this.bulk) this.unfollowed.add(c.kind === 'removed' ? c.before.id : c.after.id);
        for (const folder of foldersChangedBy(c)) changed.add(folder);
        if (c.kind === 'removed') {
          this.q.del.run(c.before.id);
          if (c.before.mimeType === FOLDER_MIME) this.dropListing(c.before.id);
        } else {
          const o = c.after;
          const make = typeof o.image?.cameraMake === 'string' ? o.image.cameraMake : null;
          const model = typeof o.image?.cameraModel === 'string' ? o.image.cameraModel : null;
          this.q.upsert.run(o.id, o.parentID, o.name, o.eTag ?? '', o.mimeType === FOLDER_MIME ? 1 : 0, o.mimeType, make, model, jsonOf(o));
        }
      }
      for (const folder of changed) this.dropListing(this.resolve(folder));
      const gen = String(this.generation() + 1);
      this.q.setMeta.run('generation', gen);
      if (this.bulk) this.q.setMeta.run('fillGen', gen);
    })();
    // diff says `added` only for ids not stored, and `removed` only for stored ones
    if (this.counted !== undefined) for (const c of changes) this.counted += c.kind === 'added' ? 1 : c.kind === 'removed' ? -1 : 0;
  }

  private resolve(id: string): string {
    return id === 'root' ? (this.root()?.id ?? id) : id;
  }
}

/** The folders whose children a change changes: which ids, or a subfolder's kind or childCount. */
function foldersChangedBy(c: RemoteChange): string[] {
  if (c.kind === 'added') return [c.after.parentID];
  if (c.kind === 'removed') return [c.before.parentID];
  const { before: b, after: a } = c;
  if (b.parentID !== a.parentID) return [b.parentID, a.parentID];
  const folder = a.mimeType === FOLDER_MIME;
  return folder !== (b.mimeType === FOLDER_MIME) || (folder && a.childCount !== b.childCount) ? [a.parentID] : [];
}

/** A stored listing row read: its chain, and what the folder held when it was stored (v6 rows on). */
function storedListing(pages: string, children: string | null): StoredListing {
  const c = children === null ? undefined : (JSON.parse(children) as { count: number; folders: [string, number | null][] });
  return {
    chain: JSON.parse(pages) as ListingChain,
    children: c && { count: c.count, folders: c.folders.map(([fid, n]) => ({ id: fid, childCount: n ?? undefined })) },
  };
}
