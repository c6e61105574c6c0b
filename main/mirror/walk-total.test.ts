import { describe, expect, it } from 'vitest';
import { RATE_WINDOW_MS, SETTLE_PAGES, WalkTotal } from './walk-total.js';

/** `n` pages, each bringing `items` objects and meeting folders worth `grows` items, 100 ms apart. */
function pages(t: WalkTotal, at: { objects: number; now: number }, n: number, items: number, grows: number): void {
  for (let i = 0; i < n; i++) {
    if (grows > 0) t.met(grows);
    at.objects += items;
    at.now += 100;
    t.page(at.objects, at.now);
  }
}

describe('WalkTotal: the items a walk knows exist', () => {
  it("is the root's children plus the childCount of every folder met: a lower bound that grows", () => {
    const t = new WalkTotal(3, 0);
    expect(t.view(0, 0).known).toBe(3);
    t.met(10);
    t.met(0);
    t.met(25);
    expect(t.view(3, 10).known).toBe(38);
  });

  it('is unknown for good once a folder comes without childCount, or the root does not say (never a wrong total)', () => {
    const t = new WalkTotal(3, 0);
    t.met(10);
    t.met(undefined);
    t.met(5);
    expect(t.view(4, 10).known).toBeNull();
    expect(new WalkTotal(undefined, 0).view(0, 0).known).toBeNull();
    // a walk of some folders only (moved subtrees) has no total
    expect(new WalkTotal(null, 0).view(0, 0).known).toBeNull();
  });

  it('a folder found gone takes its children out of the total', () => {
    const t = new WalkTotal(2, 0);
    t.met(40);
    t.gone(40);
    expect(t.view(2, 10).known).toBe(2);
  });

  it('settles once it grew by at most a tenth over a stretch as long as what is left, and unsettles when it grows again', () => {
    const t = new WalkTotal(8, 0);
    const at = { objects: 0, now: 0 };
    // the upper folders: every page meets folders holding more than it brings
    pages(t, at, 30, 10, 400);
    expect(t.view(at.objects, at.now).settled).toBe(false);
    const known = 8 + 30 * 400;
    // the leaves: nothing new is met; settled once the quiet stretch (from 300 read) is as long as what is left
    let first = -1;
    while (first < 0) {
      pages(t, at, 1, 50, 0);
      if (t.view(at.objects, at.now).settled) first = at.objects;
    }
    // (the last upper page's 400 is within a tenth of what is left by then)
    expect(first).toBeGreaterThan(0.95 * ((known + 300) / 2));
    expect(first).toBeLessThan((known + 300) / 2 + 100);
    expect(t.view(at.objects, at.now)).toMatchObject({ known, settled: true });
    // a little growth (under a tenth of what is read) keeps it settled
    pages(t, at, 4, 50, 4);
    expect(t.view(at.objects, at.now).settled).toBe(true);
    // a late subtree: it grows fast again
    pages(t, at, 1, 10, 500);
    expect(t.view(at.objects, at.now).settled).toBe(false);
  });

  it('a quiet stretch shorter than what is left is not enough (one subtree read while others wait)', () => {
    // the 20,000-object demo: 15,542 known at 3,508 read, no growth until 6,100, then 17,251
    const t = new WalkTotal(8, 0);
    const at = { objects: 0, now: 0 };
    pages(t, at, 10, 350, 1553);
    expect(t.view(at.objects, at.now).known).toBe(15_538);
    pages(t, at, 50, 50, 0);
    expect(t.view(at.objects, at.now)).toMatchObject({ known: 15_538, settled: false });
  });

  it('never settles before it has seen enough pages, nor without a total', () => {
    const t = new WalkTotal(5, 0);
    const at = { objects: 0, now: 0 };
    pages(t, at, SETTLE_PAGES, 1, 0);
    expect(t.view(at.objects, at.now).settled).toBe(false);
    const none = new WalkTotal(undefined, 0);
    pages(none, { objects: 0, now: 0 }, 40, 10, 0);
    expect(none.view(400, 4000).settled).toBe(false);
  });

  it(`the recent rate is the items of the last ${RATE_WINDOW_MS / 1000} s, not the whole walk's average`, () => {
    const t = new WalkTotal(1, 0);
    const at = { objects: 0, now: 0 };
    // 20 s at 10 items a second, then 10 s at 100 a second: one page a second
    const second = (items: number): void => {
      pages(t, at, 1, items, 0);
      at.now += 900;
    };
    for (let i = 0; i < 20; i++) second(10);
    for (let i = 0; i < 10; i++) second(100);
    at.now -= 900;
    expect(t.view(at.objects, at.now).recentRate).toBeGreaterThanOrEqual(90);
    expect(t.view(at.objects, at.now).recentRate).toBeLessThanOrEqual(110);
  });
});
