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
import { answerValue, toEngine, type AskOp, type FromEngine, type StartOptions } from './protocol.js';

/**
 * How often the status is compared with the last one pushed (walk progress has no event):
 * every second while a walk runs or changes wait, else every 10 s (idle costs nothing).
 */
const BUSY_POLL_MS = 1000;
const IDLE_POLL_MS = 10_000;

export function serveEngine(port: ParentPort, exit: (code: number) => void): { close(): Promise<void> } {
  let log: Logger = createLogger('engine-host');
  let core: Core | null = null;
  let starting: Promise<void> | null = null;
  let closing: Promise<void> | null = null;
  let lastStatus = '';
  let busy = false;
  let poll: ReturnType<typeof setTimeout> | undefined;
  let nextAsk = 1;
  const asks = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  const send = (m: FromEngine): void => port.send(m);

  const ask = (op: AskOp, fields: { account?: string; token?: string; path?: string; enabled?: boolean }): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextAsk++;
      asks.set(id, { resolve, reject });
      send({ t: 'ask', id, op, ...fields });
    });

  /** Remembers what the parent has now (it keeps the status of every status event too). */
  const sent = (status: AppStatus): string => {
    busy = status.walk.running || status.outbox > 0;
    return (lastStatus = JSON.stringify(status));
  };
  const pollStatus = (): void => {
    poll = setTimeout(
      () => {
        if (!core || closing) return;
        const status = core.status();
        if (JSON.stringify(status) !== lastStatus) {
          sent(status);
          send({ t: 'status', status });
        }
        pollStatus();
      },
      busy ? BUSY_POLL_MS : IDLE_POLL_MS,
    );
  };

  const start = async (o: StartOptions): Promise<void> => {
    const level = o.logLevel ?? process.env['NAS_MIRROR_LOG_LEVEL'] ?? 'info';
    log = level === 'none' ? silentLogger : createLogger('engine-host', undefined, level as Level);
    const keychain: Keychain = {
      kind: o.keychain.kind,
      ...(o.keychain.reason !== undefined ? { reason: o.keychain.reason } : {}),
      get: async (account) => answerValue.string.parse(await ask('keychain.get', { account }), 'keychain') ?? undefined,
      set: async (account, token) => {
        await ask('keychain.set', { account, token });
      },
      delete: async (account) => answerValue.bool.parse(await ask('keychain.delete', { account }), 'keychain'),
    };
    const desktop: DesktopPort = {
      open: async (path) => {
        await ask('desktop.open', { path });
      },
      reveal: async (path) => {
        await ask('desktop.reveal', { path });
      },
      ...(o.openExternal
        ? {
            openExternal: async (url: string) => {
              await ask('desktop.openExternal', { path: url });
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
        void ask('loginItem.set', { enabled }).catch((err: unknown) => log.warn('start at login could not be changed', { err }));
      },
    };
    try {
      const c = await startCore({
        dataDir: o.dataDir,
        log,
        desktop,
        loginItem,
        keychain,
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
      });
      core = c;
      c.events.subscribe((event, payload) => {
        send({ t: 'event', event, payload });
        if (event === 'status') sent(payload as AppStatus);
      });
      const status = c.status();
      sent(status);
      send({ t: 'ready', pid: process.pid, status });
      pollStatus();
    } catch (e) {
      log.error('the engine could not start', { err: e });
      const err = toAppError(e);
      send({ t: 'failed', error: { code: err.code, message: err.message } });
      exit(1);
    }
  };

  const close = (): Promise<void> =>
    (closing ??= (async () => {
      if (poll) clearTimeout(poll);
      await starting?.catch(() => undefined);
      try {
        await core?.close();
      } catch (e) {
        log.error('clean shutdown failed', { err: e });
      }
      core = null;
      for (const a of asks.values()) a.reject(new AppError('Unavailable', 'the engine is stopping'));
      asks.clear();
      send({ t: 'closed' });
      exit(0);
    })());

  port.onDisconnect(() => {
    void close();
  });
  port.onMessage((raw) => {
    let m;
    try {
      m = toEngine.parse(raw, 'message');
    } catch (e) {
      log.warn('refused a malformed message from the main process', { err: e });
      return;
    }
    switch (m.t) {
      case 'start':
        if (!starting) starting = start(m.options);
        return;
      case 'call': {
        const id = m.id;
        if (!core || closing) {
          send({
            t: 'reply',
            id,
            ok: false,
            error: { code: 'Unavailable', message: closing ? 'the engine is stopping' : 'the engine is starting' },
          });
          return;
        }
        void serve(core.handlers, m.method, m.args).then((reply) =>
          send(reply.ok ? { t: 'reply', id, ok: true, result: reply.result } : { t: 'reply', id, ok: false, error: reply.error }),
        );
        return;
      }
      case 'answer': {
        const a = asks.get(m.id);
        if (!a) return;
        asks.delete(m.id);
        if (m.ok) a.resolve(m.value ?? null);
        else a.reject(new RemoteError(m.error?.code ?? 'Internal', m.error?.message ?? 'the main process refused'));
        return;
      }
      case 'close':
        void close();
        return;
    }
  });
  return { close };
}
