import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStore } from '../local/local-store.js';
import { createLogger } from '../log/logger.js';
import { openStateDb, type Db } from '../state/db.js';
import { attemptEvent, StateKeeper, WALK_WRITE_MS } from './state-keeper.js';

let dir = '';
let db: Db | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Kept {
  k: StateKeeper;
  local: LocalStore;
  lines: string[];
  counts: { status: number; back: number };
  /** What the keeper scheduled (run by the test). */
  later: { fn: () => void; ms: number }[];
}

function keeper(): Kept {
  dir = mkdtempSync(join(tmpdir(), 'nas-keeper-'));
  db = openStateDb(dir);
  const local = new LocalStore(db);
  const lines: string[] = [];
  const counts = { status: 0, back: 0 };
  const later: Kept['later'] = [];
  const k = new StateKeeper(local, createLogger('engine', { write: (l) => lines.push(l) }), {
    statusChanged: () => counts.status++,
    backOnline: () => counts.back++,
    schedule: (fn, ms) => later.push({ fn, ms }),
  });
  return { k, local, lines, counts, later };
}
const msgs = (lines: string[]): string[] => lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
const refused = attemptEvent({ method: 'PATCH', path: '/files/x', attempt: 0, error: 'NetworkError' })!;

describe('StateKeeper: the effects of a transition', () => {
  it('announces nothing before the NAS answered or failed (the start is not "offline")', () => {
    const { k, local, lines } = keeper();
    k.dispatch({ type: 'health', ok: true });
    k.dispatch({ type: 'walk-started', at: 0 });
    expect(lines).toEqual([]);
    expect(local.meta('connection')).toBeUndefined();
  });

  it('offline once per change, kept in the state db for `nas-mirror status`; back online clears it and kicks the outbox', () => {
    const { k, local, lines, counts } = keeper();
    k.dispatch({ type: 'reachable' });
    expect(counts.back).toBe(0); // the first answer is not a "back"
    k.dispatch(refused);
    k.dispatch(refused);
    k.dispatch({ type: 'send-failed', error: { code: 'NetworkError', message: 'connect ECONNREFUSED' } });
    expect(msgs(lines)).toEqual(['offline']);
    expect(JSON.parse(local.meta('connection')!)).toMatchObject({ state: 'offline' });
    k.dispatch({ type: 'reachable' });
    expect(msgs(lines)).toEqual(['offline', 'online']);
    expect(local.meta('connection')).toBeUndefined();
    expect(counts.back).toBe(1);
  });

  it("a walk's per-page counters are not pushed as status events; the link's changes are", () => {
    const { k, counts } = keeper();
    k.dispatch({ type: 'walk-started', at: 0 });
    const before = counts.status;
    k.dispatch({ type: 'walk-progress', folders: 1, objects: 10, rate: 5, pages: 0, known: null, settled: false, recentRate: 0 });
    k.dispatch({ type: 'walk-placed', placed: 4 });
    expect(counts.status).toBe(before);
    k.dispatch({ type: 'walk-progress', folders: 2, objects: 20, rate: 5, pages: 1, known: null, settled: false, recentRate: 0 }); // first answer: online
    expect(counts.status).toBe(before + 1);
    expect(k.state.connection).toBe('online');
  });
});

describe('StateKeeper: the walk kept for `nas-mirror status` in another process', () => {
  afterEach(() => vi.useRealTimers());
  it('written at its start, at most once a second while it runs (the latest never lost), gone at its end and at the next start', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(10_000);
    const { k, local, later } = keeper();
    const progress = (objects: number): void =>
      k.dispatch({ type: 'walk-progress', folders: 2, objects, rate: 5, pages: 1, known: 900, settled: false, recentRate: 5 });
    k.dispatch({ type: 'walk-started', at: Date.now() });
    expect(JSON.parse(local.meta('walk')!)).toMatchObject({ running: true, objects: 0 });
    vi.setSystemTime(10_400);
    progress(10);
    progress(15);
    expect(JSON.parse(local.meta('walk')!)).toMatchObject({ objects: 0 });
    // the last of the burst goes in when its second is up (the engine's timers run it)
    expect(later.map((l) => l.ms)).toEqual([WALK_WRITE_MS - 400]);
    vi.setSystemTime(10_000 + WALK_WRITE_MS);
    later.shift()!.fn();
    expect(JSON.parse(local.meta('walk')!)).toMatchObject({ running: true, objects: 15, known: 900, settled: false });
    vi.setSystemTime(10_000 + 2 * WALK_WRITE_MS);
    progress(20);
    expect(JSON.parse(local.meta('walk')!)).toMatchObject({ objects: 20 });
    expect(later).toEqual([]);
    k.dispatch({ type: 'walk-finished', error: undefined });
    expect(local.meta('walk')).toBeUndefined();
    // an engine killed mid-walk left its walk behind: the next one does not show it
    local.setMeta('walk', JSON.stringify(k.state.walk));
    new StateKeeper(local, createLogger('engine', { write: () => undefined }), {
      statusChanged: () => undefined,
      backOnline: () => undefined,
      schedule: () => undefined,
    });
    expect(local.meta('walk')).toBeUndefined();
  });
});

describe('attemptEvent', () => {
  it('no answer or a 401 fails the link; an answer below 500 reaches it; 403 and 5xx say nothing', () => {
    expect(attemptEvent({ method: 'GET', path: '/p', attempt: 0, error: 'Timeout' })).toMatchObject({
      type: 'link-failed',
      error: { code: 'Timeout' },
    });
    expect(attemptEvent({ method: 'GET', path: '/p', attempt: 0, status: 401 })).toMatchObject({
      type: 'link-failed',
      error: { code: 'Unauthorized' },
    });
    expect(attemptEvent({ method: 'GET', path: '/p', attempt: 0, status: 200 })).toEqual({ type: 'reachable' });
    expect(attemptEvent({ method: 'GET', path: '/p', attempt: 0, status: 412 })).toEqual({ type: 'reachable' });
    expect(attemptEvent({ method: 'GET', path: '/p', attempt: 0, status: 403 })).toBeUndefined();
    expect(attemptEvent({ method: 'GET', path: '/p', attempt: 0, status: 503 })).toBeUndefined();
  });
});
