/**
 * The main process's handle on the engine's process: the same `Core` shape as an in-process
 * engine (contract handlers, events, status, close), over the port. Every message from the
 * engine is checked on arrival (protocol.ts, then the contract's `checkReply`/`checkEvent`).
 * The main process keeps what only it may hold: the keychain (the engine asks for one
 * account's credential when it needs it), the desktop (open, reveal, browser) and the login
 * item. An engine process that dies unexpectedly is reported (status error, notice) and
 * started again with backoff; nothing is lost, the outbox is durable. `close` waits for the
 * engine's clean stop.
 */
import { checkEvent, checkReply, type WireError } from '../../app/contract/envelope.js';
import { METHOD_NAMES, METHODS, type ContractHandlers, type Method } from '../../app/contract/methods.js';
import type { AppStatus } from '../../app/contract/shapes.js';
import { AppError, toAppError } from '../../app/errors.js';
import type { Core } from '../api/core-types.js';
import { EventHub } from '../api/event-hub.js';
import type { DesktopPort, LoginItemPort } from '../api/ports.js';
import type { Keychain } from '../keychain/keychain.js';
import type { Logger } from '../log/logger.js';
import type { EngineProcess, SpawnEngine } from './port.js';
import { fromEngine, type FromEngine, type StartOptions } from './protocol.js';

export interface HostOptions {
  spawn: SpawnEngine;
  start: Omit<StartOptions, 'keychain' | 'loginItem' | 'openExternal'>;
  keychain: Keychain;
  desktop: DesktopPort;
  loginItem: LoginItemPort;
  log: Logger;
  /** Restart delays after a crash: first, doubled each time up to max (ms). */
  backoff?: { firstMs: number; maxMs: number };
  /** How long close waits for the clean stop before ending the process (ms). */
  closeTimeoutMs?: number;
}

export interface HostedCore extends Core {
  /** The engine process's id (undefined while it restarts). */
  enginePid(): number | undefined;
  /** How many times the engine process was started again after a crash. */
  restarts(): number;
}

/** A run of this long without a crash resets the backoff. */
const STEADY_MS = 60_000;

export async function hostEngine(o: HostOptions): Promise<HostedCore> {
  const hub = new EventHub(o.log.child('events'));
  const backoff = o.backoff ?? { firstMs: 1000, maxMs: 30_000 };
  let proc: EngineProcess | null = null;
  let ready = false;
  let status: AppStatus | null = null;
  let closing: Promise<void> | null = null;
  let crashes = 0;
  let restartCount = 0;
  let readyAt = 0;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let nextCall = 1;
  const calls = new Map<number, { method: Method; resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  let onFirst: { resolve: () => void; reject: (e: unknown) => void } | null = null;
  let onClosed: (() => void) | null = null;

  const answer = async (p: EngineProcess, m: Extract<FromEngine, { t: 'ask' }>): Promise<void> => {
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
  };

  const failCalls = (why: string): void => {
    for (const c of calls.values()) c.reject(new AppError('Unavailable', why));
    calls.clear();
  };

  const crashed = (code: number | null, signal: string | null): void => {
    proc = null;
    ready = false;
    const how = signal ? `ended by ${signal}` : `exit code ${code}`;
    failCalls(`the sync engine stopped (${how}); it is starting again`);
    if (Date.now() - readyAt > STEADY_MS) crashes = 0;
    crashes++;
    const delay = Math.min(backoff.maxMs, backoff.firstMs * 2 ** (crashes - 1));
    const message = `the sync engine stopped unexpectedly (${how}); starting it again in ${Math.ceil(delay / 1000)} s (nothing is lost: pending changes are saved)`;
    o.log.error('engine process crashed', { code, signal, restartInMs: delay });
    if (status) {
      status = { ...status, connection: 'offline', walk: { ...status.walk, running: false }, error: { code: 'EngineRestarting', message } };
      hub.emit('status', status);
    }
    hub.emit('notice', { level: 'error', message });
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (!closing) {
        restartCount++;
        launch();
      }
    }, delay);
  };

  const onMessage = (p: EngineProcess, raw: unknown): void => {
    if (p !== proc) return;
    let m: FromEngine;
    try {
      m = fromEngine.parse(raw, 'message');
    } catch (e) {
      o.log.warn('refused a malformed message from the engine', { err: e });
      return;
    }
    try {
      switch (m.t) {
        case 'ready':
          status = METHODS.status.result.parse(m.status, 'status');
          ready = true;
          readyAt = Date.now();
          hub.emit('status', status);
          if (onFirst) {
            onFirst.resolve();
            onFirst = null;
          } else {
            // started again after a crash: the window fetches its lists afresh
            for (const what of ['settings', 'index', 'activity', 'conflicts'] as const) hub.emit('changed', { what });
          }
          return;
        case 'failed':
          o.log.error('the engine could not start', { code: m.error.code, summary: m.error.message });
          onFirst?.reject(new AppError('Internal', `the engine could not start: ${m.error.message}`));
          onFirst = null;
          return;
        case 'status':
          status = METHODS.status.result.parse(m.status, 'status');
          return;
        case 'event': {
          const e = checkEvent(m.event, m.payload);
          if (e.event === 'status') status = e.payload as AppStatus;
          hub.emit(e.event, e.payload);
          return;
        }
        case 'reply': {
          const c = calls.get(m.id);
          if (!c) return;
          calls.delete(m.id);
          try {
            c.resolve(
              checkReply(
                c.method,
                m.ok
                  ? { ok: true, result: m.result }
                  : { ok: false, error: m.error ?? ({ code: 'Internal', message: 'no error' } satisfies WireError) },
              ),
            );
          } catch (e) {
            c.reject(e);
          }
          return;
        }
        case 'ask':
          void answer(p, m);
          return;
        case 'closed':
          // the core stopped cleanly; the process ends on its own (or is ended, if a handle lingers)
          setTimeout(() => p.kill(), 5000).unref();
          return;
      }
    } catch (e) {
      o.log.warn('refused a message from the engine that does not fit the contract', { err: e });
      if (m.t === 'ready' && onFirst) {
        onFirst.reject(new AppError('Internal', `the engine's first status does not fit the contract: ${toAppError(e).message}`));
        onFirst = null;
      }
    }
  };

  const launch = (): void => {
    const p = o.spawn();
    proc = p;
    p.onMessage((raw) => onMessage(p, raw));
    p.onExit((code, signal) => {
      if (p !== proc) return;
      if (closing) {
        proc = null;
        onClosed?.();
        return;
      }
      if (onFirst) {
        onFirst.reject(new AppError('Internal', `the engine process ended while starting (${signal ?? `exit code ${code}`})`));
        onFirst = null;
        proc = null;
        return;
      }
      crashed(code, signal);
    });
    p.send({
      t: 'start',
      options: {
        ...o.start,
        keychain: { kind: o.keychain.kind, ...(o.keychain.reason !== undefined ? { reason: o.keychain.reason } : {}) },
        loginItem: { supported: o.loginItem.supported, enabled: o.loginItem.supported ? o.loginItem.get() : false },
        openExternal: !!o.desktop.openExternal,
      },
    });
  };

  await new Promise<void>((resolve, reject) => {
    onFirst = { resolve, reject };
    launch();
  }).catch((e: unknown) => {
    proc?.kill();
    proc = null;
    throw e;
  });

  const call = (method: Method, args: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const p = proc;
      if (closing) return reject(new AppError('Unavailable', 'the app is closing'));
      if (!p || !ready) return reject(new AppError('Unavailable', 'the sync engine is starting again; try in a moment'));
      const id = nextCall++;
      calls.set(id, { method, resolve, reject });
      p.send({ t: 'call', id, method, args });
    });
  const handlers = Object.fromEntries(METHOD_NAMES.map((m) => [m, (args: unknown) => call(m, args)])) as unknown as ContractHandlers;

  return {
    handlers,
    events: hub,
    status: () => status!,
    enginePid: () => (ready ? proc?.pid : undefined),
    restarts: () => restartCount,
    close: () =>
      (closing ??= (async () => {
        if (restartTimer) clearTimeout(restartTimer);
        const p = proc;
        if (!p) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            o.log.warn('the engine did not stop in time; ending it');
            p.kill();
            resolve();
          }, o.closeTimeoutMs ?? 60_000);
          onClosed = () => {
            clearTimeout(timer);
            resolve();
          };
          p.send({ t: 'close' });
        });
        failCalls('the app is closing');
      })()),
  };
}
