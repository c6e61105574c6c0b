import { afterEach, describe, expect, it, vi } from 'vitest';
import { EngineTimers, UNREACHABLE_RETRY_MS } from './timers.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('EngineTimers.stop', () => {
  it('nothing scheduled after the stop holds the process: a walk the stop aborted ends and its loop schedules nothing', async () => {
    const t = new EngineTimers();
    let endWalk!: () => void;
    let walks = 0;
    let cpu = 0;
    t.rewalkLoop(
      1,
      () => cpu,
      () => {
        walks++;
        cpu = 30_000; // a 1M first walk's CPU: the next re-walk would come 50 min later
        return new Promise<void>((res) => (endWalk = res));
      },
    );
    await waitUntil(() => walks === 1);
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    t.stop();
    endWalk();
    await new Promise((res) => setImmediate(res));
    t.schedule(() => undefined, 60_000);
    t.every(60_000, () => undefined);
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBe(before);
    expect(walks).toBe(1);
  });
});

/** Polls `ok` every few ms (real timers). */
async function waitUntil(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((res) => setTimeout(res, 5));
}

describe('EngineTimers.rewalkLoop', () => {
  it('re-walks every rewalkMs; while the NAS cannot be reached, after 2 s, 4 s, 8 s... up to rewalkMs; back to rewalkMs once it answers', async () => {
    vi.useFakeTimers();
    const t = new EngineTimers();
    let reachable = false;
    const at: number[] = [];
    const t0 = Date.now();
    t.rewalkLoop(
      60_000,
      () => 0,
      async () => {
        at.push(Date.now() - t0);
      },
      () => !reachable,
    );
    // the walk at start failed: the first retry comes after 2 s, then 4, 8, 16, 32, then 60 (capped)
    await vi.advanceTimersByTimeAsync((2 + 4 + 8 + 16 + 32 + 60) * 1000);
    const gaps = at.map((x, i) => x - (i ? at[i - 1]! : 0));
    expect(gaps).toEqual([1, 2, 4, 8, 16, 30].map((k) => k * UNREACHABLE_RETRY_MS));
    // the NAS answers: the walk after that one is spaced as usual
    reachable = true;
    await vi.advanceTimersByTimeAsync(60_000 + 60_000);
    const after = at.slice(6).map((x, i) => x - at[5 + i]!);
    expect(after).toEqual([60_000, 60_000]);
    t.stop();
  });

  it('spaces walks by their CPU cost when the NAS answers', async () => {
    vi.useFakeTimers();
    const t = new EngineTimers();
    const at: number[] = [];
    const t0 = Date.now();
    // a walk costing 1.5 s of CPU: at most 1 % of a core, so one every 150 s
    t.rewalkLoop(
      60_000,
      () => 1500,
      async () => {
        at.push(Date.now() - t0);
      },
    );
    await vi.advanceTimersByTimeAsync(300_000);
    expect(at).toEqual([150_000, 300_000]);
    t.stop();
  });
});
