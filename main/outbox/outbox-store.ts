/**
 * The persistent outbox (component `outbox` of the state db), step 1 of enqueue -> send ->
 * settle. An entry is written BEFORE anything is sent and marked `sending` (also written)
 * before its request leaves: after a crash, a `sending` entry has an unknown outcome and is
 * checked on the NAS before it is resent. Entries are sent in `seq` order.
 */
import { AppError } from '../../app/errors.js';
import { intentSchema, type Intent } from '../../app/model/intent.js';
import { migrate, type Db } from '../state/db.js';

const MIGRATIONS = [
  {
    version: 1,
    up: (db: Db): void => {
      db.exec(`
        CREATE TABLE outbox_entries (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          at TEXT NOT NULL,
          op TEXT NOT NULL,
          object_id TEXT NOT NULL,
          name TEXT,
          parent_id TEXT,
          from_name TEXT NOT NULL,
          from_parent TEXT NOT NULL,
          origin TEXT NOT NULL,
          state TEXT NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          result_etag TEXT,
          path TEXT NOT NULL,
          reason TEXT NOT NULL,
          note TEXT
        );
        CREATE INDEX outbox_state ON outbox_entries(state, seq);
        CREATE INDEX outbox_object ON outbox_entries(object_id, state);
      `);
    },
  },
];

/**
 * local: from the watcher (already true on disk); the others (undo, reapply, approve, an
 * Organize batch and its undo): the NAS first, then the disk follows.
 */
export type Origin = 'local' | 'undo' | 'reapply' | 'approve' | 'organize' | 'organize-undo';
export type OutboxState = 'pending' | 'sending' | 'done' | 'conflict' | 'superseded';

export interface OutboxEntry {
  seq: number;
  at: string;
  /** What to do on the NAS: the one intent shape (app/model/intent.ts). */
  intent: Intent;
  origin: Origin;
  state: OutboxState;
  attempts: number;
  resultEtag: string | null;
  /** Local path when enqueued (for people). */
  path: string;
  reason: string;
  note: string | null;
}

export type NewEntry = Pick<OutboxEntry, 'intent' | 'origin' | 'path' | 'reason'>;

const COLS = `seq, at, op, object_id, name, parent_id, from_name, from_parent, origin, state, attempts, result_etag, path, reason, note`;

interface Row {
  seq: number;
  at: string;
  op: string;
  object_id: string;
  name: string | null;
  parent_id: string | null;
  from_name: string;
  from_parent: string;
  origin: Origin;
  state: OutboxState;
  attempts: number;
  result_etag: string | null;
  path: string;
  reason: string;
  note: string | null;
}

/** A row read back: its intent checked with the intent schema (a damaged row is StateCorrupt). */
function entryOf(r: Row): OutboxEntry {
  const raw = {
    op: r.op,
    id: r.object_id,
    fromName: r.from_name,
    fromParent: r.from_parent,
    ...(r.op === 'patch' ? { name: r.name ?? undefined, parentID: r.parent_id ?? undefined } : {}),
  };
  let intent: Intent;
  try {
    intent = intentSchema.parse(raw, 'intent');
  } catch (e) {
    throw new AppError('StateCorrupt', `outbox entry #${r.seq} is not a valid intent: ${e instanceof Error ? e.message : String(e)}`, {
      cause: e,
    });
  }
  return {
    seq: r.seq,
    at: r.at,
    intent,
    origin: r.origin,
    state: r.state,
    attempts: r.attempts,
    resultEtag: r.result_etag,
    path: r.path,
    reason: r.reason,
    note: r.note,
  };
}

export class OutboxStore {
  constructor(readonly db: Db) {
    migrate(db, 'outbox', MIGRATIONS);
  }

  /** Writes entries (in order) and returns their seqs. Call inside the caller's transaction when it also updates state. */
  enqueue(entries: readonly NewEntry[]): number[] {
    const ins = this.db
      .prepare(`INSERT INTO outbox_entries (at, op, object_id, name, parent_id, from_name, from_parent, origin, state, path, reason)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`);
    const at = new Date().toISOString();
    return entries.map(({ intent: i, origin, path, reason }) => {
      const [name, parent] = i.op === 'patch' ? [i.name ?? null, i.parentID ?? null] : [null, null];
      return Number(ins.run(at, i.op, i.id, name, parent, i.fromName, i.fromParent, origin, path, reason).lastInsertRowid);
    });
  }

  /** The first entry still to send (pending or sending), or undefined. */
  next(): OutboxEntry | undefined {
    const r = this.db.prepare(`SELECT ${COLS} FROM outbox_entries WHERE state IN ('pending', 'sending') ORDER BY seq LIMIT 1`).get() as
      Row | undefined;
    return r && entryOf(r);
  }

  get(seq: number): OutboxEntry | undefined {
    const r = this.db.prepare(`SELECT ${COLS} FROM outbox_entries WHERE seq = ?`).get(seq) as Row | undefined;
    return r && entryOf(r);
  }

  /** Entries not yet settled, in order. */
  unsettled(): OutboxEntry[] {
    return (this.db.prepare(`SELECT ${COLS} FROM outbox_entries WHERE state IN ('pending', 'sending') ORDER BY seq`).all() as Row[]).map(
      entryOf,
    );
  }

  /** Ids with an unsettled entry (their local placement is the user's intent, not the NAS's). */
  pendingIds(): Set<string> {
    return new Set(
      (
        this.db.prepare(`SELECT DISTINCT object_id AS id FROM outbox_entries WHERE state IN ('pending', 'sending')`).all() as {
          id: string;
        }[]
      ).map((r) => r.id),
    );
  }

  markSending(seq: number): void {
    this.db.prepare(`UPDATE outbox_entries SET state = 'sending', attempts = attempts + 1 WHERE seq = ?`).run(seq);
  }

  settle(seq: number, state: 'done' | 'conflict' | 'superseded' | 'pending', note: string, resultEtag?: string): void {
    this.db
      .prepare('UPDATE outbox_entries SET state = ?, note = ?, result_etag = coalesce(?, result_etag) WHERE seq = ?')
      .run(state, note, resultEtag ?? null, seq);
  }

  /** The unsettled entries of one object, in order (an index lookup: a search asks it per result). */
  unsettledFor(objectId: string): OutboxEntry[] {
    return (
      this.db
        .prepare(`SELECT ${COLS} FROM outbox_entries WHERE object_id = ? AND state IN ('pending', 'sending') ORDER BY seq`)
        .all(objectId) as Row[]
    ).map(entryOf);
  }

  /** Later unsettled entries of the same object (they built on a change that did not happen). */
  laterFor(objectId: string, seq: number): OutboxEntry[] {
    return (
      this.db
        .prepare(`SELECT ${COLS} FROM outbox_entries WHERE object_id = ? AND seq > ? AND state IN ('pending', 'sending') ORDER BY seq`)
        .all(objectId, seq) as Row[]
    ).map(entryOf);
  }

  /** Whether an entry of this origin and reason is still to be sent (a walk of the unsettled ones only, by the state index). */
  hasUnsettled(origin: Origin, reason: string): boolean {
    return (
      this.db
        .prepare(`SELECT 1 FROM outbox_entries WHERE state IN ('pending', 'sending') AND origin = ? AND reason = ? LIMIT 1`)
        .get(origin, reason) !== undefined
    );
  }

  /**
   * The entries written with `seq` in one enqueue (the same origin and reason, consecutive seqs:
   * an Organize batch's undo): the first and last seq, how many, how many are done. Reads only
   * the run and its two neighbours, by seq.
   */
  runOf(seq: number): { first: number; last: number; count: number; done: number } | undefined {
    const at = this.db.prepare('SELECT origin, reason FROM outbox_entries WHERE seq = ?').get(seq) as
      { origin: string; reason: string } | undefined;
    if (!at) return undefined;
    const other = '(origin <> ? OR reason <> ?)';
    const before = this.db
      .prepare(`SELECT seq FROM outbox_entries WHERE seq < ? AND ${other} ORDER BY seq DESC LIMIT 1`)
      .get(seq, at.origin, at.reason) as { seq: number } | undefined;
    const after = this.db
      .prepare(`SELECT seq FROM outbox_entries WHERE seq > ? AND ${other} ORDER BY seq LIMIT 1`)
      .get(seq, at.origin, at.reason) as { seq: number } | undefined;
    const r = this.db
      .prepare(
        "SELECT min(seq) AS first, max(seq) AS last, count(*) AS count, coalesce(sum(state = 'done'), 0) AS done " +
          'FROM outbox_entries WHERE seq > ? AND seq < ?',
      )
      .get(before?.seq ?? 0, after?.seq ?? Number.MAX_SAFE_INTEGER) as { first: number; last: number; count: number; done: number };
    return r;
  }

  counts(): Record<OutboxState, number> {
    const out: Record<OutboxState, number> = { pending: 0, sending: 0, done: 0, conflict: 0, superseded: 0 };
    for (const r of this.db.prepare('SELECT state, count(*) AS n FROM outbox_entries GROUP BY state').all() as {
      state: OutboxState;
      n: number;
    }[])
      out[r.state] = r.n;
    return out;
  }
}
