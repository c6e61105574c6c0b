/**
 * One mirror's engine side: its state database (settings included), offline index and a
 * Session (embedded demo or a real NAS, with its Engine), answering the contract. The
 * app's core (`core.ts`) holds one of these at a time and swaps it for "Start a new mirror".
 * Search, browse and completion work from the offline index even when no engine runs. The
 * token only flows inward. The session runs in `session-runner.ts`, the settings in
 * `mirror-settings.ts`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ContractHandlers } from '../../app/contract/methods.js';
import type { AppStatus } from '../../app/contract/shapes.js';
import type { Keychain } from '../keychain/keychain.js';
import { LocalStore } from '../local/local-store.js';
import { freeMirrorFolder, mirrorBase, PROJECT_ROOT } from '../settings/app-dirs.js';
import { DEFAULT_SETTINGS, SettingsStore, type Settings } from '../settings/settings-store.js';
import { openMirrorState, type MirrorState } from './compose.js';
import type { CoreOptions } from './core-types.js';
import type { EventHub } from './event-hub.js';
import { createHandlers } from './handlers.js';
import { mirrorSettings } from './mirror-settings.js';
import type { SessionDeps } from './session.js';
import { SessionRunner } from './session-runner.js';
import { signInFlow } from './sign-in-flow.js';

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

/** Opens one mirror (its state folder, settings and offline index) and starts its session. */
export async function openMirrorCore(d: MirrorCoreDeps): Promise<MirrorCore> {
  const { opts, hub, keychain } = d;
  const log = opts.log;
  const state = await openMirrorState(opts.dataDir);
  const { db, store, opened } = state;
  const settings = openSettings(d, state);
  const runner = new SessionRunner({ session: sessionDepsOf(d, state), settings, store, opened, hub, log });
  const signIn = signInFlow({
    deps: runner.deps,
    settings: () => settings.read(),
    desktop: opts.desktop,
    hub,
    restart: () => runner.restart(),
  });
  const provider = mirrorSettings({ opts, settings, store, db, hub, keychain, runner, log }, signIn);
  const status = (): AppStatus => runner.status();
  const handlers = createHandlers({
    index: () => opened.index,
    store,
    engine: () => runner.session?.engine ?? null,
    whyNoEngine: () => runner.session?.problem?.message ?? 'sync is not running yet',
    status,
    desktop: opts.desktop,
    settings: provider,
    log,
  });

  await runner.start();
  return {
    handlers,
    status,
    settings: () => settings.read(),
    outboxPending: () => status().outbox,
    async close() {
      signIn.cancel();
      await runner.close();
      state.close();
    },
  };
}

/** The demo NAS's data folder in a state folder. */
function demoNasDir(dataDir: string): string {
  return join(dataDir, 'demo-nas');
}

/**
 * The mirror's settings. A state folder's first start picks its source: a state made by the
 * command line keeps its NAS address unset (never the demo), a demo state from before the
 * source was saved stays the demo, `firstRun: 'demo'` starts the demo; else the window asks.
 */
function openSettings(d: MirrorCoreDeps, state: MirrorState): SettingsStore {
  const { opts } = d;
  const { db, store } = state;
  const settings = new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: join(opts.dataDir, 'mirror') });
  if (settings.isEmpty) {
    if (store.root() && !existsSync(demoNasDir(opts.dataDir))) {
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
  return settings;
}

/** What each session of this mirror is opened with (the runner adds its notices). */
function sessionDepsOf(d: MirrorCoreDeps, state: MirrorState): Omit<SessionDeps, 'notice'> {
  const { opts } = d;
  return {
    stateDir: opts.dataDir,
    embeddedDir: demoNasDir(opts.dataDir),
    db: state.db,
    store: state.store,
    applier: state.applier,
    opened: state.opened,
    keychain: d.keychain,
    memoryTokens: d.memoryTokens,
    log: opts.log,
    service: opts.service ?? { command: process.execPath, args: [join(PROJECT_ROOT, 'bin', 'nas-service.js')] },
    demoObjects: opts.demoObjects,
    engine: opts.engine,
  };
}
