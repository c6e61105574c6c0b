/**
 * Shared by the commands: opening an existing mirror state folder (never creating one by
 * accident), the keychain account of a device, and the token (keychain or --token-env).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../app/errors.js';
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
