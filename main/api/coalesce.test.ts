import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Coalescer } from './coalesce.js';

describe('Coalescer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('the first at once, a burst folded into one at the end of the window, each key on its own', () => {
    const fired: string[] = [];
    const c = new Coalescer<string>(
      200,
      (k) => fired.push(k),
      () => Date.now(),
    );
    c.push('content');
    expect(fired).toEqual(['content']);
    for (let i = 0; i < 10_000; i++) c.push('content');
    c.push('activity');
    expect(fired).toEqual(['content', 'activity']);
    vi.advanceTimersByTime(199);
    expect(fired).toEqual(['content', 'activity']);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['content', 'activity', 'content']);
    // quiet for longer than the window: at once again
    vi.advanceTimersByTime(1000);
    c.push('content');
    expect(fired).toEqual(['content', 'activity', 'content', 'content']);
  });

  it('close drops what waits', () => {
    const fired: string[] = [];
    const c = new Coalescer<string>(
      200,
      (k) => fired.push(k),
      () => Date.now(),
    );
    c.push('a');
    c.push('a');
    c.close();
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual(['a']);
  });
});
