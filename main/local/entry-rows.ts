/**
 * The model's entries as the state database holds them (`local_entries`), read on use: by id,
 * by local folder, by inode, the folders, everything (`LocalModel`'s `EntrySource`). A restart
 * reads nothing up front, and between rounds the model keeps in memory only what changed
 * (issue 24: a million entries were ~380 MB of heap and 4 s of every restart).
 */
import type { Db, Statement } from '../state/db.js';
import type { EntrySource, EntryState, HeldContent, LocalEntry } from './model.js';

/** A stored `content` column: the record as written, anything else none (a placeholder is never guessed to hold content). */
export function heldContentOf(text: string | null): HeldContent | undefined {
  if (text === null) return undefined;
  try {
    const v = JSON.parse(text) as Partial<HeldContent> | null;
    return v !== null &&
      typeof v.etag === 'string' &&
      typeof v.nasMtime === 'string' &&
      Number.isSafeInteger(v.size) &&
      Number.isFinite(v.mtimeMs) &&
      typeof v.ino === 'string'
      ? { etag: v.etag, nasMtime: v.nasMtime, size: v.size!, mtimeMs: v.mtimeMs!, ino: v.ino }
      : undefined;
  } catch {
    return undefined;
  }
}

/** `local_entries`' columns, repeated values as NULL or a number (not one more string per row). */
const COLUMNS = `id, kind = 'dir', lparent, lname, ino, filled,
      NULLIF(rparent, lparent), NULLIF(rname, lname), etag, mtime, NULLIF(setag, etag),
      CASE state WHEN 'ok' THEN 0 WHEN 'held' THEN 1 WHEN 'deleting' THEN 2 ELSE state END, content`;

type RawEntryRow = [
  string,
  number,
  string,
  string,
  string | null,
  number,
  string | null,
  string | null,
  string,
  string,
  string | null,
  number | string,
  string | null,
];
const STATES: readonly EntryState[] = ['ok', 'held', 'deleting'];

/** An entry of a row; `one` shares the strings of parents read before (their children point at one string). */
export function entryOfRow(r: RawEntryRow, one: (s: string) => string = (s) => s): LocalEntry {
  const [id, dir, lp, lname, ino, filled, rp, rname, etag, mtime, setag, state, content] = r;
  const lparent = one(lp);
  return {
    id,
    kind: dir === 1 ? 'dir' : 'file',
    lparent,
    lname,
    ino,
    filled: filled === 1,
    rparent: rp === null ? lparent : one(rp),
    rname: rname ?? lname,
    etag,
    mtime,
    setag: setag ?? etag,
    state: typeof state === 'number' ? STATES[state]! : (state as EntryState),
    content: heldContentOf(content),
  };
}

export class StoredEntries implements EntrySource {
  private readonly byId: Statement;
  private readonly byParent: Statement;
  private readonly byIno: Statement;
  private readonly folders: Statement;
  private readonly every: Statement;
  private readonly filled: Statement;
  private readonly content: Statement;
  private readonly counted: Statement;
  /** Parent ids as read (a folder's children share one string), dropped when it grows past a folder count's worth. */
  private parents = new Map<string, string>();

  constructor(db: Db) {
    const raw = (sql: string): Statement => db.prepare(sql).raw(true);
    this.byId = raw(`SELECT ${COLUMNS} FROM local_entries WHERE id = ?`);
    this.byParent = raw(`SELECT ${COLUMNS} FROM local_entries WHERE lparent = ?`);
    this.byIno = raw(`SELECT ${COLUMNS} FROM local_entries WHERE ino = ?`);
    this.folders = raw(`SELECT ${COLUMNS} FROM local_entries WHERE kind = 'dir'`);
    this.every = raw(`SELECT ${COLUMNS} FROM local_entries`);
    this.filled = db.prepare('SELECT id FROM local_entries WHERE filled = 1').pluck();
    this.content = db.prepare('SELECT id FROM local_entries WHERE content IS NOT NULL').pluck();
    this.counted = db.prepare('SELECT count(*) FROM local_entries').pluck();
  }

  private readonly one = (p: string): string => {
    const known = this.parents.get(p);
    if (known !== undefined) return known;
    if (this.parents.size > 100_000) this.parents = new Map();
    this.parents.set(p, p);
    return p;
  };

  private rows(st: Statement, ...args: string[]): LocalEntry[] {
    return (st.all(...args) as RawEntryRow[]).map((r) => entryOfRow(r, this.one));
  }

  get(id: string): LocalEntry | undefined {
    const r = this.byId.get(id) as RawEntryRow | undefined;
    return r && entryOfRow(r, this.one);
  }

  childrenOf(id: string): LocalEntry[] {
    return this.rows(this.byParent, id);
  }

  withIno(ino: string): LocalEntry[] {
    return this.rows(this.byIno, ino);
  }

  dirs(): LocalEntry[] {
    return this.rows(this.folders);
  }

  *all(): IterableIterator<LocalEntry> {
    // a million rows: streamed, parents shared through a map of their own
    const parents = new Map<string, string>();
    const one = (p: string): string => {
      const known = parents.get(p);
      if (known !== undefined) return known;
      parents.set(p, p);
      return p;
    };
    for (const r of this.every.iterate() as IterableIterator<RawEntryRow>) yield entryOfRow(r, one);
  }

  count(): number {
    return this.counted.get() as number;
  }

  filledIds(): string[] {
    return this.filled.all() as string[];
  }

  contentIds(): string[] {
    return this.content.all() as string[];
  }
}
