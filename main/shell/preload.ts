/**
 * The preload (sandboxed, context-isolated): exposes exactly the contract as
 * `window.nasMirror` with two functions. It refuses method names outside the contract and
 * events outside it before anything crosses; the main process checks everything again.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { isEventName, isMethod } from '../../app/contract/methods.js';
import { CALL_CHANNEL, EVENT_CHANNEL } from './channels.js';

contextBridge.exposeInMainWorld('nasMirror', {
  call(method: unknown, args: unknown): Promise<unknown> {
    if (!isMethod(method)) return Promise.resolve({ ok: false, error: { code: 'BadRequest', message: 'unknown method' } });
    return ipcRenderer.invoke(CALL_CHANNEL, method, args);
  },
  onEvent(listener: (event: string, payload: unknown) => void): void {
    if (typeof listener !== 'function') return;
    ipcRenderer.on(EVENT_CHANNEL, (_e, event: unknown, payload: unknown) => {
      if (isEventName(event)) listener(event, payload);
    });
  },
});
