import { describe, expect, it } from 'vitest';
import { NO_WALK_STATUS, type AppStatus } from '../contract/shapes.js';
import { timeLeft, walkLine, walkWords, type WalkFacts } from './walk-words.js';

type Walk = AppStatus['walk'];
const first = (w: Partial<Walk>): WalkFacts => ({
  walk: { ...NO_WALK_STATUS, running: true, folders: 40, ...w },
  lastCompleteWalk: null,
  indexed: 0,
});
const again = (w: Partial<Walk>, indexed: number): WalkFacts => ({ ...first(w), lastCompleteWalk: '2026-01-01T11:00:00Z', indexed });

describe('a walk in words (header, tray, nas-mirror status)', () => {
  it('says "of at least" while the known total still grows, without a figure for the bar', () => {
    expect(walkWords(first({ objects: 12_340, known: 30_000, settled: false, recentRate: 500 }))).toEqual({
      text: '12,340 of at least 30,000 items',
      fraction: null,
    });
  });

  it('says the total, the percentage and the time left once it is settled; the bar follows the same fraction', () => {
    const w = walkWords(first({ objects: 12_340, known: 100_000, settled: true, recentRate: 730 }));
    expect(w.text).toBe('12,340 of 100,000 items (12 %) · about 2 min left');
    expect(w.fraction).toBeCloseTo(0.1234, 4);
    expect(walkLine(first({ objects: 29, known: 100, settled: true, recentRate: 20 }))).toBe(
      'Reading the NAS: 29 of 100 items (29 %) · less than a minute left',
    );
    // no rate yet: no time left, never "Infinity"
    expect(walkWords(first({ objects: 10, known: 40, settled: true, recentRate: 0 })).text).toBe('10 of 40 items (25 %)');
    // the last items may still come: never 100 % while it runs
    expect(walkWords(first({ objects: 500, known: 500, settled: true, recentRate: 10 }))).toEqual({
      text: '500 of 500 items (99 %) · less than a minute left',
      fraction: 0.99,
    });
  });

  it("a device that omits childCount (no total) keeps today's words, never a wrong total", () => {
    expect(walkLine(first({ folders: 3, objects: 2500, placed: 1200, rate: 1500, known: null }))).toBe(
      'Reading the NAS: 3 folders, 2,500 items, 1,200 placeholders placed at 1,500/s so far',
    );
    // a total below what was already seen (the NAS changed meanwhile) is not said either
    expect(walkWords(first({ folders: 1, objects: 60, known: 50, settled: true })).text).toBe('1 folder, 60 items so far');
    expect(walkLine(first({ objects: 0, known: 8 }))).toBe('Reading the NAS: starting…');
  });

  it('a re-walk compares with the last complete walk unless the known total says better', () => {
    // growing and below the last walk's size: the last walk is the better guess
    expect(walkWords(again({ folders: 20, objects: 600, known: 300, settled: false }, 1200))).toEqual({
      text: '20 folders, 600 items (about 50 %)',
      fraction: 0.5,
    });
    expect(walkWords(again({ folders: 20, objects: 600, known: null }, 1200)).text).toBe('20 folders, 600 items (about 50 %)');
    // settled: the NAS's own count now
    expect(walkWords(again({ objects: 600, known: 1500, settled: true, recentRate: 100 }, 1200)).text).toBe(
      '600 of 1,500 items (40 %) · less than a minute left',
    );
    // known to hold more than last time, still growing
    expect(walkWords(again({ objects: 600, known: 2000, settled: false }, 1200)).text).toBe('600 of at least 2,000 items');
  });

  it('rounds the time left as such an estimate deserves', () => {
    expect(timeLeft(0)).toBe('less than a minute left');
    expect(timeLeft(59)).toBe('less than a minute left');
    expect(timeLeft(60)).toBe('about 1 min left');
    expect(timeLeft(125)).toBe('about 2 min left');
    expect(timeLeft(59 * 60 + 40)).toBe('about 1 h left');
    expect(timeLeft(70 * 60)).toBe('about 1 h 10 min left');
    expect(timeLeft(64 * 60)).toBe('about 1 h left');
    expect(timeLeft(125 * 60)).toBe('about 2 h 10 min left');
    expect(timeLeft(14.4 * 3600)).toBe('about 14 h left');
    expect(timeLeft(Number.NaN)).toBe('less than a minute left');
  });
});
