/**
 * Organize batches in the state db (component `organize`): one row per applied (or, from
 * the command line, planned) batch, linked to its ONE activity entry, and one row per
 * change with its outbox entry. The outbox stays the single source of what was sent.
 */
import { migrate, type Db } from '../state/db.js';

const MIGRATIONS = [
  {
    version: 1,
    up: (db: Db): void => {
      db.exec(`
        CREATE TABLE organize_batches (
          id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, state TEXT NOT NULL,
          q TEXT NOT NULL, rename TEXT, move TEXT, activity_seq INTEGER
        );
        CREATE INDEX organize_batches_activity ON organize_batches(activity_seq);
        CREATE TABLE organize_items (
          batch_id INTEGER NOT NULL, pos INTEGER NOT NULL, object_id TEXT NOT NULL, name TEXT, parent_id TEXT,
          from_name TEXT NOT NULL, from_parent TEXT NOT NULL, path TEXT NOT NULL, outbox_seq INTEGER,
          PRIMARY KEY (batch_id, pos)
        ) WITHOUT ROWID;
      `);
    },
  },
];

/** One change of a batch: what to send, and what the object was when it was planned. */
export interface BatchItem {
  objectId: string;
  name: string | null;
  parentId: string | null;
  fromName: string;
  fromParent: string;
  path: string;
  outboxSeq: number | null;
}

export type BatchState = 'planned' | 'applied' | 'undone';

export interface BatchRow {
  id: number;
  at: string;
  state: BatchState;
  q: string;
  rename: string | null;
  move: string | null;
  activitySeq: number | null;
}

const BATCH_COLS = 'id, at, state, q, rename, move, activity_seq AS activitySeq';

/** Inserts one change of a batch: its batch id, its position, then the item's fields. */
const INSERT_ITEM =
  'INSERT INTO organize_items (batch_id, pos, object_id, name, parent_id, from_name, from_parent, path, outbox_seq) ' +
  'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';

export class OrganizeStore {
  constructor(readonly db: Db) {
    migrate(db, 'organize', MIGRATIONS);
  }

  create(b: { state: BatchState; q: string; rename: string | null; move: string | null }, items: readonly BatchItem[]): number {
    const id = Number(
      this.db
        .prepare('INSERT INTO organize_batches (at, state, q, rename, move) VALUES (?, ?, ?, ?, ?)')
        .run(new Date().toISOString(), b.state, b.q, b.rename, b.move).lastInsertRowid,
    );
    const ins = this.db.prepare(INSERT_ITEM);
    items.forEach((it, pos) => ins.run(id, pos, it.objectId, it.name, it.parentId, it.fromName, it.fromParent, it.path, it.outboxSeq));
    return id;
  }

  get(id: number): BatchRow | undefined {
    return this.db.prepare(`SELECT ${BATCH_COLS} FROM organize_batches WHERE id = ?`).get(id) as BatchRow | undefined;
  }

  byActivity(seq: number): BatchRow | undefined {
    return this.db.prepare(`SELECT ${BATCH_COLS} FROM organize_batches WHERE activity_seq = ?`).get(seq) as BatchRow | undefined;
  }

  items(batchId: number): BatchItem[] {
    return this.db
      .prepare(
        'SELECT object_id AS objectId, name, parent_id AS parentId, from_name AS fromName, from_parent AS fromParent, path, ' +
          'outbox_seq AS outboxSeq FROM organize_items WHERE batch_id = ? ORDER BY pos',
      )
      .all(batchId) as BatchItem[];
  }

  /** Replaces the items (a planned batch becomes the applied one, with outbox seqs). */
  setApplied(batchId: number, activitySeq: number, items: readonly BatchItem[]): void {
    this.db.prepare('DELETE FROM organize_items WHERE batch_id = ?').run(batchId);
    const ins = this.db.prepare(INSERT_ITEM);
    items.forEach((it, pos) => ins.run(batchId, pos, it.objectId, it.name, it.parentId, it.fromName, it.fromParent, it.path, it.outboxSeq));
    this.db.prepare("UPDATE organize_batches SET state = 'applied', activity_seq = ? WHERE id = ?").run(activitySeq, batchId);
  }

  setState(batchId: number, state: BatchState): void {
    this.db.prepare('UPDATE organize_batches SET state = ? WHERE id = ?').run(state, batchId);
  }

  /** How the batch's outbox entries stand: counts by outbox state. */
  progress(batchId: number): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.db
      .prepare(
        'SELECT o.state AS state, count(*) AS n FROM organize_items i JOIN outbox_entries o ON o.seq = i.outbox_seq ' +
          'WHERE i.batch_id = ? GROUP BY o.state',
      )
      .all(batchId) as { state: string; n: number }[])
      out[r.state] = r.n;
    return out;
  }
}
