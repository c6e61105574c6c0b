import { describe, expect, it } from 'vitest';
import { SLICE_MS, slicedPool } from './sliced-pool.js';

describe('slicedPool', () => {
  it('items that never wait: six workers together run one slice between two turns of the event loop', async () => {
    // a fake clock: each item costs 1 ms of it; a ticker counts the items run between turns
    let t = 0;
    let ran = 0;
    const perTurn: number[] = [];
    let ticking = true;
    let last = 0;
    const tick = (): void => {
      perTurn.push(ran - last);
      last = ran;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const items = Array.from({ length: 600 }, (_, i) => i);
    const out = await slicedPool(
      items,
      6,
      async (i) => {
        t += 1;
        ran++;
        return i * 2;
      },
      () => t,
    );
    ticking = false;
    expect(out).toEqual(items.map((i) => i * 2));
    // the slice's items, plus at most one more per worker (each ends the item it was running)
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(SLICE_MS + 6);
    expect(perTurn.filter((k) => k > 0).length).toBeGreaterThanOrEqual(600 / (SLICE_MS + 6));
  });

  it('keeps at most n items under way and gives the outcomes in order', async () => {
    let running = 0;
    let most = 0;
    const out = await slicedPool([5, 1, 4, 2, 3], 2, async (ms) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return ms;
    });
    expect(out).toEqual([5, 1, 4, 2, 3]);
    expect(most).toBe(2);
  });
});
