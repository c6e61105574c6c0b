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
  const shell = new Shell(process.argv.includes('--hidden'));
  app.on('second-instance', () => shell.showIfRunning());
  app.on('activate', () => shell.showIfRunning()); // macOS: the dock icon
  app.on('window-all-closed', () => {
    /* keep running in the tray */
  });
  app.on('before-quit', (e) => shell.beforeQuit(e));
  void app.whenReady().then(() => shell.start());
}

/** The main process's parts: the engine's handle, the window, the tray; quitting closes them in order. */
class Shell {
  private core: Core | null = null;
  private win: BrowserWindow | null = null;
  private tray: AppTray | null = null;
  private unwire: (() => void) | null = null;
  private quitting = false;

  /** `hidden`: started at login, in the tray only. */
  constructor(private readonly hidden: boolean) {}

  /** Starts the engine's process, wires the window's IPC and the tray, and shows the window. */
  async start(): Promise<void> {
    hardenSession();
    this.core = await hostEngine({
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
    const c = this.core;
    this.unwire = wireIpc(c, () => this.win, pathToFileURL(PATHS.indexHtml).toString(), log);
    this.tray = new AppTray(
      PATHS.trayIcons,
      (a) => this.onTray(a),
      () => this.win,
      () => c.status(),
    );
    this.tray.update(c.status(), false);
    c.events.subscribe((event, payload) => {
      if (event === 'status') this.tray?.update(c.status());
      void payload;
    });
    if (!this.hidden) this.showWindow();
  }

  /** Another start of the app, or the dock icon: the window, once the engine runs. */
  showIfRunning(): void {
    if (this.core) this.showWindow();
  }

  /** Quitting: the IPC and the tray go, the engine closes cleanly, then the app exits. */
  beforeQuit(e: { preventDefault(): void }): void {
    if (this.quitting) return;
    this.quitting = true;
    e.preventDefault();
    void (async () => {
      try {
        this.unwire?.();
        this.tray?.destroy();
        await this.core?.close();
      } catch (err) {
        log.error('clean shutdown failed', { err });
      }
      app.exit(0);
    })();
  }

  /** Shows the window (made again if it was destroyed; closing it only hides it), at `hash` when given. */
  private showWindow(hash?: string): void {
    if (!this.win || this.win.isDestroyed()) {
      this.win = createMainWindow(PATHS, true);
      this.win.on('close', (e) => {
        if (!this.quitting) {
          e.preventDefault();
          this.win?.hide();
        }
      });
    }
    const win = this.win;
    if (hash) void win.webContents.executeJavaScript(`location.hash = ${JSON.stringify(hash)}; location.reload();`);
    win.show();
    win.focus();
  }

  /** A tray menu item: a view of the window, or an action the engine answers. */
  private onTray(a: TrayAction): void {
    const core = this.core;
    if (!core) return;
    switch (a) {
      case 'open':
        return this.showWindow();
      case 'search':
        return this.showWindow('search');
      case 'open-mirror':
        void core.handlers.openMirrorFolder({}).catch((err: unknown) => log.warn('opening the mirror folder failed', { err }));
        return;
      case 'activity':
        return this.showWindow('activity');
      case 'conflicts':
        return this.showWindow('conflicts');
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
  }
}

/** Logs a tray action the engine refused. */
const refused = (err: unknown): void => log.warn('the engine refused a tray action', { err });

main();
