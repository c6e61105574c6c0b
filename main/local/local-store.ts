/**
 * Persistence of the local side (component `local` of the state db): the model's entries,
 * meta (mirror folder, pause), the "local only" list, held deletes, conflicts, the activity
 * log, and requests queued by the command line for the running engine (single writer).
 */
import { migrate, stmt, type Db } from '../state/db.js';
import { activityKindOf, type ActivityKind } from '../../app/model/activity-kinds.js';
import type { ConflictIntent } from '../../app/model/intent.js';
import { conflictIntentOf, migrateConflictIntents } from './conflict-rows.js';
import { LocalModel, type HeldContent } from './model.js';
import { heldContentOf, StoredEntries } from './entry-rows.js';

export { heldContentOf };

export const LOCAL_MIGRATIONS = [
  {
    version: 1,
    up: (db: Db): void => {
      db.exec(
        `
        CREATE TABLE local_entries (
          id TEXT PRIMARY KEY, kind TEXT NOT NULL, lparent TEXT NOT NULL, lname TEXT NOT NULL, ino TEXT,
          filled INTEGER NOT NULL, rparent TEXT NOT NULL, rname TEXT NOT NULL, etag TEXT NOT NULL,
          mtime TEXT NOT NULL, setag TEXT NOT NULL, state TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE local_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE local_only (path TEXT PRIMARY KEY, kind TEXT NOT NULL, reason TEXT NOT NULL, at TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE local_held (id TEXT PRIMARY KEY, at TEXT NOT NULL, path TEXT NOT NULL, folder INTEGER NOT NULL, ` +
          `objects INTEGER NOT NULL, reason TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE local_conflicts (
          seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, kind TEXT NOT NULL, object_id TEXT NOT NULL,
          path TEXT NOT NULL, intent TEXT NOT NULL, remote TEXT NOT NULL, reason TEXT NOT NULL, op TEXT NOT NULL
        );
        CREATE TABLE local_activity (
          seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL,
          summary TEXT NOT NULL, reason TEXT NOT NULL, outbox_seq INTEGER, undone INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE local_requests (seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, action TEXT NOT NULL, ids TEXT NOT NULL);
      `,
      );
    },
  },
  {
    // v2: folder stamps (dir-stamps.ts): a restart reads only the folders that changed.
    version: 2,
    up: (db: Db): void => {
      db.exec('CREATE TABLE local_dirs (id TEXT PRIMARY KEY, stamp TEXT NOT NULL) WITHOUT ROWID;');
    },
  },
  // v3: a conflict's intent is the one intent union (conflict-rows.ts); earlier rows rewritten.
  { version: 3, up: migrateConflictIntents },
  // v4: local-only rows keyed by the mirrored folder holding them (id, name), not by a path
  // string, so a rename above them carries them along (issue 21).
  { version: 4, up: migrateLocalOnlyByFolder },
  // v5: a held disappearance that may have been a rename keeps the places it may have gone
  // (JSON array of paths; NULL for a delete held by the threshold), for the "it was renamed" choice.
  {
    version: 5,
    up: (db: Db): void => {
      db.exec('ALTER TABLE local_held ADD COLUMN candidates TEXT');
    },
  },
  // v6 (issue 23): a file holding a NAS version the engine downloaded records it (`content`: JSON
  // {etag, nasMtime, size, mtimeMs, ino}; NULL = a placeholder or the user's content), and a download in
  // progress keeps the version it is fetching (its partial file is `.nas-mirror/downloads/<file>`).
  {
    version: 6,
    up: (db: Db): void => {
      db.exec(
        `ALTER TABLE local_entries ADD COLUMN content TEXT;
        CREATE TABLE local_downloads (id TEXT PRIMARY KEY, etag TEXT NOT NULL, size INTEGER NOT NULL, file TEXT NOT NULL, ` +
          'at TEXT NOT NULL) WITHOUT ROWID;',
      );
    },
  },
  // v7 (issue 23): "Keep on this device": the pinned files and folders, by object id (a folder's pin
  // covers what the model holds below it, so a rename or move keeps it, and what is added later).
  {
    version: 7,
    up: (db: Db): void => {
      db.exec('CREATE TABLE local_pins (id TEXT PRIMARY KEY, at TEXT NOT NULL) WITHOUT ROWID;');
    },
  },
  // v8: downloads about to land (written before a turn's renames, removed with the model's rows):
  // what each file will hold (`content`: JSON as in local_entries), so a start adopts a file a kill left renamed.
  {
    version: 8,
    up: (db: Db): void => {
      db.exec('CREATE TABLE local_landings (id TEXT PRIMARY KEY, content TEXT NOT NULL, at TEXT NOT NULL) WITHOUT ROWID;');
    },
  },
  // v9 (issue 24): the model reads its entries on use (entry-rows.ts): by local folder, by inode,
  // the folders, and (at a start) the few holding content.
  {
    version: 9,
    up: (db: Db): void => {
      db.exec(`CREATE INDEX local_entries_lparent ON local_entries(lparent);
        CREATE INDEX local_entries_ino ON local_entries(ino) WHERE ino IS NOT NULL;
        CREATE INDEX local_entries_dirs ON local_entries(kind) WHERE kind = 'dir';
        CREATE INDEX local_entries_filled ON local_entries(filled) WHERE filled = 1;
        CREATE INDEX local_entries_content ON local_entries(id) WHERE content IS NOT NULL;`);
    },
  },
];

/** A download in progress: the version it fetches and its partial file's name in `.nas-mirror/downloads/`. */
export interface DownloadRow {
  id: string;
  etag: string;
  size: number;
  file: string;
}

/** A download about to land: the object, and what its file holds once renamed over the placeholder. */
export interface Landing {
  id: string;
  content: HeldContent;
}

/** The stored candidates of a held row: a JSON array of strings, anything else none. */
function candidatesOf(text: string | null): string[] | undefined {
  if (text === null) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `parent` of a local-only row kept at a literal path (`name` is then the path from the
 * mirror root): entries outside the mirrored tree (`.nas-mirror/local-only/...`) or in a
 * folder the model does not know. No NAS id is empty.
 */
export const LITERAL_PATH = '';

/** Migration v4: each `local_only` path becomes (folder id, name) through the stored entries where it resolves, else a literal path row. */
export function migrateLocalOnlyByFolder(db: Db): void {
  db.exec(`CREATE TABLE local_only_v4 (parent TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, reason TEXT NOT NULL, at TEXT NOT NULL,
    PRIMARY KEY (parent, name)) WITHOUT ROWID;`);
  const rows = db.prepare('SELECT path, kind, reason, at FROM local_only').all() as {
    path: string;
    kind: string;
    reason: string;
    at: string;
  }[];
  const ins = db.prepare(
    'INSERT INTO local_only_v4 (parent, name, kind, reason, at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(parent, name) DO NOTHING',
  );
  const convert = rows.some((r) => r.kind !== 'moved');
  // Folders only, by (local parent, NFC name): paths were written from the disk's names.
  const dirs = new Map<string, string>();
  let root: string | undefined;
  if (convert) {
    for (const d of db.prepare("SELECT id, lparent, lname FROM local_entries WHERE kind = 'dir'").iterate() as IterableIterator<{
      id: string;
      lparent: string;
      lname: string;
    }>) {
      if (d.lparent === '') root = d.id;
      else dirs.set(`${d.lparent}\0${d.lname.normalize('NFC')}`, d.id);
    }
  }
  for (const r of rows) {
    const segs = r.path.split('/');
    const name = segs.pop()!;
    let parent: string | undefined = r.kind === 'moved' || name === '' ? undefined : root;
    for (const seg of segs) {
      if (parent === undefined) break;
      parent = dirs.get(`${parent}\0${seg.normalize('NFC')}`);
    }
    if (parent === undefined) ins.run(LITERAL_PATH, r.path, r.kind, r.reason, r.at);
    else ins.run(parent, name, r.kind, r.reason, r.at);
  }
  db.exec('DROP TABLE local_only; ALTER TABLE local_only_v4 RENAME TO local_only;');
}

/** A decision to record in the activity log. */
export interface ActivityInput {
  kind: ActivityKind;
  path: string;
  summary: string;
  reason: string;
  outboxSeq?: number;
}

export interface ActivityRow {
  seq: number;
  at: string;
  kind: ActivityKind;
  path: string;
  summary: string;
  reason: string;
  outboxSeq: number | null;
  undone: boolean;
}

export interface ConflictRow {
  seq: number;
  at: string;
  /** The intent's `op` (patch, delete, unsendable; content: a file changed on both sides). */
  kind: ConflictIntent['op'];
  objectId: string;
  path: string;
  /** The intent in words, as the user saw it then. */
  intent: string;
  remote: string;
  reason: string;
  /** The intent itself, checked when read back. */
  op: ConflictIntent;
}

type StoredActivity = Omit<ActivityRow, 'undone' | 'kind'> & { kind: string; undone: number };
const activityOf = (r: StoredActivity): ActivityRow => ({ ...r, kind: activityKindOf(r.kind), undone: r.undone === 1 });

export interface HeldRow {
  id: string;
  at: string;
  path: string;
  folder: boolean;
  objects: number;
  reason: string;
  /** Where it may have gone (renamed or deleted?), when that is why it is held. */
  candidates?: string[] | undefined;
}

/** A "local only" row as stored: where it is (its key), what it is. */
export interface StoredLocalOnly {
  /** The id of the mirrored folder holding it; null: kept at a literal path (`name` is then that path). */
  parent: string | null;
  name: string;
  kind: string;
  reason: string;
  at: string;
}

export interface LocalOnlyRow extends StoredLocalOnly {
  /** Computed when read: its folder's path now, then its name (or the literal path). */
  path: string;
}

/** Where a local-only entry is: in a mirrored folder (by its NAS id), or at a literal path from the mirror root. */
export type LocalOnlyPlace = { parent: string; name: string } | { path: string };

const keyOf = (p: LocalOnlyPlace): [string, string] => ('path' in p ? [LITERAL_PATH, p.path] : [p.parent, p.name]);

export type RequestAction =
  | 'approve'
  | 'reject'
  | 'renamed'
  | 'reapply'
  | 'drop'
  | 'keep-mine'
  | 'keep-nas'
  | 'keep-both'
  | 'undo'
  | 'sync'
  | 'pause'
  | 'resume'
  | 'organize'
  | 'get'
  | 'pin'
  | 'unpin'
  | 'free'
  | 'upload'
  | 'keep-here';

/** How many activity rows are kept. */
export const ACTIVITY_KEEP = 20_000;

export class LocalStore {
  /** Told the candidates of a held "renamed or deleted?" that left with its entry (flush). */
  heldDropped: ((candidates: readonly string[]) => void) | undefined;

  constructor(readonly db: Db) {
    migrate(db, 'local', LOCAL_MIGRATIONS);
  }

  /** The model as stored: its entries read on use (`entry-rows.ts`), the folder stamps now. */
  loadModel(rootId: string): LocalModel {
    const m = new LocalModel(rootId, [], new StoredEntries(this.db));
    for (const r of this.db.prepare('SELECT id, stamp FROM local_dirs').iterate() as IterableIterator<{ id: string; stamp: string }>)
      m.setStamp(r.id, r.stamp);
    m.takeDirtyStamps();
    return m;
  }

  /** Writes what changed in the model since the last flush, in one transaction. */
  flush(m: LocalModel): void {
    const stamps = m.takeDirtyStamps();
    if (stamps.length) {
      const set = stmt(this.db, 'INSERT INTO local_dirs (id, stamp) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET stamp = excluded.stamp');
      const del = stmt(this.db, 'DELETE FROM local_dirs WHERE id = ?');
      this.db.transaction(() => {
        for (const id of stamps) {
          const st = m.stamp(id);
          if (st === undefined) del.run(id);
          else set.run(id, st);
        }
      })();
    }
    const ids = m.takeDirty();
    if (ids.length === 0) return;
    const up = stmt(
      this.db,
      `INSERT INTO local_entries (id, kind, lparent, lname, ino, filled, rparent, rname, etag, mtime, setag, state, content)
      VALUES (@id, @kind, @lparent, @lname, @ino, @filled, @rparent, @rname, @etag, @mtime, @setag, @state, @content)
      ON CONFLICT(id) DO UPDATE SET kind=excluded.kind, lparent=excluded.lparent, lname=excluded.lname, ` +
        `ino=excluded.ino, filled=excluded.filled,
      rparent=excluded.rparent, rname=excluded.rname, etag=excluded.etag, mtime=excluded.mtime, ` +
        'setag=excluded.setag, state=excluded.state, content=excluded.content',
    );
    const del = stmt(this.db, 'DELETE FROM local_entries WHERE id = ?');
    // A folder gone from the model takes its local-only rows (what it held on disk went with it, or was kept as a literal row).
    const delLocalOnly = stmt(this.db, 'DELETE FROM local_only WHERE parent = ?');
    // ...and its held row: nothing is left to decide about an entry the model no longer has.
    // (what a dropped "renamed or deleted?" named as where it may have gone, in the same statement)
    const delHeld = stmt(this.db, 'DELETE FROM local_held WHERE id = ? RETURNING candidates');
    const dropped: string[][] = [];
    this.db.transaction(() => {
      for (const id of ids) {
        const e = m.peek(id);
        if (e) up.run({ ...e, filled: e.filled ? 1 : 0, content: e.content === undefined ? null : JSON.stringify(e.content) });
        else {
          del.run(id);
          delLocalOnly.run(id);
          const c = candidatesOf((delHeld.get(id) as { candidates: string | null } | undefined)?.candidates ?? null);
          if (c) dropped.push(c);
        }
      }
    })();
    // a "renamed or deleted?" dropped because its entry left (the NAS deleted it): where it may
    // have gone is no new entry of the user's to create on the NAS (engine/core.ts)
    for (const c of dropped) this.heldDropped?.(c);
  }

  meta(key: string): string | undefined {
    return (this.db.prepare('SELECT value FROM local_meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string | undefined): void {
    if (value === undefined) this.db.prepare('DELETE FROM local_meta WHERE key = ?').run(key);
    else
      this.db
        .prepare('INSERT INTO local_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
        .run(key, value);
  }

  addActivity(a: ActivityInput): number {
    const r = stmt(this.db, 'INSERT INTO local_activity (at, kind, path, summary, reason, outbox_seq) VALUES (?, ?, ?, ?, ?, ?)').run(
      new Date().toISOString(),
      a.kind,
      a.path,
      a.summary,
      a.reason,
      a.outboxSeq ?? null,
    );
    const seq = Number(r.lastInsertRowid);
    // Keep the newest ACTIVITY_KEEP decisions.
    if (seq % 1000 === 0) stmt(this.db, 'DELETE FROM local_activity WHERE seq <= ?').run(seq - ACTIVITY_KEEP);
    return seq;
  }

  activity(limit = 200): ActivityRow[] {
    const rows = this.db
      .prepare('SELECT seq, at, kind, path, summary, reason, outbox_seq AS outboxSeq, undone FROM local_activity ORDER BY seq DESC LIMIT ?')
      .all(limit) as StoredActivity[];
    return rows.map(activityOf);
  }

  activityBySeq(seq: number): ActivityRow | undefined {
    const r = this.db
      .prepare('SELECT seq, at, kind, path, summary, reason, outbox_seq AS outboxSeq, undone FROM local_activity WHERE seq = ?')
      .get(seq) as StoredActivity | undefined;
    return r ? activityOf(r) : undefined;
  }

  markUndone(seq: number): void {
    this.db.prepare('UPDATE local_activity SET undone = 1 WHERE seq = ?').run(seq);
  }

  /**
   * Lists an entry the NAS does not have. In a mirrored folder it is keyed by that folder's id
   * and its name: a rename above it carries it along, and the folder leaving the model drops it.
   */
  addLocalOnly(place: LocalOnlyPlace, kind: string, reason: string): void {
    stmt(
      this.db,
      'INSERT INTO local_only (parent, name, kind, reason, at) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT(parent, name) DO UPDATE SET reason = excluded.reason',
    ).run(...keyOf(place), kind, reason, new Date().toISOString());
  }

  /** Every row as stored, without paths (pruning; the list is `localOnly`). */
  localOnlyStored(): StoredLocalOnly[] {
    const rows = this.db.prepare('SELECT parent, name, kind, reason, at FROM local_only').all() as (Omit<StoredLocalOnly, 'parent'> & {
      parent: string;
    })[];
    return rows.map((r) => ({ ...r, parent: r.parent === LITERAL_PATH ? null : r.parent }));
  }

  /** The list, each path as `model` places its folder now; a row whose folder it cannot place is left out (that folder is leaving). */
  localOnly(model: LocalModel): LocalOnlyRow[] {
    const out: LocalOnlyRow[] = [];
    for (const r of this.localOnlyStored()) {
      if (r.parent === null) {
        out.push({ ...r, path: r.name });
        continue;
      }
      const dir = model.pathOf(r.parent);
      if (dir !== undefined) out.push({ ...r, path: dir === '' ? r.name : `${dir}/${r.name}` });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** How many rows the list holds (no path needed: `readStatus` has no model). */
  localOnlyCount(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM local_only').get() as { n: number }).n;
  }

  /** Drops one row, by its key as read (`localOnlyStored`, `localOnly`). */
  removeLocalOnly(row: Pick<StoredLocalOnly, 'parent' | 'name'>): void {
    stmt(this.db, 'DELETE FROM local_only WHERE parent = ? AND name = ?').run(row.parent ?? LITERAL_PATH, row.name);
  }

  /** Entries stored (the root included) and how many hold local content: for a status read without loading the model. */
  entryCounts(): { entries: number; filled: number } {
    const row = this.db.prepare('SELECT count(*) AS n, sum(filled) AS f FROM local_entries').get() as { n: number; f: number | null };
    return { entries: row.n, filled: row.f ?? 0 };
  }

  /** Placeholders the disk shows directly under `parentId` (the mirror-health check without loading the model). */
  placedChildren(parentId: string): number {
    return (
      this.db.prepare("SELECT count(*) AS n FROM local_entries WHERE lparent = ? AND state = 'ok' AND ino IS NOT NULL").get(parentId) as {
        n: number;
      }
    ).n;
  }

  addHeld(h: Omit<HeldRow, 'at'>): void {
    this.db
      .prepare(
        'INSERT INTO local_held (id, at, path, folder, objects, reason, candidates) VALUES (?, ?, ?, ?, ?, ?, ?) ' +
          'ON CONFLICT(id) DO NOTHING',
      )
      .run(
        h.id,
        new Date().toISOString(),
        h.path,
        h.folder ? 1 : 0,
        h.objects,
        h.reason,
        h.candidates ? JSON.stringify(h.candidates) : null,
      );
  }

  held(): HeldRow[] {
    type Row = Omit<HeldRow, 'folder' | 'candidates'> & { folder: number; candidates: string | null };
    return (
      this.db.prepare('SELECT id, at, path, folder, objects, reason, candidates FROM local_held ORDER BY at, path').all() as Row[]
    ).map((r) => ({ ...r, folder: r.folder === 1, candidates: candidatesOf(r.candidates) }));
  }

  removeHeld(id: string): void {
    this.db.prepare('DELETE FROM local_held WHERE id = ?').run(id);
  }

  addConflict(c: Omit<ConflictRow, 'seq' | 'at' | 'kind'>): number {
    const r = this.db
      .prepare('INSERT INTO local_conflicts (at, kind, object_id, path, intent, remote, reason, op) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(new Date().toISOString(), c.op.op, c.objectId, c.path, c.intent, c.remote, c.reason, JSON.stringify(c.op));
    return Number(r.lastInsertRowid);
  }

  conflicts(): ConflictRow[] {
    const rows = this.db
      .prepare('SELECT seq, at, object_id AS objectId, path, intent, remote, reason, op FROM local_conflicts ORDER BY seq')
      .all() as (Omit<ConflictRow, 'op' | 'kind'> & { op: string })[];
    return rows.map((r) => {
      const op = conflictIntentOf(r.seq, r.op);
      return { ...r, kind: op.op, op };
    });
  }

  /** One conflict by its number (undefined: resolved, or never was). */
  conflict(seq: number): ConflictRow | undefined {
    const r = this.db
      .prepare('SELECT seq, at, object_id AS objectId, path, intent, remote, reason, op FROM local_conflicts WHERE seq = ?')
      .get(seq) as (Omit<ConflictRow, 'op' | 'kind'> & { op: string }) | undefined;
    if (r === undefined) return undefined;
    const op = conflictIntentOf(r.seq, r.op);
    return { ...r, kind: op.op, op };
  }

  removeConflict(seq: number): void {
    this.db.prepare('DELETE FROM local_conflicts WHERE seq = ?').run(seq);
  }

  /** Rewrites what conflict `seq` keeps (same kind: a content conflict's NAS version or note), and its words of the NAS. */
  updateConflict(seq: number, op: ConflictIntent, remote: string): void {
    this.db.prepare('UPDATE local_conflicts SET op = ?, remote = ? WHERE seq = ? AND kind = ?').run(JSON.stringify(op), remote, seq, op.op);
  }

  /** Queues a request for the engine (the command line's way to act on a running engine). */
  request(action: RequestAction, ids: readonly string[]): void {
    this.db
      .prepare('INSERT INTO local_requests (at, action, ids) VALUES (?, ?, ?)')
      .run(new Date().toISOString(), action, JSON.stringify(ids));
  }

  takeRequests(): { action: RequestAction; ids: string[] }[] {
    return this.db.transaction(() => {
      const rows = this.db.prepare('SELECT seq, action, ids FROM local_requests ORDER BY seq').all() as {
        seq: number;
        action: RequestAction;
        ids: string;
      }[];
      if (rows.length) this.db.prepare('DELETE FROM local_requests WHERE seq <= ?').run(rows[rows.length - 1]!.seq);
      return rows.map((r) => ({ action: r.action, ids: JSON.parse(r.ids) as string[] }));
    })();
  }

  /**
   * The id of the entry at a local path (segments from the mirror root), read from the stored
   * rows without loading the model (the command line); undefined when none is there.
   */
  idAtPath(rootId: string, segments: readonly string[]): string | undefined {
    const q = this.db.prepare('SELECT id, lname FROM local_entries WHERE lparent = ?');
    let cur = rootId;
    for (const seg of segments) {
      const rows = q.all(cur) as { id: string; lname: string }[];
      const hit = rows.find((r) => r.lname === seg) ?? rows.find((r) => r.lname.normalize('NFC') === seg.normalize('NFC'));
      if (!hit) return undefined;
      cur = hit.id;
    }
    return cur;
  }

  /** The local path of an entry from the stored rows (the command line, without the model): '' for the root; undefined when unknown. */
  pathOfStored(id: string): string | undefined {
    const q = this.db.prepare('SELECT lparent, lname FROM local_entries WHERE id = ?');
    const segs: string[] = [];
    let cur = id;
    for (let guard = 0; guard < 10_000; guard++) {
      const r = q.get(cur) as { lparent: string; lname: string } | undefined;
      if (!r) return undefined;
      if (r.lparent === '') return segs.reverse().join('/');
      segs.push(r.lname);
      cur = r.lparent;
    }
    return undefined;
  }

  /** What an entry holds, as stored: the user's content (`filled`), a downloaded version, or neither (a placeholder). */
  entryContent(id: string): { kind: string; filled: boolean; content: HeldContent | undefined } | undefined {
    const r = stmt(this.db, 'SELECT kind, filled, content FROM local_entries WHERE id = ?').get(id) as
      { kind: string; filled: number; content: string | null } | undefined;
    return r && { kind: r.kind, filled: r.filled === 1, content: heldContentOf(r.content) };
  }

  /** The newest activity row's number (a command waits for rows after it). */
  lastActivitySeq(): number {
    return (this.db.prepare('SELECT coalesce(max(seq), 0) AS n FROM local_activity').get() as { n: number }).n;
  }

  /** Activity rows after `seq`, oldest first. */
  activitySince(seq: number): ActivityRow[] {
    const rows = this.db
      .prepare(
        'SELECT seq, at, kind, path, summary, reason, outbox_seq AS outboxSeq, undone FROM local_activity WHERE seq > ? ORDER BY seq',
      )
      .all(seq) as StoredActivity[];
    return rows.map(activityOf);
  }

  /** The download in progress for `id`, if any. */
  download(id: string): DownloadRow | undefined {
    return stmt(this.db, 'SELECT id, etag, size, file FROM local_downloads WHERE id = ?').get(id) as DownloadRow | undefined;
  }

  setDownload(d: DownloadRow): void {
    stmt(
      this.db,
      'INSERT INTO local_downloads (id, etag, size, file, at) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT(id) DO UPDATE SET etag = excluded.etag, size = excluded.size, file = excluded.file, at = excluded.at',
    ).run(d.id, d.etag, d.size, d.file, new Date().toISOString());
  }

  removeDownload(id: string): void {
    stmt(this.db, 'DELETE FROM local_downloads WHERE id = ?').run(id);
  }

  /**
   * Records downloads about to land (one transaction): what each file will hold once renamed
   * over its placeholder. Removed in the transaction of the model's rows (`removeLandings`).
   */
  addLandings(rows: readonly Landing[]): void {
    const at = new Date().toISOString();
    const ins = stmt(
      this.db,
      'INSERT INTO local_landings (id, content, at) VALUES (?, ?, ?) ' +
        'ON CONFLICT(id) DO UPDATE SET content = excluded.content, at = excluded.at',
    );
    this.db.transaction(() => {
      for (const r of rows) ins.run(r.id, JSON.stringify(r.content), at);
    })();
  }

  removeLandings(ids: Iterable<string>): void {
    const del = stmt(this.db, 'DELETE FROM local_landings WHERE id = ?');
    this.db.transaction(() => {
      for (const id of ids) del.run(id);
    })();
  }

  /** The downloads recorded as landing (a kill left them: none otherwise); a damaged row holds no content. */
  landings(): { id: string; content: HeldContent | undefined }[] {
    const rows = this.db.prepare('SELECT id, content FROM local_landings').all() as { id: string; content: string }[];
    return rows.map((r) => ({ id: r.id, content: heldContentOf(r.content) }));
  }

  /** The pinned ids ("Keep on this device"): files, and folders whose pin covers everything below them. */
  pins(): Set<string> {
    return new Set((this.db.prepare('SELECT id FROM local_pins').all() as { id: string }[]).map((r) => r.id));
  }

  addPin(id: string): void {
    this.db.prepare('INSERT INTO local_pins (id, at) VALUES (?, ?) ON CONFLICT(id) DO NOTHING').run(id, new Date().toISOString());
  }

  removePins(ids: Iterable<string>): void {
    const del = this.db.prepare('DELETE FROM local_pins WHERE id = ?');
    this.db.transaction(() => {
      for (const id of ids) del.run(id);
    })();
  }

  /** Every download in progress (the partial files they name are kept; any other is swept). */
  downloads(): DownloadRow[] {
    return this.db.prepare('SELECT id, etag, size, file FROM local_downloads').all() as DownloadRow[];
  }

  pendingRequests(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM local_requests').get() as { n: number }).n;
  }
}
