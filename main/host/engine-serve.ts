/**
 * The engine's side of the port: on `start`, runs `startCore` (state database, offline index,
 * session, Engine) with the main process's keychain, desktop and login item reached through
 * narrow `ask` requests; then answers every contract call with `serve` (checked exactly as
 * IPC and the UI server check them), forwards the events, and pushes the status whenever it
 * changes. `close` (or the parent going away) stops the core cleanly before the process ends.
 */
import { RemoteError, serve } from '../../app/contract/envelope.js';
import type { AppStatus } from '../../app/contract/shapes.js';
import { AppError, toAppError } from '../../app/errors.js';
import { startCore } from '../api/core.js';
import type { Core } from '../api/core-types.js';
import type { DesktopPort, LoginItemPort } from '../api/ports.js';
import type { Keychain } from '../keychain/keychain.js';
import { createLogger, silentLogger, type Level, type Logger } from '../log/logger.js';
import type { ParentPort } from './port.js';
import { answerValue, toEngine, type AskOp, type FromEngine, type StartOptions, type ToEngine } from './protocol.js';
import { ignore } from '../../app/util/ignore.js';

/**
 * How often the status is compared with the last one pushed (walk progress has no event):
 * every second while a walk runs or changes wait, else every 10 s (idle costs nothing).
 */
const BUSY_POLL_MS = 1000;
const IDLE_POLL_MS = 10_000;

/** Serves the engine on `port`: started by the parent's `start`, stopped by `close` or the parent going away. */
export function serveEngine(port: ParentPort, exit: (code: number) => void): { close(): Promise<void> } {
  const server = new EngineServer(port, exit);
  port.onDisconnect(() => {
    void server.close();
  });
  port.onMessage((raw) => server.onMessage(raw));
  return { close: () => server.close() };
}

/** What the engine asks the main process for, with the fields of that ask. */
type AskFields = { account?: string; token?: string; path?: string; enabled?: boolean };

/** The main process's keychain, desktop and login item, as the core sees them (each reached by an ask). */
interface HostPorts {
  keychain: Keychain;
  desktop: DesktopPort;
  loginItem: LoginItemPort;
}

/** The engine's end of the port: the core once started, the asks waiting for an answer, the last status pushed. */
class EngineServer {
  private log: Logger = createLogger('engine-host');
  private core: Core | null = null;
  private starting: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  private lastStatus = '';
  private busy = false;
  private poll: ReturnType<typeof setTimeout> | undefined;
  private nextAsk = 1;
  private readonly asks = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();

  constructor(
    private readonly port: ParentPort,
    private readonly exit: (code: number) => void,
  ) {}

  /** One message from the main process: checked, then acted on. */
  onMessage(raw: unknown): void {
    let m: ToEngine;
    try {
      m = toEngine.parse(raw, 'message');
    } catch (e) {
      this.log.warn('refused a malformed message from the main process', { err: e });
      return;
    }
    switch (m.t) {
      case 'start':
        if (!this.starting) this.starting = this.start(m.options);
        return;
      case 'call':
        return this.answerCall(m);
      case 'answer':
        return this.settleAsk(m);
      case 'close':
        void this.close();
        return;
    }
  }

  /** Stops the core cleanly (once), fails the asks left, says `closed` and ends the process. */
  close(): Promise<void> {
    return (this.closing ??= this.stop());
  }

  private send(m: FromEngine): void {
    this.port.send(m);
  }

  /** Asks the main process for something only it may do; resolves with its answer. */
  private ask(op: AskOp, fields: AskFields): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.nextAsk++;
      this.asks.set(id, { resolve, reject });
      this.send({ t: 'ask', id, op, ...fields });
    });
  }

  /** Remembers what the parent has now (it keeps the status of every status event too). */
  private sent(status: AppStatus): string {
    this.busy = status.walk.running || status.outbox > 0;
    return (this.lastStatus = JSON.stringify(status));
  }

  /** Pushes the status when it changed since the last one pushed, then polls again. */
  private pollStatus(): void {
    this.poll = setTimeout(
      () => {
        if (!this.core || this.closing) return;
        const status = this.core.status();
        if (JSON.stringify(status) !== this.lastStatus) {
          this.sent(status);
          this.send({ t: 'status', status });
        }
        this.pollStatus();
      },
      this.busy ? BUSY_POLL_MS : IDLE_POLL_MS,
    );
  }

  /** Starts the core with the parent's options; says `ready` with its status, or `failed` and exits. */
  private async start(o: StartOptions): Promise<void> {
    const level = o.logLevel ?? process.env['NAS_MIRROR_LOG_LEVEL'] ?? 'info';
    this.log = level === 'none' ? silentLogger : createLogger('engine-host', undefined, level as Level);
    const log = this.log;
    const ports = this.hostPorts(o);
    try {
      const c = await startCore({ dataDir: o.dataDir, log, ...ports, ...optionalCoreOptions(o) });
      this.core = c;
      c.events.subscribe((event, payload) => {
        this.send({ t: 'event', event, payload });
        if (event === 'status') this.sent(payload as AppStatus);
      });
      const status = c.status();
      this.sent(status);
      this.send({ t: 'ready', pid: process.pid, status });
      this.pollStatus();
    } catch (e) {
      log.error('the engine could not start', { err: e });
      const err = toAppError(e);
      this.send({ t: 'failed', error: { code: err.code, message: err.message } });
      this.exit(1);
    }
  }

  /** The keychain, desktop and login item of the main process, each call an ask. */
  private hostPorts(o: StartOptions): HostPorts {
    const keychain: Keychain = {
      kind: o.keychain.kind,
      ...(o.keychain.reason !== undefined ? { reason: o.keychain.reason } : {}),
      get: async (account) => answerValue.string.parse(await this.ask('keychain.get', { account }), 'keychain') ?? undefined,
      set: async (account, token) => {
        await this.ask('keychain.set', { account, token });
      },
      delete: async (account) => answerValue.bool.parse(await this.ask('keychain.delete', { account }), 'keychain'),
    };
    const desktop: DesktopPort = {
      open: async (path) => {
        await this.ask('desktop.open', { path });
      },
      reveal: async (path) => {
        await this.ask('desktop.reveal', { path });
      },
      ...(o.openExternal
        ? {
            openExternal: async (url: string) => {
              await this.ask('desktop.openExternal', { path: url });
            },
          }
        : {}),
    };
    let loginEnabled = o.loginItem.enabled;
    const loginItem: LoginItemPort = {
      supported: o.loginItem.supported,
      get: () => loginEnabled,
      set: (enabled) => {
        loginEnabled = enabled;
        void this.ask('loginItem.set', { enabled }).catch((err: unknown) => this.log.warn('start at login could not be changed', { err }));
      },
    };
    return { keychain, desktop, loginItem };
  }

  /** A contract call: served by the core (checked by `serve`), or refused while it starts or stops. */
  private answerCall(m: Extract<ToEngine, { t: 'call' }>): void {
    const id = m.id;
    if (!this.core || this.closing) {
      this.send({
        t: 'reply',
        id,
        ok: false,
        error: { code: 'Unavailable', message: this.closing ? 'the engine is stopping' : 'the engine is starting' },
      });
      return;
    }
    void serve(this.core.handlers, m.method, m.args).then((reply) =>
      this.send(reply.ok ? { t: 'reply', id, ok: true, result: reply.result } : { t: 'reply', id, ok: false, error: reply.error }),
    );
  }

  /** The main process's answer settles its ask. */
  private settleAsk(m: Extract<ToEngine, { t: 'answer' }>): void {
    const a = this.asks.get(m.id);
    if (!a) return;
    this.asks.delete(m.id);
    if (m.ok) a.resolve(m.value ?? null);
    else a.reject(new RemoteError(m.error?.code ?? 'Internal', m.error?.message ?? 'the main process refused'));
  }

  /** The clean stop behind `close`. */
  private async stop(): Promise<void> {
    if (this.poll) clearTimeout(this.poll);
    await this.starting?.catch(ignore('a start that failed was reported when it failed; stopping goes on'));
    try {
      await this.core?.close();
    } catch (e) {
      this.log.error('clean shutdown failed', { err: e });
    }
    this.core = null;
    for (const a of this.asks.values()) a.reject(new AppError('Unavailable', 'the engine is stopping'));
    this.asks.clear();
    this.send({ t: 'closed' });
    this.exit(0);
  }
}

/** The start options the parent may leave out, passed on only when given. */
function optionalCoreOptions(o: StartOptions): Partial<Parameters<typeof startCore>[0]> {
  return {
    ...(o.firstRun !== undefined ? { firstRun: o.firstRun } : {}),
    ...(o.demoObjects !== undefined ? { demoObjects: o.demoObjects } : {}),
    ...(o.service !== undefined
      ? {
          service: {
            command: o.service.command,
            args: o.service.args,
            ...(o.service.env ? { env: o.service.env as Record<string, string> } : {}),
          },
        }
      : {}),
    ...(o.engine !== undefined ? { engine: o.engine } : {}),
  };
}
