// A stand-in for the `electron` module (its binary cannot be downloaded here), preloaded with
// `node -r` in front of the bundled main process dist/main/shell/main.cjs. It records what
// the shell asks of Electron, then drives it: IPC calls from trusted and untrusted senders,
// the tray menu, and Quit. It prints one line `SMOKE <json>` and lets the app exit.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload (node -r) */
const Module = require('node:module');
const { EventEmitter } = require('node:events');

const rec = { windows: [], handlers: new Map(), trays: [], menus: [], notes: [], exitCode: null, sent: [] };
const app = new EventEmitter();
Object.assign(app, {
  setPath: (k, v) => {
    rec.userData = v;
  },
  getPath: () => rec.userData,
  requestSingleInstanceLock: () => true,
  whenReady: () => Promise.resolve(),
  quit: () => {
    const e = {
      defaultPrevented: false,
      preventDefault() {
        this.defaultPrevented = true;
      },
    };
    app.emit('before-quit', e);
  },
  exit: (code) => {
    rec.exitCode = code;
    report();
  },
  getLoginItemSettings: () => ({ openAtLogin: false }),
  setLoginItemSettings: () => undefined,
});

class WebContents extends EventEmitter {
  constructor(url) {
    super();
    this.mainFrame = { url };
  }
  send(channel, event, _payload) {
    rec.sent.push({ channel, event });
  }
  setWindowOpenHandler(fn) {
    this.openHandler = fn;
  }
  executeJavaScript() {
    return Promise.resolve();
  }
}
class BrowserWindow extends EventEmitter {
  constructor(opts) {
    super();
    this.opts = opts;
    this.webContents = new WebContents('');
    rec.windows.push(this);
  }
  loadURL(url) {
    this.webContents.mainFrame.url = url;
    this.url = url;
    return Promise.resolve();
  }
  isDestroyed() {
    return false;
  }
  show() {}
  focus() {}
  hide() {}
  setProgressBar(p) {
    rec.progress = p;
  }
}
class Tray {
  constructor(img) {
    this.img = img;
    rec.trays.push(this);
  }
  setImage(img) {
    this.img = img;
  }
  setToolTip(t) {
    this.tooltip = t;
  }
  setContextMenu(m) {
    this.menu = m;
  }
  destroy() {
    this.destroyed = true;
  }
}
// utilityProcess: a plain Node child with an IPC channel (the engine's entry falls back to
// process.send when Electron's parentPort is absent), with Electron's event names.
const utilityProcess = {
  fork(entry, args, opts) {
    const child = require('node:child_process').fork(entry, args, {
      stdio: opts && opts.stdio === 'inherit' ? 'inherit' : 'pipe',
      execArgv: [],
    });
    rec.utility = { entry, serviceName: opts && opts.serviceName };
    const u = new EventEmitter();
    Object.defineProperty(u, 'pid', { get: () => child.pid });
    u.postMessage = (m) => child.send(m);
    u.kill = () => child.kill();
    child.on('spawn', () => u.emit('spawn'));
    child.on('message', (m) => u.emit('message', m));
    child.on('exit', (code) => u.emit('exit', code === null ? 1 : code));
    return u;
  },
};
const electron = {
  app,
  BrowserWindow,
  Tray,
  utilityProcess,
  Menu: { buildFromTemplate: (t) => ({ items: t }) },
  Notification: class {
    static isSupported() {
      return false;
    }
  },
  nativeImage: { createFromPath: (p) => ({ path: p }) },
  ipcMain: { handle: (ch, fn) => rec.handlers.set(ch, fn), removeHandler: (ch) => rec.handlers.delete(ch) },
  session: {
    defaultSession: {
      webRequest: {
        onHeadersReceived: (fn) => {
          rec.csp = fn;
        },
      },
      setPermissionRequestHandler: (fn) => {
        rec.perm = fn;
      },
    },
  },
  shell: { openPath: async () => '', showItemInFolder: () => undefined, openExternal: async () => undefined },
};

const load = Module._load;
Module._load = function (request, ...rest) {
  return request === 'electron' ? electron : load.call(this, request, ...rest);
};

let reported = false;
function report() {
  if (reported) return;
  reported = true;
  const w = rec.windows[0];
  const tray = rec.trays[0];
  process.stdout.write(
    `SMOKE ${JSON.stringify({
      userData: rec.userData,
      webPreferences: w && w.opts.webPreferences,
      url: w && w.url,
      trayImage: tray && tray.img.path,
      trayMenu: tray && tray.menu && tray.menu.items.map((i) => i.label || i.type),
      trayDestroyed: tray && tray.destroyed,
      calls: rec.calls,
      exitCode: rec.exitCode,
      utility: rec.utility,
    })}\n`,
  );
  process.exit(rec.exitCode ?? 0);
}

// Drive the app once its window and IPC are up.
const started = Date.now();
const timer = setInterval(async () => {
  const w = rec.windows[0];
  const handle = rec.handlers.get('nas-mirror:call');
  if (Date.now() - started > 60000) {
    clearInterval(timer);
    rec.calls = 'timeout';
    report();
    return;
  }
  if (!w || !handle || !w.url) return;
  clearInterval(timer);
  const trusted = { sender: w.webContents, senderFrame: w.webContents.mainFrame };
  const stranger = { sender: new WebContents(w.url), senderFrame: { url: w.url } };
  const iframe = { sender: w.webContents, senderFrame: { url: w.url } };
  rec.calls = {
    status: await handle(trusted, 'status', {}),
    badArgs: await handle(trusted, 'search', { q: 42 }),
    unknown: await handle(trusted, 'eval', {}),
    stranger: await handle(stranger, 'status', {}),
    iframe: await handle(iframe, 'status', {}),
  };
  // a fresh data folder asks first: choose the demo, as a user would in the window
  rec.calls.setUp = await handle(trusted, 'setUp', { choice: 'demo' });
  // wait for the first walk of the embedded demo, then search through IPC
  for (let i = 0; i < 200; i++) {
    const s = await handle(trusted, 'status', {});
    if (s.ok && s.result.lastCompleteWalk) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  rec.calls.search = await handle(trusted, 'search', { q: 'photo', limit: 3 });
  const tray = rec.trays[0];
  const quit = tray.menu.items.find((i) => i.label === 'Quit NAS Mirror');
  quit.click();
}, 100);
