/**
 * Shared by the commands: opening an existing mirror state folder (never creating one by
 * accident), the keychain account of a device, and the token or sign-in (keychain or --token-env).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../app/errors.js';
import { authFor, type ClientAuth } from '../auth/credential.js';
import type { Transport } from '../client/transport.js';
import type { Candidate } from '../connection/device.js';
import { openKeychain } from '../keychain/keychain.js';
import { MirrorStore } from '../mirror/store.js';
import { openStateDb, type Db } from '../state/db.js';

export function openExistingState(dir: string): { db: Db; store: MirrorStore } {
  if (!existsSync(join(dir, 'state.db'))) throw new AppError('BadConfig', `no mirror in ${dir}: run "nas-mirror sync --device ... --state ${dir} --once" first`);
  const db = openStateDb(dir);
  return { db, store: new MirrorStore(db) };
}

/** The keychain account of a device: its first (LAN) address. */
export const accountOf = (candidates: readonly Candidate[]): string => candidates[0]?.baseUrl ?? '';

/** The token: from `--token-env VAR` when given, else from the OS keychain. */
export async function resolveToken(env: NodeJS.ProcessEnv, tokenEnv: string | undefined, candidates: readonly Candidate[]): Promise<string> {
  if (tokenEnv !== undefined) {
    const t = env[tokenEnv];
    if (t === undefined || t.trim() === '') throw new AppError('BadConfig', `the environment variable ${tokenEnv} is empty or not set`);
    return t.trim();
  }
  const kc = await openKeychain();
  if (kc.kind === 'memory') throw new AppError('NoKeychain', `${kc.reason ?? 'no OS keychain'}; pass the token with --token-env VAR instead`);
  const t = await kc.get(accountOf(candidates));
  if (!t) throw new AppError('Unauthorized', `no token stored for ${accountOf(candidates)}: run "nas-mirror login --device ..." or pass --token-env VAR`);
  return t;
}

/**
 * The client's authentication: `--token-env` (an access token as it is), else what
 * `nas-mirror login` stored: a pasted token, or a sign-in whose refresh token is renewed
 * (and each rotated one written back to the keychain) while the command runs.
 */
export async function resolveAuth(env: NodeJS.ProcessEnv, tokenEnv: string | undefined, candidates: readonly Candidate[], transport: Transport): Promise<ClientAuth> {
  const stored = await resolveToken(env, tokenEnv, candidates);
  if (tokenEnv !== undefined) return { transport, token: stored };
  const kc = await openKeychain();
  return authFor(stored, transport, (v) => kc.set(accountOf(candidates), v));
}
