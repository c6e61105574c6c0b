import { describe, expect, it } from 'vitest';
import { IdFilter } from './id-filter.js';

const id = (i: number): string => `o${i.toString(36).padStart(15, 'x')}`;

describe('IdFilter', () => {
  it('holds every id added, and rejects almost every other one (a store read skipped)', () => {
    const f = new IdFilter();
    const n = 1_000_000;
    for (let i = 0; i < n; i++) f.add(id(i));
    let missed = 0; // one expect, not a million: the test is the filter, not vitest's matcher
    for (let i = 0; i < n; i++) if (!f.mayHold(id(i))) missed++;
    expect(missed).toBe(0);
    let maybe = 0;
    for (let i = n; i < n + 100_000; i++) if (f.mayHold(id(i))) maybe++;
    // ~0.5 % expected at a million ids
    expect(maybe).toBeLessThan(2_000);
    expect(new IdFilter().mayHold(id(1))).toBe(false);
  });
});
