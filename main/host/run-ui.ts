/**
 * `nas-mirror run --ui`: the window in a browser for an Engine that the command line set up
 * (in this process: `run` keeps its engine in-process, it has no window to keep responsive)
 * (NAS, token, folder and limits from its flags). Same contract, same UI server; settings are
 * read-only here except pause, because they come from the command line, and the token stays
 * where the command found it (the window is only told where).
 */
import type { SettingsView } from '../../app/contract/shapes.js';
import { AppError } from '../../app/errors.js';
import type { Engine } from '../engine/engine.js';
import type { OfflineIndex } from '../index/offline-index.js';
import type { Logger } from '../log/logger.js';
import type { MirrorStore } from '../mirror/store.js';
import { ensureRenderer } from '../ui-server/assets.js';
import { startUiServer, type UiServer } from '../ui-server/ui-server.js';
import { nodeDesktop } from '../api/desktop-node.js';
import { EventHub } from '../api/event-hub.js';
import { createHandlers, engineAppStatus, type SettingsProvider } from '../api/handlers.js';
import type { DesktopPort } from '../api/ports.js';
import { staleAfterSec as staleAfter } from '../../app/tray/stale.js';

export interface EngineUiOptions {
  engine: Engine;
  index: () => OfflineIndex;
  store: MirrorStore;
  log: Logger;
  port?: number;
  /** What the command line was given. */
  location: string;
  tokenPlace: SettingsView['token'];
  rewalkSec: number;
  threshold: { count: number; percent: number };
  desktop?: DesktopPort;
}

export async function serveEngineUi(o: EngineUiOptions): Promise<UiServer> {
  const hub = new EventHub(o.log.child('events'));
  const staleAfterSec = staleAfter(o.rewalkSec);
  const status = () => engineAppStatus(o.engine, o.store, 'url', staleAfterSec);
  const view = async (): Promise<SettingsView> => ({
    source: /^https?:\/\//.test(o.location) ? 'url' : 'device-record',
    location: o.location,
    token: o.tokenPlace,
    keychainAvailable: o.tokenPlace === 'keychain',
    mirrorFolder: o.engine.core.root,
    syncIntervalSec: Math.max(10, o.rewalkSec),
    paused: o.engine.state.paused,
    deleteThresholdCount: o.threshold.count,
    deleteThresholdPercent: o.threshold.percent,
    startAtLogin: false,
    startAtLoginSupported: false,
    theme: 'system',
    newMirrorFolder: o.engine.core.root,
    previousMirrors: [],
  });
  const readOnly = (): never => {
    throw new AppError('BadRequest', 'in "nas-mirror run" the settings come from the command line; only pause can change here');
  };
  const settings: SettingsProvider = {
    view,
    setPaused: (p) => o.engine.setPaused(p),
    async update(patch) {
      const now = await view();
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined || k === 'paused' || k === 'theme' || k === 'startAtLogin') continue;
        if (now[k as keyof SettingsView] !== v) readOnly();
      }
      if (patch.paused !== undefined && patch.paused !== now.paused) await o.engine.setPaused(patch.paused);
      return view();
    },
    setToken: async () => readOnly(),
    clearToken: async () => readOnly(),
    signIn: async () => {
      throw new AppError('BadRequest', 'in "nas-mirror run" sign in from the terminal: nas-mirror login --device ...');
    },
  };
  const handlers = createHandlers({
    index: o.index,
    store: o.store,
    engine: () => o.engine,
    whyNoEngine: () => 'the engine stopped',
    status,
    desktop: o.desktop ?? nodeDesktop(),
    settings,
    log: o.log,
  });
  const offs = [
    o.engine.events.on('status', () => hub.emit('status', status())),
    o.engine.events.on('activity', () => hub.emit('changed', { what: 'activity' })),
    o.engine.events.on('changed', (c) => hub.emit('changed', c)),
    o.engine.events.on('notice', (n) => hub.emit('notice', n)),
    o.engine.events.on('download', ({ open, ...d }) => open && hub.emit('download', d)),
  ];
  const server = await startUiServer({ handlers, events: hub, assetsDir: await ensureRenderer(), port: o.port, log: o.log });
  return {
    ...server,
    async close() {
      for (const off of offs) off();
      await server.close();
    },
  };
}
