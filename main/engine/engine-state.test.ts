import { describe, expect, it } from 'vitest';
import { AppError } from '../../app/errors.js';
import {
  AUTH_RETRY_MS,
  BACKOFF_MAX_MS,
  canSend,
  initialState,
  isStale,
  reduce,
  retryDelayMs,
  shownError,
  staleAfterSec,
  statusWord,
  type EngineEvent,
  type EngineState,
  type StoreFacts,
} from './engine-state.js';

const NONE: StoreFacts = { outboxPending: 0, conflicts: 0, heldDeletes: 0 };
const run = (s: EngineState, ...evs: EngineEvent[]): EngineState => evs.reduce(reduce, s);
const net = { code: 'NetworkError', message: 'no connection' };
const online = run(initialState(false), { type: 'reachable' }, { type: 'local-check', done: true });

describe('engine state: the link', () => {
  it('starts offline until the NAS answers, then online', () => {
    const s = initialState(false);
    expect(s.connection).toBe('offline');
    expect(statusWord(s, NONE)).toBe('offline');
    expect(statusWord(online, NONE)).toBe('synced');
  });

  it('is offline at the first failed attempt, even while a walk runs and changes wait', () => {
    const walking = run(
      online,
      { type: 'walk-started', at: 0 },
      { type: 'walk-progress', folders: 3, objects: 40, rate: 10, pages: 2, known: null, settled: false, recentRate: 0 },
    );
    const busy = { ...NONE, outboxPending: 2 };
    expect(statusWord(walking, busy)).toBe('syncing');
    const down = reduce(walking, { type: 'link-failed', error: net });
    expect(statusWord(down, busy)).toBe('offline');
    expect(shownError(down)).toEqual(net);
    // the walk goes on retrying: progress without a page is no evidence of the link
    expect(
      statusWord(
        reduce(down, { type: 'walk-progress', folders: 3, objects: 40, rate: 0, pages: 0, known: null, settled: false, recentRate: 0 }),
        busy,
      ),
    ).toBe('offline');
  });

  it('comes back online at the first answer, and the link error goes', () => {
    const down = run(online, { type: 'link-failed', error: net });
    const back = reduce(down, { type: 'reachable' });
    expect(back.connection).toBe('online');
    expect(shownError(back)).toBeNull();
    // listings arriving in a walk are answers too
    const viaWalk = run(
      down,
      { type: 'walk-started', at: 0 },
      { type: 'walk-progress', folders: 1, objects: 5, rate: 5, pages: 1, known: null, settled: false, recentRate: 0 },
    );
    expect(viaWalk.connection).toBe('online');
  });

  it('a send the NAS answered with something retrying cannot fix (418) backs off without calling the NAS unreachable', () => {
    const s = run(
      online,
      { type: 'send-failed', error: { code: 'BadRequest', message: 'I am a teapot' } },
      { type: 'send-failed', error: { code: 'BadRequest', message: 'I am a teapot' } },
    );
    expect(s.connection).toBe('online');
    expect(s.sendFailures).toBe(2);
    expect(retryDelayMs(s, 0.5)).toBe(2000);
    // a network failure is still the link
    expect(run(s, { type: 'send-failed', error: net }).connection).toBe('offline');
  });

  it('a refused token is auth-error, which outranks offline and needs the user', () => {
    const s = reduce(online, { type: 'link-failed', error: { code: 'Unauthorized', message: '401' } });
    expect(s.connection).toBe('auth-error');
    expect(statusWord(s, NONE)).toBe('auth-error');
  });
});

describe('engine state: walks', () => {
  it('a walk runs from started to finished, counting what it placed', () => {
    const s = run(online, { type: 'walk-started', at: Date.parse('2026-11-23T10:00:00Z') }, { type: 'walk-placed', placed: 7 });
    expect(s.walk).toMatchObject({ running: true, placed: 7, startedAt: '2026-11-23T10:00:00.000Z' });
    const done = reduce(s, { type: 'walk-finished', error: undefined });
    expect(done.walk.running).toBe(false);
    expect(done.walk.placed).toBe(7);
    expect(statusWord(done, NONE)).toBe('synced');
  });

  it('a walk the NAS answered with refused data is said as such, never as offline; the next good walk clears it', () => {
    const bad = run(
      online,
      { type: 'walk-started', at: 0 },
      { type: 'walk-finished', error: { code: 'BadResponse', message: 'invalid objects' } },
    );
    expect(bad.connection).toBe('online');
    expect(shownError(bad)?.code).toBe('BadResponse');
    const good = run(bad, { type: 'walk-started', at: 1 }, { type: 'walk-finished', error: undefined });
    expect(shownError(good)).toBeNull();
  });

  it('the error shown is plain data even when the event carried an AppError (the status is checked as plain data)', () => {
    const e = new AppError('NasLooksEmpty', 'the NAS now looks empty');
    const held = run(
      online,
      { type: 'walk-started', at: 0 },
      { type: 'walk-finished', error: e },
      { type: 'disk-error', step: 'write', error: new AppError('DiskError', 'EIO') },
    );
    expect(Object.getPrototypeOf(shownError(held))).toBe(Object.prototype);
    expect(Object.getPrototypeOf(held.refused)).toBe(Object.prototype);
    expect(held.refused).toEqual({ code: 'NasLooksEmpty', message: 'the NAS now looks empty' });
  });

  it("a walk that failed on the app's own state (a locked or damaged database) is said as such, never as offline", () => {
    const s = run(
      online,
      { type: 'walk-started', at: 0 },
      { type: 'walk-finished', error: { code: 'Internal', message: 'database is locked' } },
    );
    expect(s.connection).toBe('online');
    expect(statusWord(s, NONE)).toBe('synced');
    expect(shownError(s)).toEqual({ code: 'Internal', message: 'database is locked' });
    const good = run(s, { type: 'walk-started', at: 1 }, { type: 'walk-finished', error: undefined });
    expect(shownError(good)).toBeNull();
  });

  it('a walk the engine cancelled (quitting) says nothing of the link: not "offline"', () => {
    const s = run(
      online,
      { type: 'walk-started', at: 0 },
      { type: 'walk-finished', error: { code: 'Cancelled', message: 'walk cancelled' } },
    );
    expect(s.connection).toBe('online');
    expect(s.walk.running).toBe(false);
    expect(shownError(s)).toBeNull();
  });

  it('a walk that failed on the network leaves the engine offline', () => {
    const s = run(online, { type: 'walk-started', at: 0 }, { type: 'walk-finished', error: net });
    expect(s.connection).toBe('offline');
  });
});

describe('engine state: outbox backoff', () => {
  it('grows 1 s, 2 s, 4 s ... to 5 min, and resets when an entry is sent', () => {
    let s = online;
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      s = reduce(s, { type: 'send-failed', error: net });
      waits.push(retryDelayMs(s, 0.5));
    }
    expect(waits.slice(0, 5)).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(waits.at(-1)).toBe(BACKOFF_MAX_MS);
    s = reduce(s, { type: 'sent' });
    expect(s.connection).toBe('online');
    expect(retryDelayMs(reduce(s, { type: 'send-failed', error: net }), 0.5)).toBe(1000);
  });

  it('resets when any request is answered again', () => {
    const s = run(
      online,
      { type: 'send-failed', error: net },
      { type: 'send-failed', error: net },
      { type: 'reachable' },
      { type: 'send-failed', error: net },
    );
    expect(retryDelayMs(s, 0.5)).toBe(1000);
  });

  it('jitters +-25 %', () => {
    const s = run(online, { type: 'send-failed', error: net }, { type: 'send-failed', error: net });
    expect(retryDelayMs(s, 0)).toBe(1500);
    expect(retryDelayMs(s, 0.999999)).toBe(2500);
  });

  it('waits 30 s after a refused token', () => {
    const s = reduce(online, { type: 'send-failed', error: { code: 'Unauthorized', message: '401' } });
    expect(retryDelayMs(s, 0.5)).toBe(AUTH_RETRY_MS);
    expect(s.connection).toBe('auth-error');
  });
});

describe('engine state: the folder, pause, disk', () => {
  it('a missing mirror outranks a pause, which outranks the link; health back clears it', () => {
    const missing = run(initialState(true), { type: 'health', ok: false, reason: 'the mirror folder is gone' });
    expect(statusWord(missing, NONE)).toBe('mirror-missing');
    expect(canSend(missing)).toBe(false);
    const back = reduce(missing, { type: 'health', ok: true });
    expect(statusWord(back, NONE)).toBe('paused');
    const resumed = reduce(back, { type: 'paused', paused: false });
    expect(canSend(resumed)).toBe(true);
    expect(statusWord(resumed, NONE)).toBe('offline');
  });

  it('needs attention for conflicts or held deletes, else syncing while work waits, else synced', () => {
    expect(statusWord(online, { ...NONE, heldDeletes: 1 })).toBe('needs-attention');
    expect(statusWord(online, { ...NONE, conflicts: 2, outboxPending: 3 })).toBe('needs-attention');
    expect(statusWord(online, { ...NONE, outboxPending: 3 })).toBe('syncing');
  });

  it('never synced before the folder was compared with the model since the start (or since its disk changed)', () => {
    const fresh = run(initialState(false), { type: 'reachable' });
    expect(statusWord(fresh, NONE)).toBe('syncing');
    expect(statusWord(reduce(fresh, { type: 'local-check', done: true }), NONE)).toBe('synced');
    expect(statusWord(reduce(online, { type: 'local-check', done: false }), NONE)).toBe('syncing');
  });

  it('a disk error is shown before anything else until a batch reads the disk', () => {
    const s = run(
      online,
      { type: 'link-failed', error: net },
      { type: 'disk-error', step: 'scan', error: { code: 'DiskError', message: 'EIO' } },
    );
    expect(shownError(s)?.code).toBe('DiskError');
    expect(shownError(reduce(s, { type: 'disk-ok', step: 'scan' }))?.code).toBe('NetworkError');
  });

  it('the watcher falling back to polling is kept with its reason', () => {
    const s = reduce(online, { type: 'watcher-polling', reason: 'inotify limit: 12000 watches needed' });
    expect(s).toMatchObject({ watcherPolling: true, watcherNotice: 'inotify limit: 12000 watches needed' });
  });

  it('an event that changes nothing returns the same state (no status is re-sent)', () => {
    expect(reduce(online, { type: 'reachable' })).toBe(online);
    expect(reduce(online, { type: 'health', ok: true })).toBe(online);
    expect(reduce(online, { type: 'disk-ok', step: 'scan' })).toBe(online);
    expect(reduce(online, { type: 'paused', paused: false })).toBe(online);
  });
});

describe('engine state: stale', () => {
  const at = Date.parse('2026-11-23T12:00:00Z');
  it('is stale with no complete walk, or after three re-walk periods (at least 10 min)', () => {
    expect(staleAfterSec(60)).toBe(600);
    expect(staleAfterSec(600)).toBe(1800);
    expect(isStale(null, 600, at)).toBe(true);
    expect(isStale('2026-11-23T11:55:00Z', 600, at)).toBe(false);
    expect(isStale('2026-11-23T11:49:59Z', 600, at)).toBe(true);
    expect(isStale('not a date', 600, at)).toBe(true);
  });
});
