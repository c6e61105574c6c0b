/**
 * The messages between the app's main process (window, tray, keychain) and the engine's own
 * process (main/host/engine-entry.ts), over one message port. Every message is checked on
 * arrival with these schemas; a call's method, arguments and result are then checked again
 * by the window contract itself (`serve` in the engine, `checkReply`/`checkEvent` here), so
 * the port carries exactly the contract plus a few narrow host requests:
 *  - parent -> engine: start (options), call, answer (to an `ask`), close;
 *  - engine -> parent: ready, failed, reply, event, status, ask (keychain, desktop, login
 *    item: what only the main process may do), closed.
 * The token crosses this port only as a keychain answer or write (process memory to process
 * memory); it is never logged here, never written to a file, never sent to the window.
 */
import { arr, bool, int, lit, nullable, obj, oneOf, opt, str, tagged, type Infer, type Schema } from '../../app/util/schema.js';

/** Anything: the contract checks call arguments, results and payloads itself. */
const anything: Schema<unknown> = { describe: 'any', parse: (v) => v, test: (_v): _v is unknown => true };
const id = int(0);
const wireError = obj({ code: str({ max: 64 }), message: str({ max: 8192 }), field: opt(str({ max: 256 })) });

/** How the parent wants the engine started (CoreOptions minus what lives in the parent). */
export const startOptions = obj({
  dataDir: str({ min: 1, max: 4096 }),
  firstRun: opt(oneOf(['ask', 'demo'] as const)),
  demoObjects: opt(int(0)),
  service: opt(obj({ command: str({ min: 1, max: 4096 }), args: arr(str({ max: 4096 }), 64), env: opt(obj({}, { open: true })) })),
  engine: opt(obj({ holdMs: opt(int(0)), rescanMs: opt(int(0)), requestPollMs: opt(int(0)), requestTimeoutMs: opt(int(1)) })),
  keychain: obj({ kind: oneOf(['os', 'memory'] as const), reason: opt(str({ max: 4096 })) }),
  loginItem: obj({ supported: bool(), enabled: bool() }),
  openExternal: bool(),
  /** The engine's log level on its stderr; 'none' when the parent shows no log either. */
  logLevel: opt(oneOf(['debug', 'info', 'warn', 'error', 'none'] as const)),
});
export type StartOptions = Infer<typeof startOptions>;

/** What the engine may ask of the main process. */
export const ASK_OPS = [
  'keychain.get',
  'keychain.set',
  'keychain.delete',
  'desktop.open',
  'desktop.reveal',
  'desktop.openExternal',
  'loginItem.set',
] as const;
export type AskOp = (typeof ASK_OPS)[number];

export const toEngine = tagged('t', {
  start: obj({ t: lit('start'), options: startOptions }),
  call: obj({ t: lit('call'), id, method: str({ min: 1, max: 64 }), args: anything }),
  answer: obj({ t: lit('answer'), id, ok: bool(), value: opt(anything), error: opt(wireError) }),
  close: obj({ t: lit('close') }),
});
export type ToEngine = Infer<typeof toEngine>;

export const fromEngine = tagged('t', {
  ready: obj({ t: lit('ready'), pid: int(1), status: anything }),
  failed: obj({ t: lit('failed'), error: wireError }),
  reply: obj({ t: lit('reply'), id, ok: bool(), result: opt(anything), error: opt(wireError) }),
  event: obj({ t: lit('event'), event: str({ min: 1, max: 64 }), payload: anything }),
  status: obj({ t: lit('status'), status: anything }),
  ask: obj({
    t: lit('ask'),
    id,
    op: oneOf(ASK_OPS),
    account: opt(str({ min: 1, max: 4096 })),
    token: opt(str({ min: 1, max: 65_536 })),
    path: opt(str({ min: 1, max: 4096 })),
    enabled: opt(bool()),
  }),
  closed: obj({ t: lit('closed') }),
});
export type FromEngine = Infer<typeof fromEngine>;

export const answerValue = { string: nullable(str({ max: 65_536 })), bool: bool() };
