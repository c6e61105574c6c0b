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
import { answerAsk } from './answer-ask.js';
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

/** Starts the engine's process, waits for its first status, and gives the `Core` over the port. */
export async function hostEngine(o: HostOptions): Promise<HostedCore> {
  const link = new EngineLink(o);
  await link.firstStart();
  const handlers = Object.fromEntries(METHOD_NAMES.map((m) => [m, (args: unknown) => link.call(m, args)])) as unknown as ContractHandlers;
  return {
    handlers,
    events: link.hub,
    status: () => link.status(),
    enginePid: () => link.pid(),
    restarts: () => link.restarts,
    close: () => link.close(),
  };
}

/** One call waiting for the engine's reply. */
interface PendingCall {
  method: Method;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/**
 * The port to the engine's process and what it said last: its status, the calls waiting for
 * a reply; started again with backoff after a crash, stopped cleanly by `close`.
 */
class EngineLink {
  readonly hub: EventHub;
  /** How many times the engine process was started again after a crash. */
  restarts = 0;
  private readonly backoff: { firstMs: number; maxMs: number };
  private proc: EngineProcess | null = null;
  private ready = false;
  private current: AppStatus | null = null;
  private closing: Promise<void> | null = null;
  private crashes = 0;
  private readyAt = 0;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  private nextCall = 1;
  private readonly calls = new Map<number, PendingCall>();
  private onFirst: { resolve: () => void; reject: (e: unknown) => void } | null = null;
  private onClosed: (() => void) | null = null;

  constructor(private readonly o: HostOptions) {
    this.hub = new EventHub(o.log.child('events'));
    this.backoff = o.backoff ?? { firstMs: 1000, maxMs: 30_000 };
  }

  /** The engine's last status (known once it is ready). */
  status(): AppStatus {
    return this.current!;
  }

  /** The engine process's id (undefined while it restarts). */
  pid(): number | undefined {
    return this.ready ? this.proc?.pid : undefined;
  }

  /** Starts the engine's process and waits for its first status; a failure ends the process. */
  async firstStart(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.onFirst = { resolve, reject };
      this.launch();
    }).catch((e: unknown) => {
      this.proc?.kill();
      this.proc = null;
      throw e;
    });
  }

  /** One contract call to the engine; refused at once while it restarts or the app closes. */
  call(method: Method, args: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const p = this.proc;
      if (this.closing) return reject(new AppError('Unavailable', 'the app is closing'));
      if (!p || !this.ready) return reject(new AppError('Unavailable', 'the sync engine is starting again; try in a moment'));
      const id = this.nextCall++;
      this.calls.set(id, { method, resolve, reject });
      p.send({ t: 'call', id, method, args });
    });
  }

  /** Asks the engine to stop cleanly (ended after `closeTimeoutMs`), once. */
  close(): Promise<void> {
    return (this.closing ??= this.stop());
  }

  /** Sends `close` and waits for the process to end (or ends it after the timeout); the calls left fail. */
  private async stop(): Promise<void> {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const p = this.proc;
    if (!p) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.o.log.warn('the engine did not stop in time; ending it');
        p.kill();
        resolve();
      }, this.o.closeTimeoutMs ?? 60_000);
      this.onClosed = () => {
        clearTimeout(timer);
        resolve();
      };
      p.send({ t: 'close' });
    });
    this.failCalls('the app is closing');
  }

  /** Starts one engine process and sends it the start options. */
  private launch(): void {
    const { o } = this;
    const p = o.spawn();
    this.proc = p;
    p.onMessage((raw) => this.onMessage(p, raw));
    p.onExit((code, signal) => this.onExit(p, code, signal));
    p.send({
      t: 'start',
      options: {
        ...o.start,
        keychain: { kind: o.keychain.kind, ...(o.keychain.reason !== undefined ? { reason: o.keychain.reason } : {}) },
        loginItem: { supported: o.loginItem.supported, enabled: o.loginItem.supported ? o.loginItem.get() : false },
        openExternal: !!o.desktop.openExternal,
      },
    });
  }

  /** The process ended: as asked (closing), while starting (the first start fails), or a crash. */
  private onExit(p: EngineProcess, code: number | null, signal: string | null): void {
    if (p !== this.proc) return;
    if (this.closing) {
      this.proc = null;
      this.onClosed?.();
      return;
    }
    if (this.onFirst) {
      this.onFirst.reject(new AppError('Internal', `the engine process ended while starting (${signal ?? `exit code ${code}`})`));
      this.onFirst = null;
      this.proc = null;
      return;
    }
    this.crashed(code, signal);
  }

  /** Fails every call still waiting for a reply. */
  private failCalls(why: string): void {
    for (const c of this.calls.values()) c.reject(new AppError('Unavailable', why));
    this.calls.clear();
  }

  /** A crash: the calls fail, the window is told, and the process starts again after the backoff. */
  private crashed(code: number | null, signal: string | null): void {
    const { o, backoff } = this;
    this.proc = null;
    this.ready = false;
    const how = signal ? `ended by ${signal}` : `exit code ${code}`;
    this.failCalls(`the sync engine stopped (${how}); it is starting again`);
    if (Date.now() - this.readyAt > STEADY_MS) this.crashes = 0;
    this.crashes++;
    const delay = Math.min(backoff.maxMs, backoff.firstMs * 2 ** (this.crashes - 1));
    const message =
      `the sync engine stopped unexpectedly (${how}); starting it again in ${Math.ceil(delay / 1000)} s` +
      ' (nothing is lost: pending changes are saved)';
    o.log.error('engine process crashed', { code, signal, restartInMs: delay });
    const status = this.current;
    if (status) {
      this.current = {
        ...status,
        connection: 'offline',
        walk: { ...status.walk, running: false },
        error: { code: 'EngineRestarting', message },
      };
      this.hub.emit('status', this.current);
    }
    this.hub.emit('notice', { level: 'error', message });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.closing) {
        this.restarts++;
        this.launch();
      }
    }, delay);
  }

  /** A message from the engine: checked, then taken in; one that does not fit is refused (logged). */
  private onMessage(p: EngineProcess, raw: unknown): void {
    if (p !== this.proc) return;
    let m: FromEngine;
    try {
      m = fromEngine.parse(raw, 'message');
    } catch (e) {
      this.o.log.warn('refused a malformed message from the engine', { err: e });
      return;
    }
    try {
      this.take(p, m);
    } catch (e) {
      this.o.log.warn('refused a message from the engine that does not fit the contract', { err: e });
      if (m.t === 'ready' && this.onFirst) {
        this.onFirst.reject(new AppError('Internal', `the engine's first status does not fit the contract: ${toAppError(e).message}`));
        this.onFirst = null;
      }
    }
  }

  /** Takes in one checked message (throws when its content does not fit the contract). */
  private take(p: EngineProcess, m: FromEngine): void {
    switch (m.t) {
      case 'ready':
        return this.onReady(m);
      case 'failed':
        this.o.log.error('the engine could not start', { code: m.error.code, summary: m.error.message });
        this.onFirst?.reject(new AppError('Internal', `the engine could not start: ${m.error.message}`));
        this.onFirst = null;
        return;
      case 'status':
        this.current = METHODS.status.result.parse(m.status, 'status');
        return;
      case 'event': {
        const e = checkEvent(m.event, m.payload);
        if (e.event === 'status') this.current = e.payload as AppStatus;
        this.hub.emit(e.event, e.payload);
        return;
      }
      case 'reply':
        return this.onReply(m);
      case 'ask':
        void answerAsk(this.o, p, m);
        return;
      case 'closed':
        // the core stopped cleanly; the process ends on its own (or is ended, if a handle lingers)
        setTimeout(() => p.kill(), 5000).unref();
        return;
    }
  }

  /** The engine is ready: the first start is done, or, after a crash, the window fetches its lists afresh. */
  private onReady(m: Extract<FromEngine, { t: 'ready' }>): void {
    this.current = METHODS.status.result.parse(m.status, 'status');
    this.ready = true;
    this.readyAt = Date.now();
    this.hub.emit('status', this.current);
    if (this.onFirst) {
      this.onFirst.resolve();
      this.onFirst = null;
    } else {
      // started again after a crash: the window fetches its lists afresh
      for (const what of ['settings', 'index', 'activity', 'conflicts'] as const) this.hub.emit('changed', { what });
    }
  }

  /** A call's reply, checked by the contract, settles the call. */
  private onReply(m: Extract<FromEngine, { t: 'reply' }>): void {
    const c = this.calls.get(m.id);
    if (!c) return;
    this.calls.delete(m.id);
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
  }
}
