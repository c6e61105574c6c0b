/**
 * One mirror's settings as the window reads and changes them (the app's `SettingsProvider`):
 * saved in the state database, the token in the keychain (else memory). A change that needs
 * a new session (another NAS, folder or engine timing) restarts it; another NAS for a bound
 * mirror is refused unless it is the same NAS at a new address; the mirror folder moves as
 * its own operation, with no session running.
 */
import type { SettingsPatch, SettingsView, SetUpArgs } from '../../app/contract/shapes.js';
import { AppError } from '../../app/errors.js';
import { decodeCredential } from '../auth/credential.js';
import { revoke } from '../auth/oauth-client.js';
import { HttpTransport } from '../client/transport.js';
import type { Keychain } from '../keychain/keychain.js';
import { LocalStore } from '../local/local-store.js';
import type { Logger } from '../log/logger.js';
import type { MirrorStore } from '../mirror/store.js';
import { freeMirrorFolder, mirrorBase } from '../settings/app-dirs.js';
import type { Settings, SettingsStore } from '../settings/settings-store.js';
import type { Db } from '../state/db.js';
import type { CoreOptions } from './core-types.js';
import type { EventHub } from './event-hub.js';
import type { SettingsProvider } from './handlers.js';
import { moveMirrorFolder } from './move-mirror.js';
import { sameNasElsewhere } from './nas-moved.js';
import { listPreviousMirrors } from './previous-mirrors.js';
import { accountFor, storeCredential, tokenFor } from './session.js';
import type { SessionRunner } from './session-runner.js';
import { checkSetUp } from './set-up.js';
import type { SignInFlow } from './sign-in-flow.js';

/** Settings whose change needs a new session (another NAS, folder or engine timing). */
const RESTART_KEYS = ['source', 'location', 'mirrorFolder', 'syncIntervalSec', 'deleteThresholdCount', 'deleteThresholdPercent'] as const;

/** What the settings of one mirror read and change. */
export interface MirrorSettingsContext {
  opts: Pick<CoreOptions, 'dataDir' | 'loginItem'>;
  settings: SettingsStore;
  store: MirrorStore;
  db: Db;
  hub: EventHub;
  keychain: Keychain;
  /** The mirror's session (restarted by a change; its deps hold the tokens kept in memory). */
  runner: SessionRunner;
  log: Logger;
}

/** The settings provider of one mirror, its sign-in started by `signIn`. */
export function mirrorSettings(c: MirrorSettingsContext, signIn: SignInFlow): SettingsProvider {
  return {
    signIn(location) {
      if (location !== undefined && !unbound(c))
        throw new AppError('BadConfig', 'this mirror is already set up: sign in from Settings', { field: 'location' });
      return signIn.start(location);
    },
    view: () => viewSettings(c),
    setPaused: (paused) => setPaused(c, paused),
    update: (patch) => updateSettings(c, patch),
    setToken: (token) => setToken(c, token),
    clearToken: () => clearToken(c),
    setUp: (args) => setUp(c, args),
    moveMirror: (to) => moveMirror(c, to),
  };
}

/** Nothing mirrored yet: the NAS may still be chosen (first start, or a set-up that failed). */
function unbound(c: MirrorSettingsContext): boolean {
  return c.settings.read().source === 'none' || !c.store.root() || c.store.count() === 0;
}

/** The settings as the window shows them: where the token is, the engine's pause, the folders to offer. */
async function viewSettings(c: MirrorSettingsContext): Promise<SettingsView> {
  const { opts, keychain } = c;
  const s = c.settings.read();
  const { token, signedIn } = await tokenPlace(c, s);
  const e = c.runner.session?.engine;
  return {
    ...s,
    paused: e ? e.state.paused : s.paused,
    token,
    signedIn,
    keychainAvailable: keychain.kind === 'os',
    startAtLogin: opts.loginItem.supported ? opts.loginItem.get() : false,
    startAtLoginSupported: opts.loginItem.supported,
    newMirrorFolder: freeMirrorFolder(mirrorBase(opts.dataDir)),
    previousMirrors: listPreviousMirrors(opts.dataDir),
  };
}

/** Where the configured NAS's token is kept, and whether it is a sign-in (a refresh token). */
async function tokenPlace(c: MirrorSettingsContext, s: Settings): Promise<{ token: SettingsView['token']; signedIn: boolean }> {
  const { deps } = c.runner;
  let token: SettingsView['token'] = 'none';
  let signedIn = false;
  if (s.source === 'embedded') token = c.runner.session?.via === 'embedded' ? 'memory' : 'none';
  else if (s.source !== 'none') {
    const transport = new HttpTransport();
    try {
      const acc = await accountFor(s, transport).catch(() => null);
      const stored = acc ? await tokenFor(deps, acc.account) : undefined;
      if (acc && deps.memoryTokens.has(acc.account)) token = 'memory';
      else if (stored) token = 'keychain';
      signedIn = stored !== undefined && decodeCredential(stored).kind === 'refresh';
    } finally {
      transport.close();
    }
  }
  return { token, signedIn };
}

/** Saves the pause and tells the engine. */
async function setPaused(c: MirrorSettingsContext, paused: boolean): Promise<void> {
  c.settings.update({ paused });
  await c.runner.session?.engine?.setPaused(paused);
  c.runner.emitStatus();
}

/** Keeps a token in the keychain, or in memory when there is none (or it fails). */
async function storeToken(c: MirrorSettingsContext, account: string, token: string): Promise<void> {
  const { keychain } = c;
  if (keychain.kind === 'os') {
    try {
      await keychain.set(account, token);
      c.runner.deps.memoryTokens.delete(account);
      return;
    } catch (e) {
      c.log.warn('keychain write failed; keeping the token in memory', { err: e });
    }
  }
  c.runner.deps.memoryTokens.set(account, token);
}

/** Applies a settings change from the window; a new session when the NAS, folder or timing changed. */
async function updateSettings(c: MirrorSettingsContext, patch: SettingsPatch): Promise<SettingsView> {
  const { opts, hub } = c;
  const before = c.settings.read();
  if (
    (patch.source !== undefined && patch.source !== before.source) ||
    (patch.location !== undefined && patch.location !== before.location)
  )
    await checkSameNas(c, before, patch);
  const { paused, mirrorFolder, ...rest } = patch;
  if (mirrorFolder !== undefined && mirrorFolder !== before.mirrorFolder) {
    // a move of the mirror folder is an operation (its own method), checked before anything is saved
    await moveMirror(c, mirrorFolder);
  }
  if (patch.startAtLogin !== undefined && opts.loginItem.supported) opts.loginItem.set(patch.startAtLogin);
  const after = c.settings.update(rest);
  if (paused !== undefined && paused !== (c.runner.session?.engine?.state.paused ?? before.paused)) await setPaused(c, paused);
  if (RESTART_KEYS.some((k) => k !== 'mirrorFolder' && after[k] !== before[k])) await c.runner.restart();
  hub.emit('changed', { what: 'settings' });
  return viewSettings(c);
}

/**
 * Another NAS address for a bound mirror: refused unless the same NAS answers there (its root),
 * which one line in Activity then says.
 */
async function checkSameNas(c: MirrorSettingsContext, before: Settings, patch: SettingsPatch): Promise<void> {
  // the first address given to a state folder binds it; after that, another NAS is a new mirror
  const bound = before.source === 'embedded' || before.location !== '';
  // ... but the same NAS at a new address is recognised by its root, never by its URL: the mirror and the sign-in stay
  if (!bound || unbound(c)) return;
  const moved = await sameNasElsewhere(
    c.runner.deps,
    before,
    { ...before, source: patch.source ?? before.source, location: patch.location ?? before.location },
    c.store.root()!.id,
  );
  if (!moved)
    throw new AppError(
      'BadConfig',
      'this mirror belongs to another NAS: use "Start a new mirror" below to mirror a different one' + ' (nothing of this mirror is lost)',
      { field: 'location' },
    );
  new LocalStore(c.db).addActivity({
    kind: 'nas-moved',
    path: '',
    summary: `The NAS is now at ${moved.to}`,
    reason: `the same NAS as at ${moved.from} (the same root): the mirror and the sign-in are kept, as changed in Settings`,
  });
  c.hub.emit('changed', { what: 'activity' });
}

/** Keeps a pasted access token for the configured NAS, then starts a new session. */
async function setToken(c: MirrorSettingsContext, token: string): Promise<SettingsView> {
  const s = c.settings.read();
  if (s.source === 'embedded' || s.source === 'none')
    throw new AppError('BadRequest', 'the built-in demo NAS needs no token: choose a NAS address first', { field: 'token' });
  const transport = new HttpTransport();
  let account: string;
  try {
    const acc = await accountFor(s, transport);
    if (!acc) throw new AppError('BadConfig', 'no NAS address', { field: 'location' });
    account = acc.account;
  } finally {
    transport.close();
  }
  await storeToken(c, account, token);
  await c.runner.restart();
  return viewSettings(c);
}

/** Signs out: the sign-in revoked on the NAS (best effort) and forgotten here, then a new session. */
async function clearToken(c: MirrorSettingsContext): Promise<SettingsView> {
  const { deps } = c.runner;
  const s = c.settings.read();
  const transport = new HttpTransport();
  try {
    const acc = await accountFor(s, transport).catch(() => null);
    if (acc) {
      // Signing out also revokes the sign-in on the NAS (best effort: offline, it just expires).
      const stored = await tokenFor(deps, acc.account);
      const cred = stored === undefined ? undefined : decodeCredential(stored);
      if (cred?.kind === 'refresh') {
        const at = c.runner.session?.endpoint ?? acc.candidates[0]!.baseUrl;
        await revoke(transport, at, cred.refreshToken).catch((e: unknown) => c.log.warn('revoking the sign-in failed', { err: e }));
      }
      deps.memoryTokens.delete(acc.account);
      if (c.keychain.kind === 'os') await c.keychain.delete(acc.account).catch(() => false);
    }
  } finally {
    transport.close();
  }
  if (s.source !== 'embedded') await c.runner.restart();
  return viewSettings(c);
}

/** First start (or a new mirror): the chosen NAS, checked, then saved, and a session on it. */
async function setUp(c: MirrorSettingsContext, args: SetUpArgs): Promise<SettingsView> {
  const { deps } = c.runner;
  if (!unbound(c))
    throw new AppError('BadConfig', 'this mirror is already set up: use "Start a new mirror" in Settings to mirror another NAS');
  const mirrorFolder = (args.mirrorFolder ?? '').trim() || freeMirrorFolder(mirrorBase(c.opts.dataDir));
  const chosen = await checkSetUp(args, {
    stateDir: deps.stateDir,
    mirrorFolder,
    storedToken: (account) => tokenFor(deps, account),
    persist: (account, encoded) => storeCredential(deps, account, encoded).then(() => undefined),
  });
  if (chosen.token) await storeToken(c, chosen.account, chosen.token);
  c.settings.update({ source: chosen.source, location: chosen.location, mirrorFolder });
  await c.runner.restart();
  c.hub.emit('changed', { what: 'settings' });
  return viewSettings(c);
}

/** Moves the mirror folder, with no session running (its progress told to the window). */
async function moveMirror(c: MirrorSettingsContext, to: string): Promise<SettingsView> {
  const { db, hub, settings } = c;
  const from = settings.read().mirrorFolder;
  const stateDir = c.runner.deps.stateDir;
  await c.runner.withoutSession(() =>
    moveMirrorFolder({ db, stateDir, from, to, mirrored: !unbound(c), settings, onProgress: (p) => hub.emit('mirrorMove', p) }),
  );
  hub.emit('changed', { what: 'settings' });
  hub.emit('changed', { what: 'activity' });
  return viewSettings(c);
}
