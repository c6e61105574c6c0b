/**
 * The Electron app's composition root (bundled to dist/main/shell/main.cjs). One instance.
 * This main process keeps the window, the tray and the keychain; the engine runs in a
 * utility process (main/host, over a checked port), so it never stalls them. The window
 * talks to the engine over checked IPC; the tray mirrors its status. Quitting closes the
 * engine first (outbox persisted, embedded service stopped, process ended), then exits.
 * `--hidden` (start at login) starts in the tray only.
 */
import { app, BrowserWindow } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLogger } from '../log/logger.js';
import { defaultDataDir } from '../settings/app-dirs.js';
import type { Core } from '../api/core-types.js';
import { hostEngine } from '../host/engine-client.js';
import { openKeychain } from '../keychain/keychain.js';
import { electronDesktop } from './desktop.js';
import { utilityEngine } from './engine-process.js';
import { wireIpc } from './ipc.js';
import { electronLoginItem } from './login-item.js';
import { AppTray, type TrayAction } from './tray.js';
import { createMainWindow, hardenSession } from './window.js';

// dist/main/shell/main.cjs -> dist/
const DIST = join(__dirname, '..', '..');
const PATHS = {
  indexHtml: join(DIST, 'renderer', 'index.html'),
  preload: join(__dirname, 'preload.cjs'),
  icon: join(DIST, 'icons', 'icon.png'),
  trayIcons: join(DIST, 'icons', 'tray'),
  service: join(DIST, 'server', 'nas-service.mjs'),
  engine: join(DIST, 'main', 'host', 'engine-entry.cjs'),
};

const log = createLogger('shell');

function main(): void {
  // The same data folder as headless browser mode (and NAS_MIRROR_HOME), packaged or not;
  // set before the single-instance lock, which lives in it.
  app.setPath('userData', defaultDataDir());
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  let core: Core | null = null;
  let win: BrowserWindow | null = null;
  let tray: AppTray | null = null;
  let unwire: (() => void) | null = null;
  let quitting = false;
  const hidden = process.argv.includes('--hidden');

  const showWindow = (hash?: string): void => {
    if (!win || win.isDestroyed()) {
      win = createMainWindow(PATHS, true);
      win.on('close', (e) => {
        if (!quitting) {
          e.preventDefault();
          win?.hide();
        }
      });
    }
    if (hash) void win.webContents.executeJavaScript(`location.hash = ${JSON.stringify(hash)}; location.reload();`);
    win.show();
    win.focus();
  };

  const refused = (err: unknown): void => log.warn('the engine refused a tray action', { err });
  const onTray = (a: TrayAction): void => {
    if (!core) return;
    switch (a) {
      case 'open':
        return showWindow();
      case 'search':
        return showWindow('search');
      case 'open-mirror':
        void core.handlers.openMirrorFolder({}).catch((err: unknown) => log.warn('opening the mirror folder failed', { err }));
        return;
      case 'activity':
        return showWindow('activity');
      case 'conflicts':
        return showWindow('conflicts');
      // the engine may be starting again after a crash: its answer is then Unavailable
      case 'sync-now':
        void core.handlers.syncNow({}).catch(refused);
        return;
      case 'pause':
        void core.handlers.setPaused({ paused: true }).catch(refused);
        return;
      case 'resume':
        void core.handlers.setPaused({ paused: false }).catch(refused);
        return;
      case 'quit':
        app.quit();
        return;
    }
  };

  app.on('second-instance', () => {
    if (core) showWindow();
  });
  app.on('activate', () => {
    if (core) showWindow();
  }); // macOS: the dock icon
  app.on('window-all-closed', () => {
    /* keep running in the tray */
  });
  app.on('before-quit', (e) => {
    if (quitting) return;
    quitting = true;
    e.preventDefault();
    void (async () => {
      try {
        unwire?.();
        tray?.destroy();
        await core?.close();
      } catch (err) {
        log.error('clean shutdown failed', { err });
      }
      app.exit(0);
    })();
  });

  void app.whenReady().then(async () => {
    hardenSession();
    core = await hostEngine({
      spawn: utilityEngine(PATHS.engine),
      start: {
        dataDir: defaultDataDir(),
        service: { command: process.execPath, args: [PATHS.service], env: { ELECTRON_RUN_AS_NODE: '1' } },
      },
      keychain: await openKeychain(),
      log,
      desktop: electronDesktop,
      loginItem: electronLoginItem(),
    });
    const c = core;
    unwire = wireIpc(c, () => win, pathToFileURL(PATHS.indexHtml).toString(), log);
    tray = new AppTray(
      PATHS.trayIcons,
      onTray,
      () => win,
      () => c.status(),
    );
    tray.update(c.status(), false);
    c.events.subscribe((event, payload) => {
      if (event === 'status') tray?.update(c.status());
      void payload;
    });
    if (!hidden) showWindow();
  });
}

main();
