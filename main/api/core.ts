/**
 * The engine side of the window contract, composed: state database, settings, keychain,
 * offline index (open once, shared), and a Session (embedded demo or a real NAS, with its
 * Engine). Every handler answers in the contract's shapes; search, browse and completion
 * work from the offline index even when no engine runs. The token only flows inward.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AppStatus, SettingsView } from '../../app/contract/shapes.js';
import { AppError } from '../../app/errors.js';
import { decodeCredential } from '../auth/credential.js';
import { revoke } from '../auth/oauth-client.js';
import { HttpTransport } from '../client/transport.js';
import { openOfflineIndex } from '../index/open-index.js';
import { MemoryKeychain, openKeychain } from '../keychain/keychain.js';
import { ChangeApplier } from '../mirror/apply.js';
import { MirrorStore } from '../mirror/store.js';
import { LocalStore } from '../local/local-store.js';
import { DEFAULT_SETTINGS, SettingsStore } from '../settings/settings-store.js';
import { openStateDb } from '../state/db.js';
import { PROJECT_ROOT } from '../ui-server/assets.js';
import type { Core, CoreOptions } from './core-types.js';
import { EventHub } from './event-hub.js';
import { createHandlers, engineAppStatus, type SettingsProvider } from './handlers.js';
import { accountFor, openSession, tokenFor, type Session, type SessionDeps } from './session.js';
import { signInFlow } from './sign-in-flow.js';

/** Settings whose change needs a new session (another NAS, folder or engine timing). */
const RESTART_KEYS = ['source', 'location', 'mirrorFolder', 'syncIntervalSec', 'deleteThresholdCount', 'deleteThresholdPercent'] as const;

export async function startCore(opts: CoreOptions & { demoObjects?: number; engine?: SessionDeps['engine'] }): Promise<Core> {
  const log = opts.log;
  mkdirSync(opts.dataDir, { recursive: true });
  const stateDir = opts.dataDir;
  const db = openStateDb(stateDir);
  const settings = new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: join(opts.dataDir, 'mirror') });
  const store = new MirrorStore(db);
  const embeddedDir = join(opts.dataDir, 'demo-nas');
  if (settings.isEmpty) {
    if (store.root() && !existsSync(embeddedDir)) {
      // A state folder made by the command line (sync/run): never point it at the demo NAS.
      const dir = new LocalStore(db).meta('mirrorDir');
      settings.update({ source: 'url', location: '', ...(dir ? { mirrorFolder: dir } : {}) });
    } else {
      // First start (or a demo state from before this was saved): remember the demo, so the
      // next start finds its mirror as the demo's and not as a command line's state folder.
      settings.update({ source: 'embedded' });
    }
  }
  const keychain = opts.noKeychain ? new MemoryKeychain('the keychain is turned off') : await openKeychain();
  const applier = new ChangeApplier(store);
  const opened = await openOfflineIndex(store, stateDir);
  applier.onChanges((c) => opened.follow(c));
  const hub = new EventHub(log.child('events'));
  const deps: SessionDeps = {
    stateDir, embeddedDir, db, store, applier, keychain, memoryTokens: new Map(), log,
    service: opts.service ?? { command: process.execPath, args: [join(PROJECT_ROOT, 'bin', 'nas-service.js')] },
    demoObjects: opts.demoObjects, engine: opts.engine,
    notice: (message) => { hub.emit('notice', { level: 'warn', message }); emitStatus(); },
  };

  let session: Session | null = null;
  let unsubscribe: (() => void)[] = [];
  let switching: Promise<void> = Promise.resolve();

  const status = (): AppStatus => {
    const s = settings.read();
    const staleAfterSec = Math.max(600, s.syncIntervalSec * 3);
    const engine = session?.engine;
    if (engine) return { ...engineAppStatus(engine, store, session?.via ?? null, staleAfterSec), endpoint: session?.endpoint ?? null };
    const p = session?.problem;
    return {
      connection: p?.connection ?? 'offline', endpoint: session?.endpoint ?? null, via: session?.via ?? null, paused: s.paused, mirrorMissing: false,
      walk: { running: false, folders: 0, objects: 0, placed: 0, rate: 0, startedAt: null }, outbox: 0, conflicts: 0, heldDeletes: 0,
      lastCompleteWalk: store.lastWalk()?.completedAt ?? null, staleAfterSec, mirrorFolder: s.mirrorFolder, indexed: store.count(),
      error: p ? { code: p.code, message: p.message } : session ? null : { code: 'Unavailable', message: 'connecting…' },
    };
  };
  let closed = false;
  const emitStatus = (): void => { if (!closed) hub.emit('status', status()); };

  const start = async (): Promise<void> => {
    const s = settings.read();
    session = await openSession(deps, s);
    const engine = session.engine;
    if (engine) {
      unsubscribe = [
        engine.events.on('status', () => emitStatus()),
        engine.events.on('activity', () => hub.emit('changed', { what: 'activity' })),
        engine.events.on('changed', (c) => hub.emit('changed', c)),
        engine.events.on('notice', (n) => hub.emit('notice', n)),
      ];
      if (engine.state.paused !== s.paused) await engine.setPaused(s.paused);
      void engine.start().catch((e: unknown) => {
        log.error('engine failed to start', { err: e });
        hub.emit('notice', { level: 'error', message: `sync could not start: ${e instanceof Error ? e.message : String(e)}` });
      }).finally(emitStatus);
    }
    emitStatus();
  };
  const stop = async (): Promise<void> => {
    for (const u of unsubscribe) u();
    unsubscribe = [];
    const s = session;
    session = null;
    await s?.close();
    await opened.save().catch((e: unknown) => log.warn('saving the offline index failed', { err: e }));
  };
  const restart = (): Promise<void> => (switching = switching.then(async () => { await stop(); await start(); }));

  const view = async (): Promise<SettingsView> => {
    const s = settings.read();
    let token: SettingsView['token'] = 'none';
    let signedIn = false;
    if (s.source === 'embedded') token = session?.via === 'embedded' ? 'memory' : 'none';
    else {
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
    const e = session?.engine;
    return {
      ...s, paused: e ? e.state.paused : s.paused, token, signedIn, keychainAvailable: keychain.kind === 'os',
      startAtLogin: opts.loginItem.supported ? opts.loginItem.get() : false, startAtLoginSupported: opts.loginItem.supported,
    };
  };

  const setPaused = async (paused: boolean): Promise<void> => {
    settings.update({ paused });
    await session?.engine?.setPaused(paused);
    emitStatus();
  };

  const signIn = signInFlow({ deps, settings: () => settings.read(), desktop: opts.desktop, hub, restart });

  const provider: SettingsProvider = {
    signIn: () => signIn.start(),
    view,
    setPaused,
    async update(patch) {
      const before = settings.read();
      if ((patch.source !== undefined && patch.source !== before.source) || (patch.location !== undefined && patch.location !== before.location)) {
        // the first address given to a state folder binds it; after that, another NAS needs another folder
        const bound = before.source === 'embedded' || before.location !== '';
        if (bound && store.root() && store.count() > 0) throw new AppError('BadConfig', 'this mirror already holds another NAS; to mirror a different NAS, use a new state folder (nas-mirror ui --state DIR)');
      }
      if (patch.startAtLogin !== undefined && opts.loginItem.supported) opts.loginItem.set(patch.startAtLogin);
      const { paused, ...rest } = patch;
      const after = settings.update(rest);
      if (paused !== undefined && paused !== (session?.engine?.state.paused ?? before.paused)) await setPaused(paused);
      if (RESTART_KEYS.some((k) => after[k] !== before[k])) await restart();
      hub.emit('changed', { what: 'settings' });
      return view();
    },
    async setToken(token) {
      const s = settings.read();
      if (s.source === 'embedded') throw new AppError('BadRequest', 'the built-in demo NAS needs no token: choose a NAS address first');
      const transport = new HttpTransport();
      let account: string;
      try {
        const acc = await accountFor(s, transport);
        if (!acc) throw new AppError('BadConfig', 'no NAS address');
        account = acc.account;
      } finally {
        transport.close();
      }
      if (keychain.kind === 'os') {
        try {
          await keychain.set(account, token);
          deps.memoryTokens.delete(account);
        } catch (e) {
          log.warn('keychain write failed; keeping the token in memory', { err: e });
          deps.memoryTokens.set(account, token);
        }
      } else deps.memoryTokens.set(account, token);
      await restart();
      return view();
    },
    async clearToken() {
      const s = settings.read();
      const transport = new HttpTransport();
      try {
        const acc = await accountFor(s, transport).catch(() => null);
        if (acc) {
          // Signing out also revokes the sign-in on the NAS (best effort: offline, it just expires).
          const stored = await tokenFor(deps, acc.account);
          const c = stored === undefined ? undefined : decodeCredential(stored);
          if (c?.kind === 'refresh') {
            await revoke(transport, session?.endpoint ?? acc.candidates[0]!.baseUrl, c.refreshToken).catch((e: unknown) => log.warn('revoking the sign-in failed', { err: e }));
          }
          deps.memoryTokens.delete(acc.account);
          if (keychain.kind === 'os') await keychain.delete(acc.account).catch(() => false);
        }
      } finally {
        transport.close();
      }
      if (s.source !== 'embedded') await restart();
      return view();
    },
  };
  const handlers = createHandlers({
    index: () => opened.index, store, engine: () => session?.engine ?? null,
    whyNoEngine: () => session?.problem?.message ?? 'sync is not running yet',
    status, desktop: opts.desktop, settings: provider, log,
  });

  await start();
  return {
    handlers,
    events: hub,
    status,
    async close() {
      signIn.cancel();
      await switching;
      await stop();
      closed = true;
      db.close();
    },
  };
}
