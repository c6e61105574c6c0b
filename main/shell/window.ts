/**
 * The main window: context isolation, sandbox, no Node in the page, our preload only, a
 * strict CSP header on top of the page's own, no navigation away and no new windows.
 */
import { BrowserWindow, session, shell } from 'electron';
import { pathToFileURL } from 'node:url';

export interface WindowPaths {
  indexHtml: string;
  preload: string;
  icon: string;
}

export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Adds the CSP header to every response of the default session (once). */
export function hardenSession(): void {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
}

export function createMainWindow(paths: WindowPaths, show: boolean): BrowserWindow {
  const win = new BrowserWindow({
    width: 1100,
    height: 760,
    minWidth: 640,
    minHeight: 420,
    show,
    title: 'NAS Mirror',
    icon: paths.icon,
    autoHideMenuBar: true,
    webPreferences: {
      preload: paths.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  const page = pathToFileURL(paths.indexHtml).toString();
  win.webContents.on('will-navigate', (e, url) => {
    if (url.split('#')[0] !== page) e.preventDefault();
  });
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  void win.loadURL(page);
  return win;
}
