/**
 * The service as an OAuth 2 authorization server for itself (RFC 6749, RFC 7636, RFC 7009):
 * user passwords (scrypt), one-time authorization codes bound to a PKCE S256 challenge
 * (in memory, 60 s), access tokens with an expiry, and refresh tokens that rotate on every
 * use. Presenting a refresh token that was already rotated revokes its whole family (the
 * access tokens issued from it too): a stolen token and its legitimate copy cannot both live.
 * One exception, for answers lost on the way (a LAN dying mid-refresh): for REUSE_GRACE_MS
 * after a rotation, the old token may be presented again as long as its successor was never
 * used; the successor is then dropped and a new pair issued. Only SHA-256 hashes of tokens
 * and scrypt hashes of passwords are stored.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../app/errors.js';
import type { Store } from '../store/store.js';
import { SCOPES, userByName, type Scope } from '../store/users.js';

/** Refresh tokens unused this long expire (each rotation starts a new period). */
export const REFRESH_TTL_MS = 90 * 86_400_000;
/** A rotated refresh token may be used again this long if its successor is still unused (lost answer). */
export const REUSE_GRACE_MS = 60_000;
const CODE_TTL_MS = 60_000;

const sha256 = (t: string): string => createHash('sha256').update(t).digest('hex');
const scryptAsync = (pw: string, salt: Buffer): Promise<Buffer> =>
  new Promise((res, rej) => scrypt(pw, salt, 32, { N: 16384, r: 8, p: 1 }, (e, k) => (e ? rej(e) : res(k))));

/** Sets (or, with `undefined`, removes) a user's password. */
export async function setPassword(store: Pick<Store, 'db'>, userName: string, password: string | undefined): Promise<void> {
  const user = userByName(store, userName);
  if (!user) throw new AppError('NotFound', `no user "${userName}"`);
  let stored: string | null = null;
  if (password !== undefined) {
    if (password.length < 1 || password.length > 1024) throw new AppError('BadRequest', 'the password must be 1 to 1024 characters');
    const salt = randomBytes(16);
    stored = `scrypt$${salt.toString('base64url')}$${(await scryptAsync(password, salt)).toString('base64url')}`;
  }
  store.db.prepare('UPDATE users SET password = ? WHERE id = ?').run(stored, user.id);
}

/** The user id when the name and password match; undefined otherwise (also for users without a password). */
export async function checkPassword(store: Pick<Store, 'db'>, userName: string, password: string): Promise<number | undefined> {
  const r = store.db.prepare('SELECT id, password FROM users WHERE name = ?').get(userName) as
    { id: number; password: string | null } | undefined;
  // The same work whether or not the user exists, so timing says nothing about user names.
  const [, saltText, hashText] = (r?.password ?? 'scrypt$AAAAAAAAAAAAAAAAAAAAAA$').split('$');
  const want = Buffer.from(hashText ?? '', 'base64url');
  const got = await scryptAsync(password, Buffer.from(saltText ?? '', 'base64url'));
  return r?.password && want.length === got.length && timingSafeEqual(want, got) ? r.id : undefined;
}

/** PKCE S256 (RFC 7636 §4.6): BASE64URL(SHA256(ASCII(code_verifier))) equals the challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const a = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface CodeGrant {
  userId: number;
  scope: Scope;
  clientId: string;
  redirectUri: string;
  challenge: string;
  expires: number;
}

/** One-time authorization codes, in memory (a code outlives no restart: the user signs in again). */
export class AuthCodes {
  private readonly codes = new Map<string, CodeGrant>();

  issue(g: Omit<CodeGrant, 'expires'>): string {
    const now = Date.now();
    for (const [k, v] of this.codes) if (v.expires <= now) this.codes.delete(k);
    const code = randomBytes(24).toString('base64url');
    this.codes.set(sha256(code), { ...g, expires: now + CODE_TTL_MS });
    return code;
  }

  /** Takes a code (once): undefined when unknown, used or expired. */
  take(code: string): CodeGrant | undefined {
    const k = sha256(code);
    const g = this.codes.get(k);
    this.codes.delete(k);
    return g && g.expires > Date.now() ? g : undefined;
  }
}

export interface TokenSet {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: Scope;
}

export class OAuthError extends Error {
  constructor(
    readonly error: 'invalid_request' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_scope',
    readonly description: string,
  ) {
    super(description);
  }
}

/** Issues an access token (expiring after `ttlSec`) and a new refresh token of `family`. */
export function issueTokens(
  store: Pick<Store, 'db'>,
  a: { userId: number; scope: Scope; clientId: string; family?: string; ttlSec: number; replaces?: string },
): TokenSet {
  const family = a.family ?? randomBytes(12).toString('base64url');
  const access = 'nst_' + randomBytes(24).toString('base64url');
  const refresh = 'nsr_' + randomBytes(32).toString('base64url');
  const now = Date.now();
  store.db
    .transaction(() => {
      store.db
        .prepare('INSERT INTO tokens (hash, user_id, scope, created, expires, family) VALUES (?, ?, ?, ?, ?, ?)')
        .run(sha256(access), a.userId, a.scope, now, now + a.ttlSec * 1000, family);
      store.db
        .prepare('INSERT INTO refresh_tokens (hash, family, user_id, scope, client_id, created, expires) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(sha256(refresh), family, a.userId, a.scope, a.clientId, now, now + REFRESH_TTL_MS);
      if (a.replaces !== undefined)
        store.db.prepare('UPDATE refresh_tokens SET used = ?, replaced_by = ? WHERE hash = ?').run(now, sha256(refresh), a.replaces);
      // Expired access tokens of any family are dropped now and then, so the table stays small.
      store.db.prepare('DELETE FROM tokens WHERE expires IS NOT NULL AND expires < ?').run(now - 86_400_000);
    })
    .immediate();
  return { access_token: access, token_type: 'Bearer', expires_in: a.ttlSec, refresh_token: refresh, scope: a.scope };
}

/** The authorization-code grant: the code once, the same client and redirect URI, the PKCE verifier. */
export function exchangeCode(
  store: Pick<Store, 'db'>,
  codes: AuthCodes,
  p: { code: string; redirectUri: string; clientId: string; verifier: string; ttlSec: number },
): TokenSet {
  const g = codes.take(p.code);
  if (!g) throw new OAuthError('invalid_grant', 'the authorization code is unknown, expired or already used');
  if (g.clientId !== p.clientId || g.redirectUri !== p.redirectUri)
    throw new OAuthError('invalid_grant', 'client_id or redirect_uri differ from the authorization request');
  if (!pkceMatches(p.verifier, g.challenge)) throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  return issueTokens(store, { userId: g.userId, scope: g.scope, clientId: g.clientId, ttlSec: p.ttlSec });
}

interface RefreshRow {
  family: string;
  user_id: number;
  scope: Scope;
  client_id: string;
  expires: number;
  used: number | null;
  replaced_by: string | null;
}

/** The refresh_token grant: rotates the token; a token used twice revokes its family. */
export function refreshTokens(
  store: Pick<Store, 'db'>,
  p: { refreshToken: string; clientId: string; scope?: string; ttlSec: number },
): TokenSet {
  // The revocation of a reused family must commit, so that error is returned, not thrown, from the transaction.
  const out = store.db
    .transaction((): TokenSet | OAuthError => {
      const hash = sha256(p.refreshToken);
      const r = store.db
        .prepare('SELECT family, user_id, scope, client_id, expires, used, replaced_by FROM refresh_tokens WHERE hash = ?')
        .get(hash) as RefreshRow | undefined;
      if (!r) throw new OAuthError('invalid_grant', 'the refresh token is unknown or was revoked');
      const successor =
        r.replaced_by === null
          ? undefined
          : (store.db.prepare('SELECT used FROM refresh_tokens WHERE hash = ?').get(r.replaced_by) as { used: number | null } | undefined);
      if (
        r.used !== null &&
        r.used > Date.now() - REUSE_GRACE_MS &&
        successor !== undefined &&
        successor.used === null &&
        r.client_id === p.clientId
      ) {
        // The answer to the last refresh was lost: the client never saw the successor.
        store.db.prepare('DELETE FROM refresh_tokens WHERE hash = ?').run(r.replaced_by);
      } else if (r.used !== null) {
        revokeFamily(store, r.family);
        return new OAuthError('invalid_grant', 'the refresh token was already used: every token of this sign-in is revoked, sign in again');
      }
      if (r.expires <= Date.now()) throw new OAuthError('invalid_grant', 'the refresh token expired: sign in again');
      if (r.client_id !== p.clientId) throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
      let scope = r.scope;
      if (p.scope !== undefined && p.scope !== '' && p.scope !== r.scope) {
        if (!(r.scope === 'nas_read_write' && p.scope === 'nas_read_only'))
          throw new OAuthError('invalid_scope', `the scope cannot grow beyond ${r.scope}`);
        scope = p.scope;
      }
      return issueTokens(store, { userId: r.user_id, scope, clientId: r.client_id, family: r.family, ttlSec: p.ttlSec, replaces: hash });
    })
    .immediate();
  if (out instanceof OAuthError) throw out;
  return out;
}

function revokeFamily(store: Pick<Store, 'db'>, family: string): void {
  store.db.prepare('DELETE FROM refresh_tokens WHERE family = ?').run(family);
  store.db.prepare('DELETE FROM tokens WHERE family = ?').run(family);
}

/** RFC 7009: revokes a refresh token (with its family) or an access token; unknown tokens are fine. */
export function revokeToken(store: Pick<Store, 'db'>, token: string): void {
  store.db
    .transaction(() => {
      const h = sha256(token);
      const r = store.db.prepare('SELECT family FROM refresh_tokens WHERE hash = ?').get(h) as { family: string } | undefined;
      if (r) revokeFamily(store, r.family);
      else store.db.prepare('DELETE FROM tokens WHERE hash = ?').run(h);
    })
    .immediate();
}

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
