/**
 * Log lines for people (`nas-mirror run` without --log-json): the engine's decisions in the
 * window's plain words, the technical details only when asked (issue 25 point 6); other lines
 * as time, what, where and why; anything that is not a JSON line passes through.
 */
import { describe, expect, it } from 'vitest';
import { humanLine } from './human-log.js';

const at = '2026-11-27T04:07:12.000Z';
const sent = JSON.stringify({
  t: at,
  level: 'info',
  component: 'engine',
  msg: 'renamed',
  path: 'Photos/b.jpg',
  summary: 'renamed: Photos/a.jpg -> Photos/b.jpg (queued #3)',
  reason: 'inode 1234 moved; If-Match "Ag"',
});

describe('humanLine', () => {
  it('words an engine decision as the window does, with no protocol words', () => {
    const line = humanLine(sent);
    expect(line).toMatch(/^\d\d:\d\d:\d\d Renamed “a\.jpg” to “b\.jpg”\n$/);
    expect(line).not.toMatch(/If-Match|inode|queued #/);
  });

  it('adds the path, the summary and the technical reason with details (--verbose)', () => {
    expect(humanLine(sent, { details: true })).toContain(
      'Renamed “a.jpg” to “b.jpg”  [Photos/b.jpg: renamed: Photos/a.jpg -> Photos/b.jpg (queued #3) (inode 1234 moved; If-Match "Ag")]',
    );
  });

  it('says a warning or an error as such', () => {
    const line = humanLine(JSON.stringify({ t: at, level: 'error', component: 'engine', msg: 'error', path: '', summary: 'walk stopped' }));
    expect(line).toMatch(/^\d\d:\d\d:\d\d error: Something went wrong.*walk stopped/i);
  });

  it('keeps other lines as time, what, where and why, with their other fields', () => {
    const line = humanLine(
      JSON.stringify({ t: at, level: 'warn', component: 'walk', msg: 'slow', path: 'Photos', reason: 'a 5 s page', pages: 3 }),
    );
    expect(line).toMatch(/^\d\d:\d\d:\d\d warning: slow Photos {2}pages=3 \(a 5 s page\)\n$/);
  });

  it('passes a line that is not a JSON object through, and never prints control characters', () => {
    expect(humanLine('watching /tmp/m')).toBe('watching /tmp/m\n');
    expect(
      humanLine(
        JSON.stringify({
          t: at,
          level: 'info',
          component: 'engine',
          msg: 'renamed',
          path: 'a\u001b[2Jb',
          summary: 'renamed: x -> a\u001b[2Jb',
        }),
      ),
    ).not.toContain('\u001b');
  });
});
