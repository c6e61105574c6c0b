/**
 * The walk's known total against the real service (issue 25 point 12): the root's children
 * plus the childCount of every folder met is a lower bound all along and the true total at the
 * end, settled before the walk ends; a re-walk answered 304 counts the same from the stored
 * childCounts; a device without childCount gives no total at all, never a wrong one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncOnce } from '../../../main/mirror/sync.js';
import type { WalkProgress } from '../../../main/mirror/walk.js';
import { startTestService } from '../../../server/testing.js';
import { openMirror, serviceTree, type Mirror } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function demoMirror(quirks?: string, objects = 3000): Promise<{ m: Mirror; total: number }> {
  const svc = await startTestService({ demo: { objects, seed: 7 }, ...(quirks ? { quirks } : {}) });
  cleanups.push(() => svc.stop());
  const m = await openMirror(svc);
  cleanups.push(() => m.close());
  return { m, total: (await serviceTree(m.client)).size };
}

async function walkWatched(m: Mirror): Promise<WalkProgress[]> {
  const seen: WalkProgress[] = [];
  const r = await syncOnce(m.client, m.store, m.applier, { onProgress: (p) => seen.push(p) });
  expect(r.complete).toBe(true);
  return seen;
}

describe("the walk's known total on the real service", () => {
  it('is a growing lower bound, settles before the walk ends, and ends at the true total', async () => {
    // 20,000 objects: the demo's subtrees come one after another, and its total stays put for
    // stretches of a quarter of the walk before the last ones (the old rule settled there, wrong)
    const { m, total } = await demoMirror(undefined, 20_000);
    expect(total).toBe(20_000);
    const seen = await walkWatched(m);
    let before = 0;
    for (const p of seen) {
      expect(p.known).not.toBeNull();
      expect(p.known!).toBeGreaterThanOrEqual(before);
      expect(p.known!).toBeLessThanOrEqual(total);
      expect(p.objects).toBeLessThanOrEqual(p.known!);
      before = p.known!;
    }
    expect(seen.at(-1)).toMatchObject({ known: total, objects: total });
    // said as THE total before the walk ends, and right then: it settles once the total stood
    // still over as many items as it leaves to read (here about four fifths of the way)
    const settled = seen.find((p) => p.settled)!;
    expect(settled.known).toBe(total);
    expect(settled.objects).toBeLessThan(total * 0.9);
    // it only settles once every folder was met here (the demo's leaves hold no folder)
    for (const p of seen) if (p.settled) expect(p.known).toBe(total);
  });

  it('a re-walk answered 304 counts the same total from the stored childCounts', async () => {
    const { m, total } = await demoMirror();
    await walkWatched(m);
    const again = await walkWatched(m);
    expect(again.at(-1)).toMatchObject({ known: total, objects: total });
    for (const p of again) expect(p.known!).toBeLessThanOrEqual(total);
  });

  it('a device that omits childCount gives no total at all, and the walk still mirrors everything', async () => {
    const { m, total } = await demoMirror('no-child-count');
    const seen = await walkWatched(m);
    expect(seen.length).toBeGreaterThan(10);
    for (const p of seen) expect(p).toMatchObject({ known: null, settled: false });
    expect(seen.at(-1)!.objects).toBe(total);
    expect(m.store.count()).toBe(total);
  });
});
