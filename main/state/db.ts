/**
 * Opens the client's state database (SQLite via better-sqlite3, WAL) and applies each
 * component's migrations. Components (mirror, local, outbox, ...) version their own tables
 * independently in `schema_versions`, so they can evolve without renumbering each other.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../app/errors.js';

export type Db = Database.Database;
export type Statement = Database.Statement;

/** One step of a component's schema: applied once, in order, inside a transaction. */
export interface Migration {
  /** 1, 2, 3 ... within the component. */
  version: number;
  up: (db: Db) => void;
}

/**
 * Opens an existing `DIR/state.db` read-only, for a second thread reading what the engine's
 * connection writes (WAL: its reads never block the writer, and it can never write).
 */
export function openStateDbReadOnly(dir: string): Db {
  const db = connect(dir, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

/** `DIR/state.db` opened with these options; a file SQLite cannot open is StateCorrupt. */
function connect(dir: string, options?: Database.Options): Db {
  try {
    return new Database(join(dir, 'state.db'), options);
  } catch (e) {
    throw new AppError('StateCorrupt', `cannot open the state database in ${dir}`, { cause: e });
  }
}

/** Opens (creating if needed) `DIR/state.db`. */
export function openStateDb(dir: string): Db {
  mkdirSync(dir, { recursive: true });
  const db = connect(dir);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL)');
  return db;
}

/** Brings `component` to its newest version. Refuses a database newer than this code. */
export function migrate(db: Db, component: string, migrations: readonly Migration[]): void {
  const row = db.prepare('SELECT version FROM schema_versions WHERE component = ?').get(component) as { version: number } | undefined;
  const current = row?.version ?? 0;
  const newest = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  if (current > newest) {
    throw new AppError(
      'StateCorrupt',
      `state database has ${component} schema v${current}, newer than this app knows (v${newest}); update the app`,
    );
  }
  const pending = [...migrations].filter((m) => m.version > current).sort((a, b) => a.version - b.version);
  for (const m of pending) {
    db.transaction(() => {
      m.up(db);
      db.prepare(
        'INSERT INTO schema_versions (component, version) VALUES (?, ?) ON CONFLICT(component) DO UPDATE SET version = excluded.version',
      ).run(component, m.version);
    })();
  }
}

const prepared = new WeakMap<Db, Map<string, Database.Statement>>();

/**
 * `db.prepare(sql)`, compiled once per connection and kept: the statements a store runs for
 * every file of a transfer (a bind, a record, a flush) are not compiled again each time. Only
 * for statements run as they are (`run`, `get`, `all`): never one whose mode is changed
 * (`pluck`, `raw`, `expand`) or iterated while it may run again.
 */
export function stmt(db: Db, sql: string): Database.Statement {
  let m = prepared.get(db);
  if (m === undefined) prepared.set(db, (m = new Map()));
  let s = m.get(sql);
  if (s === undefined) m.set(sql, (s = db.prepare(sql)));
  return s;
}
