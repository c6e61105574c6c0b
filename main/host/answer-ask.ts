/**
 * The main process's answers to the engine's asks: what only it may do (the keychain, the
 * desktop, the login item), one narrow operation per ask. Every answer goes back, an error
 * as `{code, message}`: the engine's ask never waits forever.
 */
import { AppError, toAppError } from '../../app/errors.js';
import type { DesktopPort, LoginItemPort } from '../api/ports.js';
import type { Keychain } from '../keychain/keychain.js';
import type { EngineProcess } from './port.js';
import type { FromEngine } from './protocol.js';

/** What the main process keeps and the engine asks for. */
export interface AskPorts {
  keychain: Keychain;
  desktop: DesktopPort;
  loginItem: LoginItemPort;
}

/** Does what the engine asks and sends the answer (the value, or the error). */
export async function answerAsk(o: AskPorts, p: EngineProcess, m: Extract<FromEngine, { t: 'ask' }>): Promise<void> {
  const need = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new AppError('BadRequest', `${m.op} needs ${what}`);
    return v;
  };
  let value: unknown = null;
  try {
    switch (m.op) {
      case 'keychain.get':
        value = (await o.keychain.get(need(m.account, 'an account'))) ?? null;
        break;
      case 'keychain.set':
        await o.keychain.set(need(m.account, 'an account'), need(m.token, 'a token'));
        break;
      case 'keychain.delete':
        value = await o.keychain.delete(need(m.account, 'an account'));
        break;
      case 'desktop.open':
        await o.desktop.open(need(m.path, 'a path'));
        break;
      case 'desktop.reveal':
        await o.desktop.reveal(need(m.path, 'a path'));
        break;
      case 'desktop.openExternal':
        if (!o.desktop.openExternal) throw new AppError('BadRequest', 'this host opens no browser');
        await o.desktop.openExternal(need(m.path, 'a URL'));
        break;
      case 'loginItem.set':
        o.loginItem.set(need(m.enabled, 'enabled'));
        break;
    }
    p.send({ t: 'answer', id: m.id, ok: true, value });
  } catch (e) {
    const err = toAppError(e);
    p.send({ t: 'answer', id: m.id, ok: false, value: null, error: { code: err.code, message: err.message } });
  }
}
