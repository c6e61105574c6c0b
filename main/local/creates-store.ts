/**
 * The journal of what the user made in the mirror folder and the NAS does not have yet
 * (component `creates` of the state db): a new folder (created with one request) or a new
 * file (a resumable upload). A row is written in the local batch's transaction when the new
 * entry is found, BEFORE anything is sent; its state is written before each request leaves,
 * and the NAS id as soon as the NAS names it, so after a crash a row says what may exist on
 * the NAS (the creator looks it up by folder and name before it creates again: exactly once).
 *
 *   pending -> creating -> (file: uploading) -> done
 *           -> gone      (the entry left its place before it was created: moved, renamed, deleted)
 *           -> refused   (the NAS will not take it: its name, no content interface; or the user
 *                         said no to a mass upload; it stays local only)
 *   held -> pending (the user approved) | refused (the user said no)
 *     (many new entries at once wait for the user's word, like mass deletes: `local-batch.ts`)
 */
import { migrate, stmt, type Db } from '../state/db.js';

export type CreateState = 'held' | 'pending' | 'creating' | 'uploading' | 'done' | 'gone' | 'refused';
/** A new folder, a new file, or a new version of a file the user changed here (`objectId` is that file). */
export type CreateKind = 'dir' | 'file' | 'version';

export interface CreateRow {
  seq: number;
  at: string;
  kind: CreateKind;
  /** The NAS id of the folder it is in, and its name there (the disk's name). */
  parent: string;
  name: string;
  /** The NAS id, once the NAS named it (a file's upload may still be unfinished). */
  objectId: string | null;
  /** Bytes the NAS holds of an unfinished upload, as last confirmed. */
  offset: number;
  state: CreateState;
  attempts: number;
  /** Why it is refused, or the last failure (said once). */
  note: string | null;
  /** A version: the eTag of the NAS version the user changed (its If-Match). */
  baseEtag: string | null;
  /**
   * A file sent whole in the request that names it (`POST files/resumable` with its bytes and
   * `done=true`): the sha256 (hex) of those bytes, written before it left. After a crash or a
   * lost answer, a finished NAS file at the row's place holding exactly these bytes is ours.
   */
  sentSha: string | null;
}

const MIGRATIONS = [
  {
    version: 1,
    up: (db: Db): void => {
      db.exec(`
        CREATE TABLE local_creates (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          at TEXT NOT NULL,
          kind TEXT NOT NULL,
          parent TEXT NOT NULL,
          name TEXT NOT NULL,
          object_id TEXT,
          offset INTEGER NOT NULL DEFAULT 0,
          state TEXT NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          note TEXT
        );
        CREATE INDEX local_creates_open ON local_creates(state, seq);
        CREATE INDEX local_creates_place ON local_creates(parent, name);
      `);
    },
  },
  {
    version: 2,
    up: (db: Db): void => {
      db.exec('ALTER TABLE local_creates ADD COLUMN base_etag TEXT; CREATE INDEX local_creates_object ON local_creates(object_id, state);');
    },
  },
  {
    version: 3,
    up: (db: Db): void => {
      db.exec('ALTER TABLE local_creates ADD COLUMN sent_sha TEXT');
    },
  },
];

/** The note of a row the user approved (a held mass upload): what is inside that folder is approved with it. */
const APPROVED = 'approved by you';

const COLS =
  'seq, at, kind, parent, name, object_id AS objectId, offset, state, attempts, note, base_etag AS baseEtag, sent_sha AS sentSha';
const OPEN = "('pending', 'creating', 'uploading')";
const UNFINISHED = "('held', 'pending', 'creating', 'uploading')";

export class CreatesStore {
  constructor(readonly db: Db) {
    migrate(db, 'creates', MIGRATIONS);
  }

  /**
   * Records a new entry to create (`held`: waiting for the user's word), unless one is open or held
   * at that place already. Call in the batch's transaction. True when added.
   */
  add(kind: CreateKind, parent: string, name: string, held = false): boolean {
    const open = stmt(
      this.db,
      `SELECT 1 FROM local_creates WHERE parent = ? AND name = ? AND state IN ('held', 'pending', 'creating', 'uploading')`,
    ).get(parent, name);
    if (open) return false;
    stmt(this.db, 'INSERT INTO local_creates (at, kind, parent, name, state) VALUES (?, ?, ?, ?, ?)').run(
      new Date().toISOString(),
      kind,
      parent,
      name,
      held ? 'held' : 'pending',
    );
    return true;
  }

  /** Records a new version of file `objectId` to upload (the user changed it here), unless one is open for it already. True when added. */
  addVersion(objectId: string, baseEtag: string): boolean {
    const open = stmt(this.db, `SELECT 1 FROM local_creates WHERE object_id = ? AND kind = 'version' AND state IN ${OPEN}`).get(objectId);
    if (open) return false;
    stmt(
      this.db,
      "INSERT INTO local_creates (at, kind, parent, name, object_id, state, base_etag) VALUES (?, 'version', '', '', ?, 'pending', ?)",
    ).run(new Date().toISOString(), objectId, baseEtag);
    return true;
  }

  /** Rows recorded since `sinceIso` and not started yet (a copy into the mirror arrives over several batches). */
  recentPending(sinceIso: string): number[] {
    // (not rows the user approved: they were asked about once)
    return (
      stmt(
        this.db,
        `SELECT seq FROM local_creates WHERE state = 'pending' AND attempts = 0 AND at >= ? AND coalesce(note, '') <> '${APPROVED}'`,
      ).all(sinceIso) as { seq: number }[]
    ).map((r) => r.seq);
  }

  /** Holds rows not started yet (they join a mass upload that waits for the user's word). */
  hold(seqs: readonly number[]): void {
    const up = stmt(
      this.db,
      "UPDATE local_creates SET state = 'held' WHERE seq = ? AND state = 'pending' AND attempts = 0 " +
        `AND coalesce(note, '') <> '${APPROVED}'`,
    );
    for (const s of seqs) up.run(s);
  }

  /**
   * Records a place whose entry is not to be created (it may be an entry the NAS deleted,
   * renamed here while it was stopped): it stays local only, with `note`. Nothing when a row is
   * open or refused there already.
   */
  refuse(parent: string, name: string, note: string): void {
    const there = stmt(
      this.db,
      `SELECT 1 FROM local_creates WHERE parent = ? AND name = ? AND state IN ('held', 'pending', 'creating', 'uploading', 'refused')`,
    ).get(parent, name);
    if (there) return;
    stmt(this.db, "INSERT INTO local_creates (at, kind, parent, name, state, note) VALUES (?, 'file', ?, ?, 'refused', ?)").run(
      new Date().toISOString(),
      parent,
      name,
      note,
    );
  }

  /** Why the entry at this place is not created (a refused row), if so. */
  refusedAt(parent: string, name: string): string | undefined {
    const r = stmt(
      this.db,
      "SELECT note FROM local_creates WHERE parent = ? AND name = ? AND state = 'refused' ORDER BY seq DESC LIMIT 1",
    ).get(parent, name) as { note: string | null } | undefined;
    return r ? (r.note ?? 'not created on the NAS') : undefined;
  }

  /** A row at this place waits for the user's word. */
  isHeld(parent: string, name: string): boolean {
    return stmt(this.db, "SELECT 1 FROM local_creates WHERE parent = ? AND name = ? AND state = 'held'").get(parent, name) !== undefined;
  }

  /** The rows waiting for the user's word, oldest first. */
  held(): CreateRow[] {
    return stmt(this.db, `SELECT ${COLS} FROM local_creates WHERE state = 'held' ORDER BY seq`).all() as CreateRow[];
  }

  /**
   * The user's word on held rows (`all`: every one): approve -> pending, reject -> refused (kept
   * here, local only). Returns the rows decided.
   */
  decide(seqs: readonly number[] | 'all', approve: boolean): CreateRow[] {
    const rows = this.held().filter((r) => seqs === 'all' || seqs.includes(r.seq));
    const up = approve
      ? stmt(this.db, `UPDATE local_creates SET state = 'pending', note = '${APPROVED}' WHERE seq = ?`)
      : stmt(this.db, "UPDATE local_creates SET state = 'refused', note = 'you chose to keep it on this computer only' WHERE seq = ?");
    for (const r of rows) up.run(r.seq);
    return rows;
  }

  /** The rows still to carry out, oldest first. */
  open(): CreateRow[] {
    return stmt(this.db, `SELECT ${COLS} FROM local_creates WHERE state IN ${OPEN} ORDER BY seq`).all() as CreateRow[];
  }

  /** Rows not finished (open or held) for NAS object `objectId`: its new version, or its upload still going. */
  openFor(objectId: string): CreateRow[] {
    return stmt(this.db, `SELECT ${COLS} FROM local_creates WHERE object_id = ? AND state IN ${UNFINISHED} ORDER BY seq`).all(
      objectId,
    ) as CreateRow[];
  }

  /** Rows not finished (open or held) of a new file or folder at this place. */
  openAt(parent: string, name: string): CreateRow[] {
    return stmt(this.db, `SELECT ${COLS} FROM local_creates WHERE parent = ? AND name = ? AND state IN ${UNFINISHED} ORDER BY seq`).all(
      parent,
      name,
    ) as CreateRow[];
  }

  get(seq: number): CreateRow | undefined {
    return stmt(this.db, `SELECT ${COLS} FROM local_creates WHERE seq = ?`).get(seq) as CreateRow | undefined;
  }

  /** Open rows' places ("parent\0name") and NAS ids: what a walk must not place as a new NAS object meanwhile. */
  inFlight(): { places: Set<string>; ids: Set<string> } {
    const rows = stmt(this.db, `SELECT parent, name, object_id AS objectId FROM local_creates WHERE state IN ${OPEN}`).all() as {
      parent: string;
      name: string;
      objectId: string | null;
    }[];
    return {
      places: new Set(rows.filter((r) => r.name !== '').map((r) => `${r.parent}\0${r.name}`)),
      ids: new Set(rows.flatMap((r) => (r.objectId === null ? [] : [r.objectId]))),
    };
  }

  /** Refused rows (listed as local only with their reason). */
  refused(): CreateRow[] {
    return stmt(this.db, `SELECT ${COLS} FROM local_creates WHERE state = 'refused' ORDER BY seq`).all() as CreateRow[];
  }

  /** Before a request leaves: its state (and one more attempt). */
  begin(seq: number, state: 'creating' | 'uploading'): void {
    stmt(this.db, 'UPDATE local_creates SET state = ?, attempts = attempts + 1, sent_sha = NULL WHERE seq = ?').run(state, seq);
  }

  /** A row sent whole and over (its file left its place) whose NAS file could not be deleted yet: carried out again. */
  reopenSent(seq: number): void {
    stmt(this.db, "UPDATE local_creates SET state = 'creating' WHERE seq = ? AND sent_sha IS NOT NULL").run(seq);
  }

  /** Before a request that names a new file and carries all of its bytes leaves: `creating`, and the bytes' sha256. */
  beginWhole(seq: number, sha: string): void {
    stmt(this.db, "UPDATE local_creates SET state = 'creating', attempts = attempts + 1, sent_sha = ? WHERE seq = ?").run(sha, seq);
  }

  /** The NAS named the new object (and holds `offset` bytes of it). */
  named(seq: number, objectId: string, offset = 0): void {
    stmt(
      this.db,
      "UPDATE local_creates SET object_id = ?, offset = ?, state = CASE kind WHEN 'dir' THEN state ELSE 'uploading' END WHERE seq = ?",
    ).run(objectId, offset, seq);
  }

  /** Bytes the NAS confirmed. */
  progress(seq: number, offset: number): void {
    stmt(this.db, 'UPDATE local_creates SET offset = ? WHERE seq = ?').run(offset, seq);
  }

  /** Starts over (the file changed while it was sent, or the NAS dropped the unfinished upload). */
  restart(seq: number, note: string): void {
    stmt(this.db, "UPDATE local_creates SET object_id = NULL, offset = 0, state = 'pending', note = ?, sent_sha = NULL WHERE seq = ?").run(
      note,
      seq,
    );
  }

  /** A folder made on the NAS: done, with its id (its note kept: an approved folder's contents are approved too). */
  folderDone(seq: number, objectId: string): void {
    stmt(this.db, "UPDATE local_creates SET object_id = ?, state = 'done' WHERE seq = ?").run(objectId, seq);
  }

  /** The NAS ids of folders made from rows the user approved: what is found inside them is not held again. */
  approvedFolders(): Set<string> {
    return new Set(
      (
        stmt(
          this.db,
          "SELECT object_id AS id FROM local_creates WHERE kind = 'dir' AND state = 'done' " +
            `AND note = '${APPROVED}' AND object_id IS NOT NULL`,
        ).all() as { id: string }[]
      ).map((r) => r.id),
    );
  }

  /** Tried again from the start, the object kept (a version: its upload starts over at the next try). */
  again(seq: number, note: string): void {
    stmt(this.db, "UPDATE local_creates SET offset = 0, state = 'pending', note = ? WHERE seq = ?").run(note, seq);
  }

  finish(seq: number, state: 'done' | 'gone' | 'refused', note: string | null = null): void {
    stmt(this.db, 'UPDATE local_creates SET state = ?, note = ? WHERE seq = ?').run(state, note, seq);
  }

  /** Rows of `parent` (a folder leaving the model takes its open rows: nothing is created in a folder the NAS no longer has). */
  dropUnder(parent: string): void {
    stmt(this.db, `UPDATE local_creates SET state = 'gone', note = 'its folder left' WHERE parent = ? AND state IN ${OPEN}`).run(parent);
  }

  counts(): { open: number; uploading: number; held: number; refused: number } {
    // by the state index: the done rows (every upload ever made) are not read (bench:content: a
    // full scan per status took 33 s of a 60 s upload of 10,000 files)
    const rows = stmt(
      this.db,
      "SELECT state, count(*) AS n FROM local_creates WHERE state IN ('held', 'pending', 'creating', 'uploading', 'refused') " +
        'GROUP BY state',
    ).all() as { state: CreateState; n: number }[];
    const n = (st: CreateState): number => rows.find((r) => r.state === st)?.n ?? 0;
    return { open: n('pending') + n('creating') + n('uploading'), uploading: n('uploading'), held: n('held'), refused: n('refused') };
  }
}
