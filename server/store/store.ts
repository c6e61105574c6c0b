/**
 * The durable object store: SQLite rows plus the in-memory TreeIndex. Every write is one
 * transaction; the index is updated only after the commit. Calls are synchronous, so a
 * check-then-write (If-Match, name clash) is atomic within the single service thread.
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../../app/errors.js';
import { FOLDER_MIME, type Hidden, type ImageMeta, type RemoteObject } from '../../app/model/remote-object.js';
import { nameProblem } from '../../app/model/names.js';
import type { ListingCursor, ListingOrder } from '../../app/search/listing.js';
import { isMediaType, mimeForName } from './mime.js';
import { toWire, type ObjectFlags, type ObjectRow } from './object-row.js';
import type { Db } from './schema.js';
import type Database from 'better-sqlite3';
import { HIDDEN_CODES, TreeIndex } from './tree-index.js';
import { releaseContent, unlinkAll } from './uploads.js';
import { NameIndex } from './name-index.js';

/** A new object (admin create, import, demo). */
export interface NewObject {
  name: string;
  dir: boolean;
  mime?: string;
  size?: number;
  mtime?: number;
  ctime?: number;
  hidden?: Hidden;
  image?: ImageMeta;
  flags?: ObjectFlags;
  /** Where an imported object came from (makes import idempotent). */
  source?: string;
  id?: string;
  /** Stem of a stored content file already in place (import, tests); absent: generated content. */
  content?: string;
  /** A new file created by an upload: unfinished (`partial`) with this upload row, in the same transaction. */
  upload?: { file: string };
}

/** What a patch may change (already type-checked). */
export interface PatchChanges {
  name?: string;
  parent?: number;
  mime?: string;
  hidden?: Hidden;
  mtime?: number;
  ctime?: number;
}

export const newId = (): string => randomBytes(12).toString('base64url');

export const bad = (message: string): AppError => new AppError('BadRequest', message, { status: 400 });
export const notFound = (): AppError => new AppError('NotFound', 'Not Found', { status: 404 });
export const forbidden = (detail: string): AppError => new AppError('Forbidden', 'Forbidden', { status: 403, detail });
const conflict = (detail: string): AppError => new AppError('Conflict', 'Conflict', { status: 409, detail });

const ORDER_COL = { name: null, mTime: 'mtime', cTime: 'ctime', size: 'size' } as const;

export class Store {
  readonly index = new TreeIndex();
  /** Candidate structures for text search, kept in step with `index`. */
  readonly names: NameIndex;
  private dataVersion: number;
  private seenTreeVersion: number;
  private readonly sGet;
  private readonly sById;
  private readonly sChild;
  private readonly sHasChild;
  private readonly sInsert;
  private readonly sInsertUpload;
  private readonly sBump;
  private readonly sCount;
  /** Prepared statements whose SQL is built per request (listing orders, patch columns). */
  private readonly listCache = new Map<string, Database.Statement>();

  constructor(readonly db: Db) {
    this.sGet = db.prepare('SELECT * FROM objects WHERE row = ?');
    this.sById = db.prepare('SELECT * FROM objects WHERE id = ?');
    this.sChild = db.prepare('SELECT * FROM objects WHERE parent = ? AND name = ? AND deleting = 0');
    this.sHasChild = db.prepare('SELECT 1 FROM objects WHERE parent = ? LIMIT 1');
    this.sInsert = db.prepare(`INSERT INTO objects
      (id, parent, name, dir, mime, size, mtime, ctime, hidden, image, flags, source, content, partial)
      VALUES (@id, @parent, @name, @dir, @mime, @size, @mtime, @ctime, @hidden, @image, @flags, @source, @content, @partial)`);
    this.sInsertUpload = db.prepare('INSERT INTO uploads (row, file, received, touched) VALUES (?, ?, 0, ?)');
    this.sBump = db.prepare('UPDATE objects SET version = version + 1 WHERE row = ?');
    this.sCount = db.prepare('UPDATE objects SET version = version + 1, child_count = child_count + ? WHERE row = ?');
    this.index.load(db);
    this.names = new NameIndex(this.index);
    this.dataVersion = db.pragma('data_version', { simple: true }) as number;
    this.seenTreeVersion = this.treeVersion();
  }

  /**
   * Reloads the index when another process (an admin command) changed objects, users or
   * grants: such commands bump `meta.tree_version` (see `markTreeChanged`). Minting a
   * token does not, so it never causes a reload.
   */
  refreshIfChanged(): boolean {
    const v = this.db.pragma('data_version', { simple: true }) as number;
    if (v === this.dataVersion) return false;
    this.dataVersion = v;
    const tv = this.treeVersion();
    if (tv === this.seenTreeVersion) return false;
    this.seenTreeVersion = tv;
    this.index.load(this.db);
    return true;
  }

  private treeVersion(): number {
    return (this.db.prepare("SELECT value FROM meta WHERE key = 'tree_version'").get() as { value: number } | undefined)?.value ?? 0;
  }

  /** Called by admin commands after they changed the tree, so a running service reloads. */
  markTreeChanged(): void {
    this.db.prepare("UPDATE meta SET value = value + 1 WHERE key = 'tree_version'").run();
  }

  get(row: number): ObjectRow | undefined {
    return this.sGet.get(row) as ObjectRow | undefined;
  }

  byId(id: string): ObjectRow | undefined {
    return this.sById.get(id) as ObjectRow | undefined;
  }

  child(parent: number, name: string): ObjectRow | undefined {
    return this.sChild.get(parent, name) as ObjectRow | undefined;
  }

  wire(r: ObjectRow): RemoteObject {
    return toWire(r, r.parent === 0 ? '' : (this.index.ids[r.parent] ?? ''));
  }

  /**
   * One listing page of the children of `parents` after `cursor`, in `order`: the rows of
   * at most `limit + 1` items (so the caller knows whether more follow). The order comes
   * from an index; rows being deleted and (with `hide`) that value of `hidden` are skipped
   * using the in-memory index, so no table row is read.
   */
  listRows(
    parents: readonly number[],
    order: ListingOrder,
    cursor: ListingCursor | null,
    limit: number,
    hide: string | undefined,
  ): number[] {
    const col = ORDER_COL[order.by];
    const cmp = order.dir === 'asc' ? '>' : '<';
    const dir = order.dir === 'asc' ? 'ASC' : 'DESC';
    const where: string[] = [parents.length === 1 ? 'parent = ?' : `parent IN (${parents.map(() => '?').join(',')})`];
    const args: (string | number)[] = [...parents];
    let orderBy: string;
    if (col === null) {
      where.push('deleting = 0'); // the partial index (parent, name) holds live rows only
      if (parents.length === 1) {
        // Names are unique among live siblings, so for items that exist throughout the walk
        // the name alone is the whole key; a plain range lets SQLite seek to the cursor.
        if (cursor) {
          where.push(`name ${cmp} ?`);
          args.push(cursor.name);
        }
        orderBy = `name ${dir}`;
      } else {
        if (cursor) {
          where.push(`(name, id) ${cmp} (?, ?)`);
          args.push(cursor.name, cursor.id);
        }
        orderBy = `name ${dir}, id ${dir}`;
      }
    } else {
      if (cursor) {
        where.push(`(${col}, name, id) ${cmp} (?, ?, ?)`);
        args.push(cursor.value ?? 0, cursor.name, cursor.id);
      }
      orderBy = `${col} ${dir}, name ${dir}, id ${dir}`;
    }
    const sql = `SELECT row FROM objects WHERE ${where.join(' AND ')} ORDER BY ${orderBy}`;
    let stmt = this.listCache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql).pluck();
      if (this.listCache.size > 200) this.listCache.clear();
      this.listCache.set(sql, stmt);
    }
    const ix = this.index;
    const hideCode = hide === undefined ? -1 : (HIDDEN_CODES as readonly string[]).indexOf(hide);
    const out: number[] = [];
    for (const row of stmt.iterate(...args) as Iterable<number>) {
      if (!ix.isAlive(row) || ix.isDeletingRow(row) || ix.hidden[row] === hideCode) continue;
      out.push(row);
      if (out.length > limit) break;
    }
    return out;
  }

  /** Creates an object in a live folder. Throws 400 for a bad name, 404 for a bad parent, 409 on a clash. */
  create(parent: number, spec: NewObject): ObjectRow {
    const problem = nameProblem(spec.name);
    if (problem) throw bad(problem);
    if (!this.index.isAlive(parent) || !this.index.isDir(parent) || this.index.access(-1, parent) < 0) throw notFound();
    const row = this.db
      .transaction(() => {
        if (this.child(parent, spec.name)) throw conflict(`"${spec.name}" already exists in this folder`);
        const now = Date.now();
        const mtime = spec.mtime ?? now;
        const res = this.sInsert.run({
          id: spec.id ?? newId(),
          parent,
          name: spec.name,
          dir: spec.dir ? 1 : 0,
          mime: spec.dir ? FOLDER_MIME : (spec.mime ?? mimeForName(spec.name)),
          size: spec.dir ? 0 : (spec.size ?? 0),
          mtime,
          ctime: spec.ctime ?? mtime,
          hidden: spec.hidden ?? 'none',
          image: spec.image ? JSON.stringify(spec.image) : null,
          flags: spec.flags ? JSON.stringify(spec.flags) : null,
          source: spec.source ?? null,
          content: spec.content ?? null,
          partial: spec.upload ? 1 : 0,
        });
        const row = Number(res.lastInsertRowid);
        if (spec.upload) this.sInsertUpload.run(row, spec.upload.file, now);
        this.sCount.run(1, parent);
        return row;
      })
      .immediate();
    const r = this.get(row)!;
    this.indexRow(r);
    this.syncMeta(parent);
    return r;
  }

  /** Puts a committed row into the in-memory index. */
  indexRow(r: ObjectRow): void {
    const img = r.image ? (JSON.parse(r.image) as ImageMeta) : undefined;
    this.index.setMeta(r.row, r);
    this.index.put(r.row, {
      id: r.id,
      parent: r.parent,
      name: r.name,
      dir: r.dir === 1,
      mime: r.mime,
      deleting: r.deleting === 1,
      partial: r.partial === 1,
      cameraMake: img?.cameraMake,
      cameraModel: img?.cameraModel,
    });
  }

  /** Copies the committed wire metadata of rows (versions, child counts, times) into the index. */
  syncMeta(...rows: number[]): void {
    for (const row of rows) {
      const r = this.get(row);
      if (r) this.index.setMeta(row, r);
    }
  }

  /**
   * Applies a patch. The caller has checked access to the object and to the new parent.
   * Validation errors are 400, a clash 409, the root 403. A patch that changes nothing
   * leaves the version as it is.
   */
  patch(row: number, ch: PatchChanges): ObjectRow {
    if (this.index.isRoot(row)) throw forbidden('the root folder cannot be patched');
    const cur = this.get(row);
    if (!cur || cur.deleting) throw notFound();
    if (ch.name !== undefined) {
      const p = nameProblem(ch.name);
      if (p) throw bad(p);
    }
    if (ch.mime !== undefined) {
      if (!isMediaType(ch.mime)) throw bad('mimeType is not a media type');
      if ((cur.dir === 1) !== (ch.mime === FOLDER_MIME))
        throw bad(cur.dir === 1 ? 'mimeType cannot turn a folder into a file' : 'mimeType cannot turn a file into a folder');
    }
    const name = ch.name ?? cur.name;
    const parent = ch.parent ?? cur.parent;
    const moved = parent !== cur.parent;
    if (moved) {
      if (!this.index.isAlive(parent) || this.index.access(-1, parent) < 0) throw notFound();
      if (!this.index.isDir(parent)) throw bad('parentID is not a folder');
      if (cur.dir === 1 && this.index.isAncestorOrSelf(row, parent))
        throw bad('cannot move a folder into itself or one of its descendants');
    }
    const sets: string[] = [];
    const args: (string | number)[] = [];
    const set = (col: string, v: string | number, old: string | number): void => {
      if (v !== old) {
        sets.push(`${col} = ?`);
        args.push(v);
      }
    };
    set('name', name, cur.name);
    set('parent', parent, cur.parent);
    if (ch.mime !== undefined) set('mime', ch.mime, cur.mime);
    if (ch.hidden !== undefined) set('hidden', ch.hidden, cur.hidden);
    if (ch.mtime !== undefined) set('mtime', ch.mtime, cur.mtime);
    if (ch.ctime !== undefined) set('ctime', ch.ctime, cur.ctime);
    if (sets.length === 0) return cur;
    const renamedOrMoved = moved || name !== cur.name;
    this.db
      .transaction(() => {
        if (renamedOrMoved) {
          const clash = this.child(parent, name);
          if (clash && clash.row !== row) throw conflict(`"${name}" already exists in the target folder`);
        }
        const sql = `UPDATE objects SET ${sets.join(', ')}, version = version + 1 WHERE row = ?`;
        let upd = this.listCache.get(sql);
        if (!upd) this.listCache.set(sql, (upd = this.db.prepare(sql)));
        upd.run(...args, row);
        if (moved) {
          this.sCount.run(-1, cur.parent);
          this.sCount.run(1, parent);
        } else if (renamedOrMoved) {
          this.sBump.run(cur.parent);
        }
      })
      .immediate();
    if (renamedOrMoved) this.index.move(row, parent, name);
    if (ch.mime !== undefined && ch.mime !== cur.mime) this.index.setMime(row, ch.mime);
    const after = this.get(row)!;
    this.index.setMeta(row, after);
    if (renamedOrMoved) this.syncMeta(cur.parent);
    if (moved) this.syncMeta(parent);
    return after;
  }

  /** Deletes a file or empty folder at once ('sync'), or marks a non-empty folder for the delete job ('async'). */
  remove(row: number): 'sync' | 'async' {
    if (this.index.isRoot(row)) throw forbidden('the root folder cannot be deleted');
    const cur = this.get(row);
    if (!cur || cur.deleting) throw notFound();
    const async = cur.dir === 1 && this.sHasChild.get(row) !== undefined;
    let files: string[] = [];
    this.db
      .transaction(() => {
        if (async) {
          this.db.prepare('UPDATE objects SET deleting = 1 WHERE row = ?').run(row);
          this.db.prepare('INSERT OR REPLACE INTO delete_jobs (row, created) VALUES (?, ?)').run(row, Date.now());
        } else {
          files = releaseContent(this.db, row);
          this.db.prepare('DELETE FROM objects WHERE row = ?').run(row);
          this.db.prepare('DELETE FROM grants WHERE row = ?').run(row);
        }
        this.sCount.run(-1, cur.parent);
      })
      .immediate();
    if (async) this.index.markDeleting(row);
    else this.index.remove(row);
    unlinkAll(files);
    this.syncMeta(cur.parent);
    return async ? 'async' : 'sync';
  }
}
