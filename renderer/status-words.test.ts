import type { ActivityKind } from '../app/model/activity-kinds.js';
import { describe, expect, it } from 'vitest';
import { NO_WALK_STATUS, type ActivityEntry, type AppStatus } from '../app/contract/shapes.js';
import { activityLines, freedSummary } from '../app/activity/words.js';
import { statusWords, walkShown } from './status-words.js';

const now = Date.parse('2026-01-01T12:00:00Z');
const base: AppStatus = {
  connection: 'online',
  endpoint: 'http://127.0.0.1:45331',
  via: 'url',
  paused: false,
  mirrorMissing: false,
  walk: NO_WALK_STATUS,
  outbox: 0,
  conflicts: 0,
  heldDeletes: 0,
  uploads: { waiting: 0, held: 0, sent: 0, total: 0 },
  lastCompleteWalk: '2026-01-01T11:59:50Z',
  staleAfterSec: 600,
  mirrorFolder: '/home/u/NAS',
  indexed: 1200,
  error: null,
};

describe('the header in words', () => {
  it('offline: the host, what waits, the raw error only in the details', () => {
    const w = statusWords(
      { ...base, connection: 'offline', outbox: 1, error: { code: 'NetworkError', message: 'POST 127.0.0.1:45331: ECONNREFUSED' } },
      now,
    );
    expect(w.line).toBe("Can't reach 127.0.0.1:45331 right now. 1 change waits here and will be sent when it is back.");
    expect(w.line).not.toMatch(/ECONNREFUSED/);
    expect(w.details).toMatch(/ECONNREFUSED/);
  });
  it("the app's own pauses are said as such, not as an unreachable NAS", () => {
    const crashed = statusWords(
      {
        ...base,
        connection: 'offline',
        error: {
          code: 'EngineRestarting',
          message:
            'the sync engine stopped unexpectedly (ended by SIGKILL); starting it again in 1 s (nothing is lost: pending changes are saved)',
        },
      },
      now,
    );
    expect(crashed.line).toBe('The sync engine stopped and is starting again: nothing is lost. Search still works.');
    expect(
      statusWords({ ...base, connection: 'offline', error: { code: 'MirrorSwitching', message: 'starting a new mirror…' } }, now).line,
    ).toBe('Starting a new mirror…');
    // a NAS answering 503 is still the NAS
    expect(
      statusWords({ ...base, connection: 'offline', error: { code: 'Unavailable', message: 'service unavailable' } }, now).line,
    ).toMatch(/^Can't reach 127\.0\.0\.1:45331/);
  });
  it('a NAS that hangs (requests time out) is "not answering", even while a walk waits on it (issue 25 point 3)', () => {
    const hung = {
      ...base,
      connection: 'offline' as const,
      error: { code: 'Timeout', message: 'the NAS is not answering (no reply within the request timeout); retrying' },
    };
    expect(statusWords({ ...hung, outbox: 1 }, now).line).toBe(
      '127.0.0.1:45331 is not answering: retrying. 1 change waits here and will be sent when it is back.',
    );
    expect(statusWords({ ...hung, walk: { ...NO_WALK_STATUS, running: true } }, now).line).toBe(
      '127.0.0.1:45331 is not answering: retrying. Search still works.',
    );
    expect(statusWords({ ...hung, endpoint: null }, now).line).toBe('The NAS is not answering: retrying. Search still works.');
  });
  it('a refused sign-in or token and a missing one point to Settings', () => {
    expect(statusWords({ ...base, connection: 'auth-error', error: { code: 'Unauthorized', message: 'Unauthorized' } }, now)).toMatchObject(
      { line: 'The NAS no longer accepts the sign-in: choose Sign in in Settings (or paste a new access token there).', fix: 'settings' },
    );
    expect(
      statusWords(
        {
          ...base,
          connection: 'unconfigured',
          error: { code: 'Unauthorized', message: 'not signed in to this NAS: use "Sign in" in Settings (or paste an access token there)' },
        },
        now,
      ),
    ).toMatchObject({
      line: 'Not signed in to this NAS yet: choose Sign in in Settings (or paste an access token there).',
      fix: 'settings',
    });
    // no keychain on this desktop: the sign-in is gone after a restart, and the line says why
    expect(
      statusWords(
        {
          ...base,
          connection: 'unconfigured',
          error: {
            code: 'Unauthorized',
            message:
              'not signed in to this NAS (this desktop has no keychain: a sign-in lasts until the app quits): use "Sign in" in Settings',
          },
        },
        now,
      ).line,
    ).toBe(
      'Not signed in to this NAS yet: choose Sign in in Settings (or paste an access token there). This desktop has no keychain, so a sign-in lasts until the app quits.',
    );
  });
  it('walks: starting, counts, a percent when the last walk says what to expect; plurals right', () => {
    const first = (w: Partial<AppStatus['walk']>): string =>
      statusWords({ ...base, lastCompleteWalk: null, walk: { ...NO_WALK_STATUS, running: true, ...w } }, now).line;
    expect(first({})).toBe('Reading the NAS: starting…');
    expect(first({ folders: 1, objects: 1 })).toBe('Reading the NAS: 1 folder, 1 item so far');
    expect(statusWords({ ...base, walk: { ...NO_WALK_STATUS, running: true, folders: 20, objects: 600 } }, now).line).toBe(
      'Reading the NAS: 20 folders, 600 items (about 50 %)',
    );
    expect(first({ folders: 3, objects: 2500, placed: 1200, rate: 1500 })).toBe(
      'Reading the NAS: 3 folders, 2,500 items, 1,200 placeholders placed at 1,500/s so far',
    );
  });
  it('a walk waiting on a NAS that does not answer is not spoken of (no line, no progress bar): the link says why', () => {
    const walk = { ...NO_WALK_STATUS, running: true };
    const hung = { ...base, connection: 'offline' as const, walk, error: { code: 'Timeout', message: 'the NAS is not answering' } };
    expect(walkShown(hung)).toBe(false);
    expect(statusWords(hung, now).line).toBe('127.0.0.1:45331 is not answering: retrying. Search still works.');
    expect(walkShown({ ...base, walk })).toBe(true);
    expect(walkShown({ ...base, connection: 'offline', walk })).toBe(true); // connecting: no answer yet, no error
    expect(walkShown(base)).toBe(false);
  });
  it('a first walk: the items it knows exist, then the total with the time left; the other counts in the details', () => {
    const walk = { ...base.walk, running: true, folders: 40, placed: 900, rate: 800 };
    const growing = statusWords(
      { ...base, lastCompleteWalk: null, walk: { ...walk, objects: 12_340, known: 30_000, recentRate: 700 } },
      now,
    );
    expect(growing.line).toBe('Reading the NAS: 12,340 of at least 30,000 items');
    expect(growing.details).toContain('This walk so far: 40 folders, 900 placeholders placed, 800 items a second');
    expect(
      statusWords(
        { ...base, lastCompleteWalk: null, walk: { ...walk, objects: 12_340, known: 100_000, settled: true, recentRate: 730 } },
        now,
      ).line,
    ).toBe('Reading the NAS: 12,340 of 100,000 items (12 %) · about 2 min left');
  });
  it('what waits for the user, and up to date', () => {
    expect(statusWords({ ...base, heldDeletes: 1 }, now)).toMatchObject({ line: '1 held delete waits for you', fix: 'conflicts' });
    expect(statusWords({ ...base, conflicts: 2, heldDeletes: 1 }, now).line).toBe('2 conflicts and 1 held delete wait for you');
    // a NAS that looks empty is said as such, not as an ordinary held delete
    expect(
      statusWords({ ...base, heldDeletes: 1, error: { code: 'NasLooksEmpty', message: 'the NAS now looks empty' } }, now),
    ).toMatchObject({
      line: 'Your NAS now looks empty: nothing was removed here. Choose in Conflicts whether to keep your placeholders.',
      fix: 'conflicts',
    });
    expect(statusWords(base, now).line).toBe('Up to date · checked 10s ago');
  });

  it('new files: uploading in words while they go, and waiting for your OK when many came at once', () => {
    expect(statusWords({ ...base, outbox: 0, uploads: { waiting: 3, held: 0, sent: 0, total: 0 } }, now)).toMatchObject({
      line: 'Uploading 3 new items to the NAS…',
      fix: null,
    });
    expect(statusWords({ ...base, outbox: 0, uploads: { waiting: 1, held: 0, sent: 0, total: 0 } }, now).line).toBe(
      'Uploading 1 new item to the NAS…',
    );
    // the bytes of the files going up now (issue 23: progress in the window)
    expect(statusWords({ ...base, outbox: 0, uploads: { waiting: 3, held: 0, sent: 120 * 2 ** 20, total: 1.5 * 2 ** 30 } }, now).line).toBe(
      'Uploading 3 new items to the NAS… 120 MB of 1.5 GB',
    );
    expect(statusWords({ ...base, outbox: 2, uploads: { waiting: 3, held: 0, sent: 0, total: 0 } }, now).line).toBe(
      'Sending 2 changes and uploading 3 new items to the NAS…',
    );
    expect(statusWords({ ...base, outbox: 2 }, now).line).toBe('Sending 2 changes to the NAS…');
    expect(statusWords({ ...base, uploads: { waiting: 0, held: 12, sent: 0, total: 0 } }, now)).toMatchObject({
      line: '12 new items wait for your OK to upload',
      fix: 'conflicts',
    });
    expect(statusWords({ ...base, uploads: { waiting: 0, held: 1, sent: 0, total: 0 } }, now).line).toBe(
      '1 new item waits for your OK to upload',
    );
    expect(statusWords({ ...base, conflicts: 1, uploads: { waiting: 0, held: 60, sent: 0, total: 0 } }, now).line).toBe(
      '1 conflict waits for you; 60 new items wait for your OK to upload',
    );
    // offline: what waits here, uploads included
    expect(
      statusWords(
        {
          ...base,
          connection: 'offline',
          outbox: 1,
          uploads: { waiting: 2, held: 0, sent: 0, total: 0 },
          error: { code: 'NetworkError', message: 'x' },
        },
        now,
      ).line,
    ).toBe("Can't reach 127.0.0.1:45331 right now. 1 change and 2 new items wait here and will be sent when it is back.");
  });

  it('never up to date while the mirror folder is still being compared after a start', () => {
    expect(statusWords({ ...base, checking: true }, now).line).toBe(
      'Checking the mirror folder for changes made while the app was stopped…',
    );
    expect(statusWords({ ...base, checking: false }, now).line).toBe('Up to date · checked 10s ago');
  });

  it('says so while search catches up with the newest items (a first walk of many), never a bare "Up to date"', () => {
    expect(statusWords({ ...base, indexing: true }, now).line).toBe(
      'Up to date · search is catching up with the newest items… · checked 10s ago',
    );
    expect(statusWords({ ...base, indexing: true, indexingPercent: 40 }, now).line).toBe(
      'Up to date · search is catching up with the newest items… 40 % · checked 10s ago',
    );
    expect(statusWords({ ...base, indexing: false }, now).line).toBe('Up to date · checked 10s ago');
  });
});

const entry = (seq: number, kind: ActivityKind, path: string, summary: string, reason = 'r', undoable = false): ActivityEntry => ({
  id: String(seq),
  at: new Date(now + seq * 1000).toISOString(),
  kind,
  path,
  summary,
  reason,
  undoable,
});

describe('activity in words', () => {
  it('a rename and its send are one line, done on the NAS; the engine words stay in the details', () => {
    const lines = activityLines([
      entry(2, 'sent', '/Trips/Rome trip 2009.mp4', 'NAS patch #4 applied (local)', 'If-Match "Ag"; new eTag "BA"'),
      entry(
        1,
        'renamed',
        '/Trips/Rome trip 2009.mp4',
        'renamed: /Trips/Trip to Rome 2009.mp4 -> /Trips/Rome trip 2009.mp4 (queued #4)',
        'inode 2328917 matched (file)',
        true,
      ),
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ text: 'Renamed “Trip to Rome 2009.mp4” to “Rome trip 2009.mp4”', state: 'done', group: 'mine' });
    expect(lines[0]!.raw.map((r) => r.reason)).toEqual(['inode 2328917 matched (file)', 'If-Match "Ag"; new eTag "BA"']);
  });
  it("an Organize batch and its undo: the batch's own words; the undo waits until all of it is settled, then is done on the NAS", () => {
    const undo = entry(
      2,
      'undo',
      '',
      'undo of organized 3 objects: rename "{year} {name}": 3 inverse patches queued (#8..#10)',
      'you asked to undo the batch',
    );
    const batch = entry(1, 'organized', '', 'organized 3 objects: rename "{year} {name}" (queued #5..#7)', 'you applied an Organize plan');
    const words = 'Undid the Organize batch of 3 items (rename "{year} {name}"): 3 changes go back on the NAS';
    expect(activityLines([undo, batch]).map((l) => [l.text, l.state])).toEqual([
      [words, 'waiting'],
      ['Organized 3 items: rename "{year} {name}"', null],
    ]);
    // the run's one "sent" once the last of it is settled: folded into the undo's line
    const sent = entry(3, 'sent', '', 'NAS undo #8..#10: 3 of 3 applied (organize-undo)', 'every change of the undo is on the NAS');
    const lines = activityLines([sent, undo, batch]);
    expect(lines.map((l) => [l.text, l.state])).toEqual([
      [words, 'done'],
      ['Organized 3 items: rename "{year} {name}"', null],
    ]);
    expect(lines[0]!.raw).toEqual([undo, sent]);
    // some the NAS did not take: said, and no "done" claimed
    const part = entry(3, 'sent', '', 'NAS undo #8..#10: 2 of 3 applied (organize-undo)', '1 of them were not taken');
    expect(activityLines([part, undo]).map((l) => [l.text, l.state])).toEqual([
      [`${words} (2 of 3 changes done on the NAS; 1 wait in Conflicts)`, null],
    ]);
    // alone (its undo older than the list), in words, never “”
    expect(activityLines([sent]).map((l) => l.text)).toEqual(['Undo of an Organize batch: done on the NAS']);
  });
  it("an undo's line follows its own send, not the send of the change it undid", () => {
    const lines = activityLines([
      entry(3, 'sent', '/a/b.txt', 'NAS patch #13 applied (undo)'),
      entry(2, 'undo', '/a/b.txt', 'undo of renamed: /a/a.txt -> /a/b.txt (queued #5) (queued #13)'),
      entry(1, 'sent', '/a/b.txt', 'NAS patch #5 applied (local)'),
      entry(0, 'renamed', '/a/b.txt', 'renamed: /a/a #2.txt -> /a/b.txt (queued #5)'),
    ]);
    expect(lines.map((l) => [l.text, l.state, l.raw.length])).toEqual([
      ['Undid a change to “b.txt”', 'done', 2],
      ['Renamed “a #2.txt” to “b.txt”', 'done', 2],
    ]);
  });
  it('counts in the engine records, grouped or not, and a freed record old and new, read the same', () => {
    const text = (kind: ActivityKind, path: string, summary: string): string => activityLines([entry(1, kind, path, summary)])[0]!.text;
    expect(text('held', '', 'held 1,200 deletes for confirmation')).toBe(text('held', '', 'held 1200 delete(s) for confirmation'));
    expect(text('held', '', 'held 1,200 deletes for confirmation')).toMatch(/^1,200 deletes wait /);
    expect(text('remote-added', '', 'placed 1,200 new placeholders')).toBe('1,200 new items from the NAS');
    expect(text('deleted', '/a/b', 'delete queued #3 (1,500 objects)')).toBe('Deleted “b” (1,500 items)');
    const freed = 'Freed up 4.2 MB (“Docs”): 3 files are placeholders again; 1 file you changed stays as it is';
    expect(text('freed', '/Docs', 'freed 4404019 bytes: 3 file(s) are placeholders again; 1 file(s) you changed kept as they are')).toBe(
      freed,
    );
    expect(text('freed', '/Docs', freedSummary(4404019, 3, 1))).toBe(freed);
  });
  it('a run of files saved in place by an app is one line', () => {
    const lines = activityLines(
      Array.from({ length: 113 }, (_, i) =>
        entry(200 - i, 'replaced', `/a/f${i}`, 'content replaced in place (atomic save): no remote change'),
      ),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]!.text).toBe('“f0” was saved in place by an app (nothing to change on the NAS) (and 112 more like it)');
  });
});
