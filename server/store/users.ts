/**
 * Users, their root folders, access tokens (stored as SHA-256 hashes only) and grants.
 * Admin operations behind the CLI commands `user add`, `token` and `grant`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../app/errors.js';
import { FOLDER_MIME } from '../../app/model/remote-object.js';
import { newId, notFound, type Store } from './store.js';
import { PERM, type PermName } from './tree-index.js';

export type Scope = 'nas_read_write' | 'nas_read_only';
export const SCOPES: readonly Scope[] = ['nas_read_write', 'nas_read_only'];

export interface User {
  id: number;
  name: string;
  root: number;
}

export interface Principal {
  userId: number;
  scope: Scope;
}

const hashToken = (t: string): string => createHash('sha256').update(t).digest('hex');

export function userByName(store: Pick<Store, 'db'>, name: string): User | undefined {
  return store.db.prepare('SELECT id, name, root FROM users WHERE name = ?').get(name) as User | undefined;
}

/** Creates a user and their root folder. 409 when the name is taken. */
export function addUser(store: Store, name: string): User {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name))
    throw new AppError('BadRequest', `invalid user name "${name}": use 1-64 letters, digits, ".", "_" or "-"`);
  const db = store.db;
  const user = db
    .transaction(() => {
      if (userByName(store, name)) throw new AppError('Conflict', `user "${name}" already exists`, { status: 409 });
      const now = Date.now();
      const root = Number(
        db
          .prepare('INSERT INTO objects (id, parent, name, dir, mime, mtime, ctime) VALUES (?, 0, ?, 1, ?, ?, ?)')
          .run(newId(), name, FOLDER_MIME, now, now).lastInsertRowid,
      );
      const id = Number(db.prepare('INSERT INTO users (name, root, created) VALUES (?, ?, ?)').run(name, root, now).lastInsertRowid);
      return { id, name, root };
    })
    .immediate();
  store.indexRow(store.get(user.root)!);
  store.index.rootOwner.set(user.root, user.id);
  return user;
}

/** Mints a token for a user; only its hash is stored. `ttlSeconds` makes it expire. */
export function mintToken(store: Pick<Store, 'db'>, userName: string, scope: Scope, ttlSeconds?: number): string {
  const user = userByName(store, userName);
  if (!user) throw new AppError('NotFound', `no user "${userName}"`);
  if (!SCOPES.includes(scope)) throw new AppError('BadRequest', `invalid scope "${scope}"`);
  const token = 'nst_' + randomBytes(24).toString('base64url');
  const now = Date.now();
  store.db
    .prepare('INSERT INTO tokens (hash, user_id, scope, created, expires) VALUES (?, ?, ?, ?, ?)')
    .run(hashToken(token), user.id, scope, now, ttlSeconds === undefined ? null : now + ttlSeconds * 1000);
  return token;
}

/** The user and scope of a token; undefined when unknown or expired. */
export function authenticate(store: Pick<Store, 'db'>, token: string): Principal | undefined {
  if (token.length === 0 || token.length > 512) return undefined;
  const r = store.db.prepare('SELECT user_id, scope, expires FROM tokens WHERE hash = ?').get(hashToken(token)) as
    { user_id: number; scope: Scope; expires: number | null } | undefined;
  if (!r || (r.expires !== null && r.expires <= Date.now())) return undefined;
  return { userId: r.user_id, scope: r.scope };
}

/** Grants a permission on an object (and, by inheritance, everything below it). */
export function grant(store: Store, userName: string, objectId: string, perm: PermName): void {
  const user = userByName(store, userName);
  if (!user) throw new AppError('NotFound', `no user "${userName}"`);
  if (!(perm in PERM) || perm === ('none' as string))
    throw new AppError('BadRequest', `invalid permission "${perm}": use ReadFile, WriteFile or FileOwner`);
  const obj = store.byId(objectId);
  if (!obj || obj.deleting) throw notFound();
  store.db.prepare('INSERT OR REPLACE INTO grants (row, user_id, perm) VALUES (?, ?, ?)').run(obj.row, user.id, perm);
  store.index.setGrant(obj.row, user.id, PERM[perm]);
}
