/**
 * Shared by the commands: the state folder (`--state`, else the app's own data folder: the
 * window's, so a terminal sees what the window sees), opening an existing one (never creating
 * one by accident), the keychain account of a device, and the token or sign-in (keychain or --token-env).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { AppError } from '../../app/errors.js';
import type { DeviceView } from '../../app/filters/on-device.js';
import { authFor, type ClientAuth } from '../auth/credential.js';
import type { Transport } from '../client/transport.js';
import type { Candidate } from '../connection/device.js';
import { openKeychain } from '../keychain/keychain.js';
import { LocalStore } from '../local/local-store.js';
import { LocalModel } from '../local/model.js';
import { deviceView } from '../local/pins.js';
import { MirrorStore } from '../mirror/store.js';
import { defaultDataDir } from '../settings/app-dirs.js';
import { openStateDb, type Db } from '../state/db.js';

/**
 * The state folder, in full: `--state DIR` (a relative one from the current folder), else the
 * app's own data folder (NAS_MIRROR_HOME, else the platform's: main/settings/app-dirs.ts).
 */
export function stateDirOf(given: string | undefined, env: NodeJS.ProcessEnv): string {
  const dir = given ?? defaultDataDir(env);
  return isAbsolute(dir) ? dir : resolve(dir);
}

/** An existing mirror's state (`--state`, else the app's data folder); an error in words when there is none. */
export function openExistingState(given: string | undefined, env: NodeJS.ProcessEnv): { db: Db; store: MirrorStore; dir: string } {
  const dir = stateDirOf(given, env);
  if (!existsSync(join(dir, 'state.db'))) {
    throw new AppError(
      'BadConfig',
      given === undefined
        ? `no mirror in ${dir} (the app's data folder): ` +
            'set one up in the app (or "nas-mirror run --device ... --dir ..."), or give --state DIR'
        : `no mirror in ${dir}: run "nas-mirror sync --device ... --state ${given} --once" first`,
    );
  }
  const db = openStateDb(dir);
  return { db, store: new MirrorStore(db), dir };
}

let storedViews = 0;

/**
 * What is on this device as the state folder holds it (the local model and the pins, as the
 * engine last wrote them), for a search's `on:` operator: the same states as the running
 * engine's. Loads the whole model, so it is read only when a query has an `on:`.
 */
export function storedDeviceView(db: Db, store: MirrorStore): DeviceView {
  const local = new LocalStore(db);
  const rootId = store.root()?.id ?? '';
  return deviceView(rootId ? local.loadModel(rootId) : new LocalModel(''), local.pins(), `stored:${++storedViews}`);
}

/** The keychain account of a device: its first (LAN) address. */
export const accountOf = (candidates: readonly Candidate[]): string => candidates[0]?.baseUrl ?? '';

/** The token: from `--token-env VAR` when given, else from the OS keychain. */
export async function resolveToken(
  env: NodeJS.ProcessEnv,
  tokenEnv: string | undefined,
  candidates: readonly Candidate[],
): Promise<string> {
  if (tokenEnv !== undefined) {
    const t = env[tokenEnv];
    if (t === undefined || t.trim() === '') throw new AppError('BadConfig', `the environment variable ${tokenEnv} is empty or not set`);
    return t.trim();
  }
  const kc = await openKeychain();
  if (kc.kind === 'memory')
    throw new AppError('NoKeychain', `${kc.reason ?? 'no OS keychain'}; pass the token with --token-env VAR instead`);
  const t = await kc.get(accountOf(candidates));
  if (!t)
    throw new AppError(
      'Unauthorized',
      `no token stored for ${accountOf(candidates)}: run "nas-mirror login --device ..." or pass --token-env VAR`,
    );
  return t;
}

/**
 * The client's authentication: `--token-env` (an access token as it is), else what
 * `nas-mirror login` stored: a pasted token, or a sign-in whose refresh token is renewed
 * (and each rotated one written back to the keychain) while the command runs.
 */
export async function resolveAuth(
  env: NodeJS.ProcessEnv,
  tokenEnv: string | undefined,
  candidates: readonly Candidate[],
  transport: Transport,
): Promise<ClientAuth> {
  const stored = await resolveToken(env, tokenEnv, candidates);
  if (tokenEnv !== undefined) return { transport, token: stored };
  const kc = await openKeychain();
  return authFor(stored, transport, (v) => kc.set(accountOf(candidates), v));
}
