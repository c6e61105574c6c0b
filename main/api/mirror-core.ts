/**
 * One mirror's engine side: its state database (settings included), offline index and a
 * Session (embedded demo or a real NAS, with its Engine), answering the contract. The
 * app's core (`core.ts`) holds one of these at a time and swaps it for "Start a new mirror".
 * Search, browse and completion work from the offline index even when no engine runs. The
 * token only flows inward.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ContractHandlers } from '../../app/contract/methods.js';
import type { AppStatus, SettingsView } from '../../app/contract/shapes.js';
import { AppError } from '../../app/errors.js';
import { decodeCredential } from '../auth/credential.js';
import { revoke } from '../auth/oauth-client.js';
import { HttpTransport } from '../client/transport.js';
import type { Keychain } from '../keychain/keychain.js';
import { LocalStore } from '../local/local-store.js';
import { freeMirrorFolder, mirrorBase, PROJECT_ROOT } from '../settings/app-dirs.js';
import { DEFAULT_SETTINGS, SettingsStore, type Settings } from '../settings/settings-store.js';
import { openMirrorState } from './compose.js';
import type { CoreOptions } from './core-types.js';
import type { EventHub } from './event-hub.js';
import { createHandlers, engineAppStatus, type SettingsProvider } from './handlers.js';
import { moveMirrorFolder } from './move-mirror.js';
import { sameNasElsewhere } from './nas-moved.js';
import { listPreviousMirrors } from './previous-mirrors.js';
import { accountFor, openSession, storeCredential, tokenFor, type Session, type SessionDeps } from './session.js';
import { checkSetUp } from './set-up.js';
import { signInFlow } from './sign-in-flow.js';
import { staleAfterSec as staleAfter } from '../../app/tray/stale.js';

/** Settings whose change needs a new session (another NAS, folder or engine timing). */
const RESTART_KEYS = ['source', 'location', 'mirrorFolder', 'syncIntervalSec', 'deleteThresholdCount', 'deleteThresholdPercent'] as const;

export interface MirrorCoreDeps {
  opts: CoreOptions & { demoObjects?: number; engine?: SessionDeps['engine'] };
  hub: EventHub;
  keychain: Keychain;
  memoryTokens: Map<string, string>;
  /** Settings carried over from a mirror put aside (theme, timing...). */
  carry?: Partial<Omit<Settings, 'source'>>;
}

export interface MirrorCore {
  handlers: ContractHandlers;
  status(): AppStatus;
  settings(): Settings;
  outboxPending(): number;
  close(): Promise<void>;
}

export async function openMirrorCore(d: MirrorCoreDeps): Promise<MirrorCore> {
  const { opts, hub, keychain } = d;
  const log = opts.log;
  const stateDir = opts.dataDir;
  const state = await openMirrorState(stateDir);
  const { db, store, applier, opened } = state;
  const settings = new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: join(opts.dataDir, 'mirror') });
  const embeddedDir = join(opts.dataDir, 'demo-nas');
  if (settings.isEmpty) {
    if (store.root() && !existsSync(embeddedDir)) {
      // A state folder made by the command line (sync/run): never point it at the demo NAS.
      const dir = new LocalStore(db).meta('mirrorDir');
      settings.update({ source: 'url', location: '', ...(dir ? { mirrorFolder: dir } : {}) });
    } else if (store.root()) {
      // a demo state from before the source was saved
      settings.update({ source: 'embedded' });
    } else if (opts.firstRun === 'demo') {
      settings.update({ source: 'embedded', mirrorFolder: freeMirrorFolder(mirrorBase(opts.dataDir)) });
    }
    // else: first start, nothing chosen (source "none"): the window asks.
    if (d.carry) settings.update(d.carry);
  }
  const deps: SessionDeps = {
    stateDir,
    embeddedDir,
    db,
    store,
    applier,
    opened,
    keychain,
    memoryTokens: d.memoryTokens,
    log,
    service: opts.service ?? { command: process.execPath, args: [join(PROJECT_ROOT, 'bin', 'nas-service.js')] },
    demoObjects: opts.demoObjects,
    engine: opts.engine,
    notice: (message) => {
      hub.emit('notice', { level: 'warn', message });
      emitStatus();
    },
  };

  let session: Session | null = null;
  let unsubscribe: (() => void)[] = [];
  let switching: Promise<void> = Promise.resolve();

  const status = (): AppStatus => {
    const s = settings.read();
    const staleAfterSec = staleAfter(s.syncIntervalSec);
    const engine = session?.engine;
    if (engine) return { ...engineAppStatus(engine, store, session?.via ?? null, staleAfterSec), endpoint: session?.endpoint ?? null };
    const p = session?.problem;
    return {
      connection: p?.connection ?? 'offline',
      endpoint: session?.endpoint ?? null,
      via: session?.via ?? null,
      paused: s.paused,
      mirrorMissing: false,
      walk: { running: false, folders: 0, objects: 0, placed: 0, rate: 0, startedAt: null },
      outbox: 0,
      conflicts: 0,
      heldDeletes: 0,
      uploads: { waiting: 0, held: 0 },
      lastCompleteWalk: store.lastWalk()?.completedAt ?? null,
      staleAfterSec,
      mirrorFolder: s.source === 'none' ? null : s.mirrorFolder,
      indexed: store.count(),
      error: p ? { code: p.code, message: p.message } : session ? null : { code: 'Unavailable', message: 'connecting…' },
    };
  };
  let closed = false;
  const emitStatus = (): void => {
    if (!closed) hub.emit('status', status());
  };

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
        engine.events.on('download', (d) => hub.emit('download', d)),
      ];
      if (engine.state.paused !== s.paused) await engine.setPaused(s.paused);
      void engine
        .start()
        .catch((e: unknown) => {
          log.error('engine failed to start', { err: e });
          hub.emit('notice', { level: 'error', message: `sync could not start: ${e instanceof Error ? e.message : String(e)}` });
        })
        .finally(emitStatus);
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
  const restart = (): Promise<void> =>
    (switching = switching.then(async () => {
      await stop();
      await start();
    }));
  /** Runs `fn` with no session (engine stopped), then starts one again whatever happened. */
  const withoutSession = <T>(fn: () => T | Promise<T>): Promise<T> => {
    const run = switching.then(async () => {
      await stop();
      try {
        return await fn();
      } finally {
        await start();
      }
    });
    switching = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };

  const view = async (): Promise<SettingsView> => {
    const s = settings.read();
    let token: SettingsView['token'] = 'none';
    let signedIn = false;
    if (s.source === 'embedded') token = session?.via === 'embedded' ? 'memory' : 'none';
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
    const e = session?.engine;
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
  };

  const setPaused = async (paused: boolean): Promise<void> => {
    settings.update({ paused });
    await session?.engine?.setPaused(paused);
    emitStatus();
  };

  const storeToken = async (account: string, token: string): Promise<void> => {
    if (keychain.kind === 'os') {
      try {
        await keychain.set(account, token);
        deps.memoryTokens.delete(account);
        return;
      } catch (e) {
        log.warn('keychain write failed; keeping the token in memory', { err: e });
      }
    }
    deps.memoryTokens.set(account, token);
  };

  /** Nothing mirrored yet: the NAS may still be chosen (first start, or a set-up that failed). */
  const unbound = (): boolean => settings.read().source === 'none' || !store.root() || store.count() === 0;

  const signIn = signInFlow({ deps, settings: () => settings.read(), desktop: opts.desktop, hub, restart });

  const provider: SettingsProvider = {
    signIn(location) {
      if (location !== undefined && !unbound())
        throw new AppError('BadConfig', 'this mirror is already set up: sign in from Settings', { field: 'location' });
      return signIn.start(location);
    },
    view,
    setPaused,
    async update(patch) {
      const before = settings.read();
      if (
        (patch.source !== undefined && patch.source !== before.source) ||
        (patch.location !== undefined && patch.location !== before.location)
      ) {
        // the first address given to a state folder binds it; after that, another NAS is a new mirror
        const bound = before.source === 'embedded' || before.location !== '';
        // ... but the same NAS at a new address is recognised by its root, never by its URL: the mirror and the sign-in stay
        if (bound && !unbound()) {
          const moved = await sameNasElsewhere(
            deps,
            before,
            { ...before, source: patch.source ?? before.source, location: patch.location ?? before.location },
            store.root()!.id,
          );
          if (!moved)
            throw new AppError(
              'BadConfig',
              'this mirror belongs to another NAS: use "Start a new mirror" below to mirror a different one (nothing of this mirror is lost)',
              { field: 'location' },
            );
          new LocalStore(db).addActivity({
            kind: 'nas-moved',
            path: '',
            summary: `The NAS is now at ${moved.to}`,
            reason: `the same NAS as at ${moved.from} (the same root): the mirror and the sign-in are kept, as changed in Settings`,
          });
          hub.emit('changed', { what: 'activity' });
        }
      }
      const { paused, mirrorFolder, ...rest } = patch;
      if (mirrorFolder !== undefined && mirrorFolder !== before.mirrorFolder) {
        // a move of the mirror folder is an operation (its own method), checked before anything is saved
        await provider.moveMirror?.(mirrorFolder);
      }
      if (patch.startAtLogin !== undefined && opts.loginItem.supported) opts.loginItem.set(patch.startAtLogin);
      const after = settings.update(rest);
      if (paused !== undefined && paused !== (session?.engine?.state.paused ?? before.paused)) await setPaused(paused);
      if (RESTART_KEYS.some((k) => k !== 'mirrorFolder' && after[k] !== before[k])) await restart();
      hub.emit('changed', { what: 'settings' });
      return view();
    },
    async setToken(token) {
      const s = settings.read();
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
      await storeToken(account, token);
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
            await revoke(transport, session?.endpoint ?? acc.candidates[0]!.baseUrl, c.refreshToken).catch((e: unknown) =>
              log.warn('revoking the sign-in failed', { err: e }),
            );
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
    async setUp(args) {
      if (!unbound())
        throw new AppError('BadConfig', 'this mirror is already set up: use "Start a new mirror" in Settings to mirror another NAS');
      const mirrorFolder = (args.mirrorFolder ?? '').trim() || freeMirrorFolder(mirrorBase(opts.dataDir));
      const chosen = await checkSetUp(args, {
        stateDir,
        mirrorFolder,
        storedToken: (account) => tokenFor(deps, account),
        persist: (account, encoded) => storeCredential(deps, account, encoded).then(() => undefined),
      });
      if (chosen.token) await storeToken(chosen.account, chosen.token);
      settings.update({ source: chosen.source, location: chosen.location, mirrorFolder });
      await restart();
      hub.emit('changed', { what: 'settings' });
      return view();
    },
    async moveMirror(to) {
      const from = settings.read().mirrorFolder;
      await withoutSession(() =>
        moveMirrorFolder({ db, stateDir, from, to, mirrored: !unbound(), settings, onProgress: (p) => hub.emit('mirrorMove', p) }),
      );
      hub.emit('changed', { what: 'settings' });
      hub.emit('changed', { what: 'activity' });
      return view();
    },
  };
  const handlers = createHandlers({
    index: () => opened.index,
    store,
    engine: () => session?.engine ?? null,
    whyNoEngine: () => session?.problem?.message ?? 'sync is not running yet',
    status,
    desktop: opts.desktop,
    settings: provider,
    log,
  });

  await start();
  return {
    handlers,
    status,
    settings: () => settings.read(),
    outboxPending: () => status().outbox,
    async close() {
      signIn.cancel();
      await switching;
      await stop();
      closed = true;
      state.close();
    },
  };
}
