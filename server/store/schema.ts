/**
 * The service's SQLite schema (one file `DIR/service.db`, WAL). `objects.row` is the
 * internal key (also the slot of the in-memory tree index); `objects.id` is the opaque
 * external id, never reused. Sibling names are unique among objects not being deleted.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../app/errors.js';

export type Db = Database.Database;

const SCHEMA_VERSION = 3;

const V1 = `
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  root INTEGER NOT NULL,
  created INTEGER NOT NULL
);
CREATE TABLE tokens (
  hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  scope TEXT NOT NULL,
  created INTEGER NOT NULL,
  expires INTEGER
);
CREATE TABLE objects (
  row INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  parent INTEGER NOT NULL,
  name TEXT NOT NULL,
  dir INTEGER NOT NULL,
  mime TEXT NOT NULL,
  size INTEGER NOT NULL DEFAULT 0,
  mtime INTEGER NOT NULL,
  ctime INTEGER NOT NULL,
  hidden TEXT NOT NULL DEFAULT 'none',
  version INTEGER NOT NULL DEFAULT 1,
  child_count INTEGER NOT NULL DEFAULT 0,
  image TEXT,
  flags TEXT,
  source TEXT,
  deleting INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX objects_parent_name ON objects(parent, name) WHERE deleting = 0;
CREATE INDEX objects_source ON objects(source) WHERE source IS NOT NULL;
CREATE TABLE grants (
  row INTEGER NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id),
  perm TEXT NOT NULL,
  PRIMARY KEY (row, user_id)
);
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
INSERT INTO meta (key, value) VALUES ('tree_version', 0);
CREATE TABLE delete_jobs (
  row INTEGER PRIMARY KEY,
  created INTEGER NOT NULL
);
`;

/** v2: sign-in (OAuth 2): user passwords, the refresh-token family of an access token, refresh tokens. */
const V2 = `
ALTER TABLE users ADD COLUMN password TEXT;
ALTER TABLE tokens ADD COLUMN family TEXT;
CREATE INDEX tokens_family ON tokens(family) WHERE family IS NOT NULL;
CREATE TABLE refresh_tokens (
  hash TEXT PRIMARY KEY,
  family TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id),
  scope TEXT NOT NULL,
  client_id TEXT NOT NULL,
  created INTEGER NOT NULL,
  expires INTEGER NOT NULL,
  used INTEGER,
  replaced_by TEXT
);
CREATE INDEX refresh_tokens_family ON refresh_tokens(family);
`;

/**
 * v3: file content (content.md). `objects.content` names the stored content file (NULL:
 * generated from id and size, as for the demo library); `objects.partial` is 1 while a new
 * file's first upload is unfinished; `uploads` holds each unfinished upload (a new file or a
 * new version of one), whose bytes sit in a temporary file named after `file`.
 */
const V3 = `
ALTER TABLE objects ADD COLUMN content TEXT;
ALTER TABLE objects ADD COLUMN partial INTEGER NOT NULL DEFAULT 0;
CREATE INDEX objects_content ON objects(content) WHERE content IS NOT NULL;
CREATE TABLE uploads (
  row INTEGER PRIMARY KEY,
  file TEXT NOT NULL,
  received INTEGER NOT NULL DEFAULT 0,
  touched INTEGER NOT NULL,
  mtime INTEGER
);
CREATE INDEX uploads_touched ON uploads(touched);
`;

/**
 * The listing-order indexes. They only speed up reads, so a bulk load may drop them and
 * build them once at the end; every open re-creates any that are missing (a load killed
 * half-way leaves a correct, if slower, store until the next open).
 */
export const LISTING_INDEXES = [
  'CREATE INDEX IF NOT EXISTS objects_parent_mtime ON objects(parent, mtime, name, id)',
  'CREATE INDEX IF NOT EXISTS objects_parent_ctime ON objects(parent, ctime, name, id)',
  'CREATE INDEX IF NOT EXISTS objects_parent_size ON objects(parent, size, name, id)',
];

/** Opens (creating if needed) the service database in `dir`. */
export function openServiceDb(dir: string): Db {
  mkdirSync(dir, { recursive: true });
  let db: Db;
  try {
    db = new Database(join(dir, 'service.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 10000');
    db.pragma('cache_size = -65536');
  } catch (e) {
    throw new AppError('StateCorrupt', `cannot open the service database in ${dir}`, { cause: e });
  }
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION)
    throw new AppError('StateCorrupt', `service database schema v${version} is newer than this service (v${SCHEMA_VERSION})`);
  if (version < SCHEMA_VERSION) {
    db.transaction(() => {
      // Another process may have migrated between the read above and this transaction.
      const now = db.pragma('user_version', { simple: true }) as number;
      if (now < 1) db.exec(V1);
      if (now < 2) db.exec(V2);
      if (now < 3) db.exec(V3);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
  }
  db.transaction(() => {
    for (const sql of LISTING_INDEXES) db.exec(sql);
  }).immediate();
  return db;
}
