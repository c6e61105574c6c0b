/**
 * Electron IPC for the contract. A call is answered only when it comes from our window's
 * main frame showing our own page; its method and arguments are checked by `serve` exactly
 * as in browser mode. Events go to the window's webContents.
 */
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { serve, type Reply } from '../../app/contract/envelope.js';
import type { Core } from '../api/core-types.js';
import type { Logger } from '../log/logger.js';
import { CALL_CHANNEL, EVENT_CHANNEL } from './channels.js';
import { isTrustedSender } from './sender-check.js';

export function wireIpc(core: Core, window: () => BrowserWindow | null, pageUrl: string, log: Logger): () => void {
  const trusted = (e: IpcMainInvokeEvent): boolean => {
    const win = window();
    const frame = e.senderFrame;
    return isTrustedSender(
      {
        fromOurWindow: !!win && !win.isDestroyed() && e.sender === win.webContents,
        fromMainFrame: frame !== null && frame === e.sender.mainFrame,
        frameUrl: frame?.url ?? '',
      },
      pageUrl,
    );
  };
  ipcMain.handle(CALL_CHANNEL, async (e, method: unknown, args: unknown): Promise<Reply> => {
    if (!trusted(e)) {
      log.warn('refused an IPC call from an untrusted sender', { url: e.senderFrame?.url ?? '' });
      return { ok: false, error: { code: 'Forbidden', message: 'untrusted sender' } };
    }
    return serve(core.handlers, method, args);
  });
  const unsubscribe = core.events.subscribe((event, payload) => {
    const win = window();
    if (win && !win.isDestroyed()) win.webContents.send(EVENT_CHANNEL, event, payload);
  });
  return () => {
    unsubscribe();
    ipcMain.removeHandler(CALL_CHANNEL);
  };
}
