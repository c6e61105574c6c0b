/**
 * Holds the engine's state (engine-state.ts) and is the one place it changes: `dispatch`
 * runs the pure reducer, then the transition's effects, and nothing else has any: the link's
 * change logged once and kept in the state db (so `nas-mirror status` in another process
 * says "offline", not "syncing"), a status event, and the outbox kicked when the NAS answers
 * again. A walk's progress is kept in the state db too (at its start, at most once a second,
 * gone at its end), so `nas-mirror status` says how far it is. Also turns each request attempt
 * the client reports into link evidence.
 */
import type { AttemptEvent } from '../client/service-client.js';
import type { LocalStore } from '../local/local-store.js';
import type { Logger } from '../log/logger.js';
import { initialState, reduce, type Connection, type EngineEvent, type EngineState } from './engine-state.js';

/** Events that change only the walk's counters: read with the status, not pushed (they come per page). */
const QUIET: ReadonlySet<EngineEvent['type']> = new Set(['walk-progress', 'walk-placed']);
/** The walk's progress is written to the state db at most this often. */
export const WALK_WRITE_MS = 1000;

export class StateKeeper {
  private st: EngineState;
  /** The connection last written to the log and the state db (undefined before the first). */
  private announced: Connection | undefined;
  /** When the walk's progress was last written to the state db. */
  private walkWrittenAt = 0;
  /** A write of the walk's latest progress is scheduled (the last of a burst is never lost). */
  private walkPending = false;

  constructor(
    private readonly local: Pick<LocalStore, 'meta' | 'setMeta'>,
    private readonly log: Logger,
    private readonly effects: {
      statusChanged(): void;
      backOnline(): void;
      /** Runs `fn` once after `ms`, unless the engine stopped meanwhile (the engine's timers). */
      schedule(fn: () => void, ms: number): void;
    },
  ) {
    this.st = initialState(local.meta('paused') === '1');
    // a walk of an engine that was killed is not this engine's
    if (local.meta('walk') !== undefined) local.setMeta('walk', undefined);
  }

  get state(): EngineState {
    return this.st;
  }

  /** Feeds one event to the state machine; its effects follow. */
  dispatch(ev: EngineEvent): void {
    const prev = this.st;
    const next = reduce(prev, ev);
    if (next === prev) return;
    this.st = next;
    // "not connected yet" (the start, no request failed) is not announced: only an answer or a failure is
    if (next.connection !== this.announced && (next.connection === 'online' || next.linkError !== undefined)) this.announce(next);
    if (next.walk !== prev.walk) this.keepWalk(ev, next);
    if (!QUIET.has(ev.type) || next.connection !== prev.connection || next.linkError !== prev.linkError) this.effects.statusChanged();
    // the NAS answers again: what waits in the outbox goes now, not when its backoff ends
    if (prev.linkError !== undefined && next.connection === 'online') this.effects.backOnline();
  }

  /**
   * The walk's progress in the state db for another process (status.ts readStatus): at its
   * start, then at most once a second, the latest of a burst written when its second is up.
   */
  private keepWalk(ev: EngineEvent, s: EngineState): void {
    if (!s.walk.running) {
      this.walkWrittenAt = 0;
      this.local.setMeta('walk', undefined);
      return;
    }
    const wait = this.walkWrittenAt + WALK_WRITE_MS - Date.now();
    if (ev.type === 'walk-started' || wait <= 0) this.writeWalk();
    else if (!this.walkPending) {
      this.walkPending = true;
      this.effects.schedule(() => {
        this.walkPending = false;
        if (this.st.walk.running) this.writeWalk();
      }, wait);
    }
  }

  private writeWalk(): void {
    this.walkWrittenAt = Date.now();
    this.local.setMeta('walk', JSON.stringify(this.st.walk));
  }

  private announce(s: EngineState): void {
    const was = this.announced;
    this.announced = s.connection;
    const e = s.linkError;
    if (s.connection === 'online') {
      if (was !== undefined && was !== 'online')
        this.log.info('online', { summary: 'the NAS answers again; queued changes are being sent' });
      this.local.setMeta('connection', undefined);
      return;
    }
    const auth = s.connection === 'auth-error';
    this.log.warn(s.connection, {
      summary: auth
        ? `the NAS refused the token (${e?.message ?? ''})`
        : `the NAS is not reachable (${e?.message ?? ''}); changes wait in the outbox`,
      reason: e?.code ?? '',
    });
    this.local.setMeta('connection', JSON.stringify({ state: s.connection, message: e?.message ?? '', code: e?.code ?? '' }));
  }
}

/**
 * What one request's attempt says of the link: no answer (network error, timeout) or a 401
 * -> failed, at once, not after the client's retries (issue 11 point 8); an answer below
 * 500 -> reachable. A 403 (a folder the user may not change) and a 5xx say nothing here.
 */
export function attemptEvent(a: AttemptEvent): EngineEvent | undefined {
  if (a.error === 'NetworkError' || a.error === 'Timeout') {
    // a timeout is a NAS that takes connections and says nothing (hung, stopped): "not answering", not "unreachable"
    const what = a.error === 'Timeout' ? 'the NAS is not answering (no reply within the request timeout)' : 'the connection failed';
    return { type: 'link-failed', error: { code: a.error, message: `${what}; retrying` } };
  }
  if (a.status === undefined) return undefined;
  if (a.status === 401) return { type: 'link-failed', error: { code: 'Unauthorized', message: 'the NAS refused the token (401)' } };
  return a.status < 500 && a.status !== 403 ? { type: 'reachable' } : undefined;
}
