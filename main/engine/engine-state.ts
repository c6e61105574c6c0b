/**
 * The engine's state machine, pure (no I/O, no clock of its own): one state, changed only by
 * typed events (a walk started / progressed / finished, a request answered or failed, an
 * outbox entry sent or not, the mirror folder's health, pause, a disk error, the watcher
 * falling back to polling), and the views derived from it ONCE: the status word, the
 * connection, the error shown, the outbox's retry delay (backoff) and the stale flag. The
 * engine feeds it (main/engine/engine.ts `dispatch`) and turns transitions into effects
 * (log lines, the state db's `connection` meta, status events).
 */
import { NO_WALK_STATUS, type WalkStatus } from '../../app/contract/shapes.js';
import { retryClassOf } from '../../app/errors.js';

export type Connection = 'online' | 'offline' | 'auth-error';
export interface Problem {
  code: string;
  message: string;
}

/** The walk in progress as the status says it (the contract's shape: app/contract/shapes.ts `walkStatus`). */
export type WalkView = WalkStatus;

export interface EngineState {
  readonly paused: boolean;
  /** Why the mirror folder is unusable (vanished, emptied), or undefined when it is healthy. */
  readonly mirrorMissing: string | undefined;
  readonly connection: Connection;
  /** Why the NAS is not reachable or refuses the token (set with `connection` offline / auth-error). */
  readonly linkError: Problem | undefined;
  /**
   * The last walk stopped on something other than the link (it stays incomplete): data the
   * client refuses from the NAS, or this app's own failure (its state database, a bug).
   * Never "offline".
   */
  readonly refused: Problem | undefined;
  /** The mirror folder cannot be read (EIO, EACCES...), until a local batch reads it again. */
  readonly diskError: Problem | undefined;
  /** Which step the disk error comes from: a local scan or a placeholder write. */
  readonly diskStep: DiskStep | undefined;
  readonly walk: WalkView;
  readonly watcherPolling: boolean;
  readonly watcherNotice: string | undefined;
  /** Outbox sends that failed in a row since the NAS last answered (the backoff's exponent). */
  readonly sendFailures: number;
  /** The last failed send was refused for the token (the retry waits longer). */
  readonly authWait: boolean;
  /**
   * The mirror folder has been compared with the model since the engine started (or since its
   * disk changed): until then a change made while stopped may not be queued yet, so never "synced".
   */
  readonly localChecked: boolean;
}

export type DiskStep = 'scan' | 'write';

export type EngineEvent =
  | { type: 'walk-started'; at: number }
  | ({ type: 'walk-progress'; pages: number } & Pick<WalkView, 'folders' | 'objects' | 'rate' | 'known' | 'settled' | 'recentRate'>)
  | { type: 'walk-placed'; placed: number }
  | { type: 'walk-finished'; error: Problem | undefined }
  /** Any request got an HTTP answer (not 401/403, not 5xx): the NAS is reachable. */
  | { type: 'reachable' }
  /** A request got no answer (network error, timeout) or a 401: said at once, not after the retries. */
  | { type: 'link-failed'; error: Problem }
  | { type: 'sent' }
  | { type: 'send-failed'; error: Problem }
  | { type: 'health'; ok: true }
  | { type: 'health'; ok: false; reason: string }
  | { type: 'paused'; paused: boolean }
  | { type: 'disk-error'; step: DiskStep; error: Problem }
  | { type: 'disk-ok'; step: DiskStep }
  | { type: 'watcher-polling'; reason: string }
  /** The folder was compared with the model (done), or must be again before "synced" (its disk changed). */
  | { type: 'local-check'; done: boolean };

/** Error codes of a NAS that answered with data the client refuses (a walk's, not the link's problem). */
const REFUSED = new Set(['BadResponse', 'NasLooksEmpty']);
/** A walk that fails on these failed here, not on the way to the NAS: the link is as it was. */
const OWN_FAILURE = new Set(['StateCorrupt', 'Internal']);
const isAuth = (code: string): boolean => code === 'Unauthorized' || code === 'Forbidden';

export const NO_WALK: WalkView = NO_WALK_STATUS;

export function initialState(paused: boolean, localChecked = false): EngineState {
  return {
    paused,
    mirrorMissing: undefined,
    connection: 'offline',
    linkError: undefined,
    refused: undefined,
    diskError: undefined,
    diskStep: undefined,
    walk: NO_WALK,
    watcherPolling: false,
    watcherNotice: undefined,
    sendFailures: 0,
    authWait: false,
    localChecked,
  };
}

const answered = (s: EngineState): EngineState =>
  s.connection === 'online' && s.linkError === undefined && s.sendFailures === 0 && !s.authWait
    ? s
    : { ...s, connection: 'online', linkError: undefined, sendFailures: 0, authWait: false };

/** A plain copy: events may carry an AppError, and the status is checked as plain data. */
const problem = (e: Problem): Problem => ({ code: e.code, message: e.message });

const linkFailed = (s: EngineState, error: Problem): EngineState => ({
  ...s,
  connection: isAuth(error.code) ? 'auth-error' : 'offline',
  linkError: problem(error),
});

/** The next state. Returns `s` itself when nothing changed. */
export function reduce(s: EngineState, ev: EngineEvent): EngineState {
  switch (ev.type) {
    case 'walk-started':
      return { ...s, walk: { ...NO_WALK, running: true, startedAt: new Date(ev.at).toISOString() } };
    case 'walk-progress': {
      const { folders, objects, rate, known, settled, recentRate } = ev;
      const next = { ...s, walk: { ...s.walk, folders, objects, rate, known, settled, recentRate } };
      return ev.pages > 0 ? answered(next) : next; // listings arrive: the NAS answers
    }
    case 'walk-placed':
      return ev.placed === s.walk.placed ? s : { ...s, walk: { ...s.walk, placed: ev.placed } };
    case 'walk-finished': {
      const done = { ...s, walk: { ...s.walk, running: false } };
      if (!ev.error) return { ...answered(done), refused: undefined };
      if (REFUSED.has(ev.error.code)) return { ...answered(done), refused: problem(ev.error) };
      if (OWN_FAILURE.has(ev.error.code)) return { ...done, refused: problem(ev.error) };
      // the engine stopped it (quitting, a new mirror folder): nothing was learnt of the link
      if (ev.error.code === 'Cancelled') return done;
      return linkFailed(done, ev.error);
    }
    case 'reachable':
      return answered(s);
    case 'link-failed':
      return linkFailed(s, ev.error);
    case 'sent':
      return answered(s); // a refused walk stays until a complete walk (a sent change is not one)
    case 'send-failed':
      // an answer retrying cannot fix (an unknown 4xx, data the client cannot use) came from a
      // NAS that answers: the change waits its backoff, the link is as it was
      if (retryClassOf(ev.error.code) === 'fatal') return { ...s, sendFailures: s.sendFailures + 1, authWait: false };
      return { ...linkFailed(s, ev.error), sendFailures: s.sendFailures + 1, authWait: isAuth(ev.error.code) };
    case 'health':
      if (ev.ok) return s.mirrorMissing === undefined ? s : { ...s, mirrorMissing: undefined };
      return s.mirrorMissing !== undefined ? s : { ...s, mirrorMissing: ev.reason };
    case 'paused':
      return s.paused === ev.paused ? s : { ...s, paused: ev.paused };
    case 'disk-error':
      return { ...s, diskError: problem(ev.error), diskStep: ev.step };
    case 'disk-ok':
      // only the step that failed getting through cures it (a scan that reads does not cure a write)
      return s.diskError === undefined || s.diskStep !== ev.step ? s : { ...s, diskError: undefined, diskStep: undefined };
    case 'watcher-polling':
      return { ...s, watcherPolling: true, watcherNotice: ev.reason };
    case 'local-check':
      return s.localChecked === ev.done ? s : { ...s, localChecked: ev.done };
  }
}

/** What the stores say, for the status word: work waiting and what needs the user. */
export interface StoreFacts {
  outboxPending: number;
  conflicts: number;
  heldDeletes: number;
}

export type StatusWord = 'synced' | 'syncing' | 'paused' | 'offline' | 'auth-error' | 'mirror-missing' | 'needs-attention';

/**
 * The status word: a missing mirror outranks a pause, which outranks the link, which outranks
 * what needs the user, then work in progress (a walk, the outbox, the folder not yet compared
 * with the model since the start: never "synced" with a change not yet queued).
 */
export function statusWord(s: EngineState, f: StoreFacts): StatusWord {
  if (s.mirrorMissing !== undefined) return 'mirror-missing';
  if (s.paused) return 'paused';
  if (s.connection === 'auth-error') return 'auth-error';
  if (s.connection === 'offline') return 'offline';
  if (f.conflicts > 0 || f.heldDeletes > 0) return 'needs-attention';
  return s.walk.running || f.outboxPending > 0 || !s.localChecked ? 'syncing' : 'synced';
}

/** The one error the status shows: the disk's, else the NAS's refused data, else the link's. */
export function shownError(s: EngineState): Problem | null {
  return s.diskError ?? s.refused ?? s.linkError ?? null;
}

/** May the outbox send now? (not paused, mirror present; `stopped` is the engine's). */
export function canSend(s: EngineState): boolean {
  return !s.paused && s.mirrorMissing === undefined;
}

export const BACKOFF_FIRST_MS = 1000;
export const BACKOFF_MAX_MS = 300_000;
export const AUTH_RETRY_MS = 30_000;

/**
 * How long the outbox waits before its next try: 1 s doubling per failure in a row to 5 min,
 * 30 s after a refused token; `random` in [0, 1) gives +-25 % jitter (many clients of a
 * rebooting device do not come back in step).
 */
export function retryDelayMs(s: EngineState, random: number): number {
  if (s.authWait) return AUTH_RETRY_MS;
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.max(0, s.sendFailures - 1));
  return Math.round(base * (0.75 + random * 0.5));
}

/** The stale flag: its one definition is pure and shared with the window and the tray (app/tray/stale.ts). */
export { staleAfterSec, walkIsStale as isStale } from '../../app/tray/stale.js';
