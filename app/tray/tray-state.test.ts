import { describe, expect, it } from 'vitest';
import { NO_WALK_STATUS, type AppStatus } from '../contract/shapes.js';
import { connectionWord, notificationsFor, trayMenu, trayView } from './tray-state.js';

const NOW = Date.parse('2026-11-21T06:00:00Z');
const ok: AppStatus = {
  connection: 'online',
  endpoint: 'http://127.0.0.1:1',
  via: 'url',
  paused: false,
  mirrorMissing: false,
  walk: NO_WALK_STATUS,
  outbox: 0,
  conflicts: 0,
  heldDeletes: 0,
  uploads: { waiting: 0, held: 0, sent: 0, total: 0 },
  lastCompleteWalk: '2026-11-21T05:59:00Z',
  staleAfterSec: 3600,
  mirrorFolder: '/m',
  indexed: 12,
  error: null,
};
const s = (p: Partial<AppStatus>): AppStatus => ({ ...ok, ...p });

describe('trayView', () => {
  it('says synced only when everything is fine and recent', () => {
    expect(trayView(ok, NOW).state).toBe('synced');
    // not before the mirror folder was compared with what the app knows since the start
    expect(trayView({ ...ok, checking: true }, NOW)).toMatchObject({
      state: 'syncing',
      tooltip: 'NAS Mirror: syncing (checking the mirror folder)',
    });
  });
  it('says stale when the last complete walk is too old or never happened', () => {
    expect(trayView(s({ lastCompleteWalk: '2026-11-21T04:00:00Z' }), NOW).state).toBe('stale');
    expect(trayView(s({ lastCompleteWalk: null }), NOW).state).toBe('stale');
  });
  it('says syncing with progress during a walk, and while changes wait to be sent', () => {
    const walking = { ...NO_WALK_STATUS, running: true, folders: 3, objects: 40 };
    const v = trayView(s({ walk: walking }), NOW);
    expect(v.state).toBe('syncing');
    expect(v.progress).toEqual({ folders: 3, objects: 40 });
    expect(trayView(s({ lastCompleteWalk: null, walk: walking }), NOW).tooltip).toBe(
      'NAS Mirror: syncing, reading the NAS: 3 folders, 40 items so far',
    );
    expect(trayView(s({ outbox: 2 }), NOW).state).toBe('syncing');
    // the header's words (walk-words.ts): the total once the walk knows it
    const w = { ...walking, folders: 40, objects: 12_340, rate: 700, known: 100_000, settled: true, recentRate: 730 };
    expect(trayView(s({ walk: w }), NOW).tooltip).toBe(
      'NAS Mirror: syncing, reading the NAS: 12,340 of 100,000 items (12 %) · about 2 min left',
    );
  });
  it('says new files in words while they upload, apart from the other changes', () => {
    expect(trayView(s({ outbox: 0, uploads: { waiting: 3, held: 0, sent: 0, total: 0 } }), NOW)).toMatchObject({
      state: 'syncing',
      tooltip: 'NAS Mirror: syncing (3 new items to upload)',
    });
    // the bytes of the files going up now (issue 23: progress in the tray)
    expect(trayView(s({ outbox: 0, uploads: { waiting: 2, held: 0, sent: 120 * 2 ** 20, total: 1.5 * 2 ** 30 } }), NOW).tooltip).toBe(
      'NAS Mirror: syncing (2 new items to upload: 120 MB of 1.5 GB sent)',
    );
    expect(trayView(s({ outbox: 2, uploads: { waiting: 1, held: 0, sent: 0, total: 0 } }), NOW).tooltip).toBe(
      'NAS Mirror: syncing (2 changes to send, 1 new item to upload)',
    );
    expect(trayView(s({ connection: 'offline', outbox: 0, uploads: { waiting: 4, held: 0, sent: 0, total: 0 } }), NOW).tooltip).toBe(
      'NAS Mirror: offline, 4 new items to upload',
    );
  });
  it('says offline, and counts what waits', () => {
    const v = trayView(s({ connection: 'offline', outbox: 2, walk: { ...NO_WALK_STATUS, running: true, folders: 1, objects: 1 } }), NOW);
    expect(v.state).toBe('offline');
    expect(v.tooltip).toContain('2 changes waiting');
  });
  it('one word for the link in the badge and the tray: not answering, not signed in, not set up (issue 25 points 3 and 5)', () => {
    const hung = s({
      connection: 'offline',
      outbox: 1,
      error: { code: 'Timeout', message: 'the NAS is not answering (no reply within the request timeout); retrying' },
    });
    expect(connectionWord(hung)).toBe('Not answering');
    expect(trayView(hung, NOW)).toMatchObject({ state: 'offline', tooltip: 'NAS Mirror: NAS not answering, retrying, 1 change waiting' });
    expect(connectionWord(s({ connection: 'offline', error: { code: 'NetworkError', message: 'ECONNREFUSED' } }))).toBe('Offline');
    const noSignIn = s({ connection: 'unconfigured', error: { code: 'Unauthorized', message: 'not signed in to this NAS' } });
    expect(connectionWord(noSignIn)).toBe('Not signed in');
    expect(trayView(noSignIn, NOW).tooltip).toBe('NAS Mirror: needs attention (not signed in to this NAS yet)');
    const nothing = s({
      connection: 'unconfigured',
      error: { code: 'BadConfig', message: 'not set up yet: connect your NAS or try the demo' },
    });
    expect(connectionWord(nothing)).toBe('Not set up');
    expect(trayView(nothing, NOW).tooltip).toBe('NAS Mirror: needs attention (not set up yet)');
  });
  it('ranks attention over paused over offline', () => {
    expect(trayView(s({ paused: true, connection: 'offline' }), NOW).state).toBe('paused');
    expect(trayView(s({ paused: true, conflicts: 1 }), NOW).state).toBe('attention');
    expect(trayView(s({ heldDeletes: 3 }), NOW).tooltip).toContain('3 held deletes');
    // many new files at once wait for the user's word: needs attention, like held deletes
    expect(trayView(s({ uploads: { waiting: 0, held: 12, sent: 0, total: 0 } }), NOW)).toMatchObject({
      state: 'attention',
      tooltip: 'NAS Mirror: needs attention (12 new items wait for your OK)',
    });
    expect(trayView(s({ connection: 'auth-error' }), NOW).state).toBe('attention');
    expect(trayView(s({ mirrorMissing: true }), NOW).state).toBe('attention');
  });
});

describe('notificationsFor', () => {
  it('notifies once when conflicts, held deletes or an auth error appear', () => {
    expect(notificationsFor(null, ok)).toEqual([]);
    expect(notificationsFor(ok, s({ conflicts: 2 })).map((n) => n.kind)).toEqual(['conflicts']);
    expect(notificationsFor(s({ conflicts: 2 }), s({ conflicts: 2 }))).toEqual([]);
    expect(notificationsFor(s({ conflicts: 2 }), s({ conflicts: 1 }))).toEqual([]);
    expect(notificationsFor(ok, s({ heldDeletes: 60 }))[0]?.title).toBe('60 deletes held');
    expect(notificationsFor(ok, s({ uploads: { waiting: 0, held: 60, sent: 0, total: 0 } }))).toMatchObject([
      { kind: 'held-uploads', title: '60 new items wait for your OK' },
    ]);
    expect(
      notificationsFor(
        s({ uploads: { waiting: 0, held: 60, sent: 0, total: 0 } }),
        s({ uploads: { waiting: 0, held: 60, sent: 0, total: 0 } }),
      ),
    ).toEqual([]);
    expect(notificationsFor(ok, s({ connection: 'auth-error' })).map((n) => n.kind)).toEqual(['auth-error']);
    expect(notificationsFor(s({ connection: 'auth-error' }), s({ connection: 'auth-error' }))).toEqual([]);
  });
});

describe('trayMenu', () => {
  it('holds the whole menu, with pause or resume', () => {
    const ids = trayMenu(trayView(ok, NOW), ok).map((i) => i.id);
    expect(ids).toEqual(['status', 'separator', 'open', 'search', 'open-mirror', 'sync-now', 'pause', 'activity', 'separator', 'quit']);
    const paused = s({ paused: true, conflicts: 1 });
    const ids2 = trayMenu(trayView(paused, NOW), paused).map((i) => i.id);
    expect(ids2).toContain('resume');
    expect(ids2).toContain('conflicts');
    const held = s({ conflicts: 1, heldDeletes: 1, uploads: { waiting: 0, held: 60, sent: 0, total: 0 } });
    expect(trayMenu(trayView(held, NOW), held).find((i) => i.id === 'conflicts')).toMatchObject({ label: 'Resolve 62 items…' });
  });
});
