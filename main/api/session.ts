/**
 * One connection to one NAS: where it is (embedded demo, base URL, device record), the
 * token (keychain, memory, or minted for the embedded demo), and the running Engine on the
 * shared state. A settings change that moves the NAS or the mirror ends the session and
 * starts a new one. Without a token the session stays "unconfigured" and starts no engine.
 */
import { existsSync } from 'node:fs';
import { AppError, toAppError } from '../../app/errors.js';
import { authFor } from '../auth/credential.js';
import { ServiceClient } from '../client/service-client.js';
import { HttpTransport, type Transport } from '../client/transport.js';
import { connect } from '../connection/connect.js';
import { FailoverTransport } from '../connection/failover.js';
import { loadDevice, type Candidate } from '../connection/device.js';
import { startEmbeddedService, type EmbeddedService, type ServiceCommand } from '../embedded/embedded-service.js';
import type { Keychain } from '../keychain/keychain.js';
import type { Logger } from '../log/logger.js';
import type { ChangeApplier } from '../mirror/apply.js';
import type { MirrorStore } from '../mirror/store.js';
import { LocalStore } from '../local/local-store.js';
import { checkMirrorFolder } from '../settings/folders.js';
import { createEngine } from './compose.js';
import { rootAt } from './nas-identity.js';
import type { Engine } from '../engine/engine.js';
import type { Settings } from '../settings/settings-store.js';
import type { Db } from '../state/db.js';
import type { OpenedIndex } from '../index/open-index.js';

export type Via = 'lan' | 'proxy' | 'url' | 'embedded';

export interface SessionDeps {
  stateDir: string;
  embeddedDir: string;
  db: Db;
  store: MirrorStore;
  applier: ChangeApplier;
  /** The offline index following the applier (catches up at once when a walk ends). */
  opened?: OpenedIndex;
  keychain: Keychain;
  /** Tokens kept in memory when there is no keychain, by account. */
  memoryTokens: Map<string, string>;
  service: ServiceCommand;
  log: Logger;
  demoObjects?: number;
  /** Tells the window something it should know once (a device quirk found). */
  notice?: (message: string) => void;
  /** Engine timing overrides (tests); `requestTimeoutMs`: the NAS client's (the app's is 30 s). */
  engine?: { holdMs?: number; rescanMs?: number; requestPollMs?: number; requestTimeoutMs?: number };
}

export interface Session {
  engine: Engine | null;
  via: Via | null;
  endpoint: string | null;
  /** Why no engine runs (no token, cannot reach the NAS...). */
  problem: { connection: 'unconfigured' | 'offline' | 'auth-error'; code: string; message: string } | null;
  close(): Promise<void>;
}

/** The keychain account of the configured NAS (its first address), or null for the demo. */
export async function accountFor(s: Settings, transport: HttpTransport): Promise<{ account: string; candidates: Candidate[] } | null> {
  if (s.source === 'embedded' || s.source === 'none') return null;
  if (!s.location.trim()) throw new AppError('BadConfig', 'set the NAS address (a base URL or a device record) first');
  const candidates =
    s.source === 'url'
      ? [{ via: 'url' as const, baseUrl: s.location.trim().replace(/\/+$/, '') }]
      : await loadDevice(s.location, transport);
  const account = candidates[0]?.baseUrl;
  if (!account) throw new AppError('BadConfig', 'the device record names no address');
  return { account, candidates };
}

export async function tokenFor(deps: SessionDeps, account: string): Promise<string | undefined> {
  const mem = deps.memoryTokens.get(account);
  if (mem) return mem;
  if (deps.keychain.kind === 'memory') return undefined;
  try {
    return await deps.keychain.get(account);
  } catch (e) {
    deps.log.warn('keychain read failed', { err: e });
    return undefined;
  }
}

/**
 * Stores a credential where the account's current one is: the keychain, or memory when
 * there is none (or it fails). A rotated refresh token must never be lost silently.
 */
export async function storeCredential(deps: SessionDeps, account: string, value: string): Promise<'keychain' | 'memory'> {
  if (deps.keychain.kind === 'os' && !deps.memoryTokens.has(account)) {
    try {
      await deps.keychain.set(account, value);
      return 'keychain';
    } catch (e) {
      deps.log.warn('keychain write failed: the sign-in is kept in memory for this session', { err: e });
    }
  }
  deps.memoryTokens.set(account, value);
  return 'memory';
}

/** The state db's note of the account the mirror was last synced as (its NAS's first address then). */
const ACCOUNT_META = 'nasAccount';

/**
 * No sign-in for this address, but one for the address the mirror was synced from (the device
 * record was edited, the NAS got another address): when the NAS there has the mirrored root,
 * it is the same NAS, and its sign-in is kept for the new address (one line in Activity).
 */
async function signInOfMovedNas(
  deps: SessionDeps,
  acc: { account: string; candidates: Candidate[] },
  transport: HttpTransport,
): Promise<string | undefined> {
  const local = new LocalStore(deps.db);
  const was = local.meta(ACCOUNT_META);
  const root = deps.store.root();
  if (!was || was === acc.account || !root) return undefined;
  const stored = await tokenFor(deps, was);
  if (stored === undefined) return undefined;
  const same = await rootAt(acc.candidates, stored, transport, (v) => storeCredential(deps, was, v).then(() => undefined)).catch(
    () => null,
  );
  if (same !== root.id) return undefined;
  const current = (await tokenFor(deps, was)) ?? stored;
  await storeCredential(deps, acc.account, current);
  await forgetCredential(deps, was);
  local.addActivity({
    kind: 'nas-moved',
    path: '',
    summary: `The NAS is now at ${acc.account}`,
    reason:
      `the same NAS as at ${was} (the same root), found at the address its device record now gives:` +
      ' the mirror and the sign-in are kept',
  });
  deps.log.info('NAS moved', { summary: `the same NAS, now at ${acc.account} (was ${was})` });
  return current;
}

/** Forgets an account's credential (memory and keychain): once moved to a new address, the old one keeps no copy. */
export async function forgetCredential(deps: SessionDeps, account: string): Promise<void> {
  deps.memoryTokens.delete(account);
  if (deps.keychain.kind === 'os')
    await deps.keychain.delete(account).catch((e: unknown) => {
      deps.log.warn('keychain delete failed', { err: e });
      return false;
    });
}

/** Why a session runs no engine. */
type Problem = NonNullable<Session['problem']>;

/** How the NAS is reached once connected: its address, the token and the transport the client sends through. */
interface Reached {
  baseUrl: string;
  token: string;
  via: Via;
  transport: Transport;
  /** Switches between the NAS's addresses (a real NAS; none for the demo). */
  failover?: FailoverTransport;
  /** The sign-in's secrets (a refresh token), redacted from errors. */
  secrets?: () => string[];
  /** The embedded demo NAS, stopped with the session. */
  embedded?: EmbeddedService;
}

/** Starts a session for the settings; never throws (a failure is the session's `problem`). */
export async function openSession(deps: SessionDeps, s: Settings): Promise<Session> {
  const transport = new HttpTransport();
  if (s.source === 'none')
    return idleSession(transport, {
      connection: 'unconfigured',
      code: 'BadConfig',
      message: 'not set up yet: connect your NAS or try the demo',
    });
  const badFolder = mirrorFolderProblem(deps, s);
  if (badFolder) return idleSession(transport, badFolder);
  const reached = await reach(deps, s, transport);
  if ('problem' in reached) return idleSession(transport, reached.problem);
  return engineSession(deps, s, transport, reached);
}

/** A session without an engine, saying why. */
function idleSession(transport: HttpTransport, problem: Problem): Session {
  return {
    engine: null,
    via: null,
    endpoint: null,
    problem,
    async close() {
      transport.close();
    },
  };
}

/**
 * The saved mirror folder, checked with the command line's rules before any engine touches
 * it (a folder under /proc would spin a recursive mkdir forever). A mirror whose folder
 * vanished is left to the engine, which pauses rather than recreate it.
 */
function mirrorFolderProblem(deps: SessionDeps, s: Settings): Problem | null {
  if (deps.store.root() && !existsSync(s.mirrorFolder)) return null;
  try {
    checkMirrorFolder(deps.stateDir, s.mirrorFolder);
    return null;
  } catch (e) {
    const err = toAppError(e);
    return { connection: 'unconfigured', code: 'BadConfig', message: `${err.message}: choose another mirror folder in Settings` };
  }
}

/** Reaches the NAS of the settings (the embedded demo started, or a real NAS connected), or says why not. */
async function reach(deps: SessionDeps, s: Settings, transport: HttpTransport): Promise<Reached | { problem: Problem }> {
  let embedded: EmbeddedService | null = null;
  try {
    if (s.source === 'embedded') {
      embedded = await startEmbeddedService({
        dataDir: deps.embeddedDir,
        service: deps.service,
        log: deps.log.child('embedded'),
        demoObjects: deps.demoObjects,
      });
      return { baseUrl: embedded.baseUrl, token: embedded.token, via: 'embedded', transport, embedded };
    }
    return await connectNas(deps, s, transport);
  } catch (e) {
    const err = toAppError(e);
    await embedded?.stop();
    return {
      problem: {
        connection: err.code === 'Unauthorized' ? 'auth-error' : err.code === 'BadConfig' ? 'unconfigured' : 'offline',
        code: err.code,
        message: err.message,
      },
    };
  }
}

/**
 * Connects to a real NAS with the account's sign-in (or the one of the address it moved
 * from), LAN first; the address is checked again on errors and periodically (LAN down, proxy
 * up, and back). Without a sign-in, says so.
 */
async function connectNas(deps: SessionDeps, s: Settings, transport: HttpTransport): Promise<Reached | { problem: Problem }> {
  const acc = await accountFor(s, transport);
  const t = acc ? ((await tokenFor(deps, acc.account)) ?? (await signInOfMovedNas(deps, acc, transport))) : undefined;
  // the NAS is configured, only the sign-in is missing: say so (never "not set up"), and why it is gone when there is no keychain
  const noKeychain = deps.keychain.kind === 'memory' ? ' (this desktop has no keychain: a sign-in lasts until the app quits)' : '';
  if (!acc || !t)
    return {
      problem: {
        connection: 'unconfigured',
        code: 'Unauthorized',
        message: `not signed in to this NAS${noKeychain}: use "Sign in" in Settings (or paste an access token there)`,
      },
    };
  const auth = authFor(t, transport, (v) => storeCredential(deps, acc.account, v).then(() => undefined));
  const token = auth.token;
  const authed = auth.transport;
  const signedIn = auth.signedIn;
  const conn = await connect(acc.candidates, authed, token);
  new LocalStore(deps.db).setMeta(ACCOUNT_META, acc.account);
  const failover = new FailoverTransport(authed, conn.baseUrl, conn, acc.candidates[0]!.via, {
    recheck: () => connect(acc.candidates, authed, token),
    onSwitch: (c) => {
      deps.log.info('address', { summary: `now ${c.description}` });
      deps.notice?.(`Now ${c.description}.`);
    },
  });
  return {
    baseUrl: conn.baseUrl,
    token,
    via: conn.via,
    transport: failover,
    failover,
    ...(signedIn ? { secrets: () => signedIn.secrets() } : {}),
  };
}

/** The session of a reached NAS: its Engine on the shared state, the client sending through `reached`. */
function engineSession(deps: SessionDeps, s: Settings, transport: HttpTransport, reached: Reached): Session {
  const { baseUrl, token, via, failover: fo, secrets, embedded } = reached;
  new LocalStore(deps.db).setMeta('mirrorDir', s.mirrorFolder);
  const { requestTimeoutMs, ...timing } = deps.engine ?? {};
  const client = new ServiceClient({
    baseUrl,
    token,
    transport: reached.transport,
    ...(requestTimeoutMs !== undefined ? { timeoutMs: requestTimeoutMs } : {}),
    ...(secrets ? { secrets } : {}),
    onWarning: (m) => {
      deps.log.warn('NAS quirk', { summary: m });
      deps.notice?.(m);
    },
  });
  const engine = createEngine(deps, {
    mirrorDir: s.mirrorFolder,
    client,
    log: deps.log.child('engine'),
    threshold: { count: s.deleteThresholdCount, percent: s.deleteThresholdPercent },
    rewalkMs: s.syncIntervalSec * 1000,
    endpoint: baseUrl,
    ...timing,
  });
  return {
    engine,
    problem: null,
    // the address in use now (it may change during the session)
    get via(): Via {
      return fo ? fo.connection.via : via;
    },
    get endpoint(): string {
      return fo ? fo.connection.baseUrl : baseUrl;
    },
    async close() {
      await engine.stop();
      fo?.close();
      transport.close();
      await embedded?.stop();
    },
  };
}
