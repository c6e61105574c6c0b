import { describe, expect, it } from 'vitest';
import { CpuPacer, PACE_BURST_MS, PACE_CPU_SHARE, processClock, type PaceClock } from './cpu-pace.js';

/** A clock whose CPU the test spends and whose sleeps advance time at once (recorded). */
function fakeClock(): PaceClock & { spend(ms: number): void; slept: number[] } {
  let cpu = 0;
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    spend: (ms) => {
      cpu += ms;
      now += ms;
    },
    cpuMs: () => cpu,
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) return;
      slept.push(ms);
      now += ms;
    },
  };
}

describe('CpuPacer', () => {
  it('never waits within its burst; past it, waits until the CPU used is its share of the time since the walk began', async () => {
    const c = fakeClock();
    const p = new CpuPacer(c);
    c.spend(PACE_BURST_MS - 10);
    await p.pace();
    expect(c.slept).toEqual([]);
    c.spend(20); // 10 ms over the burst (less the share of the time gone by)
    await p.pace();
    const waited = c.slept.reduce((a, b) => a + b, 0);
    expect(waited).toBeGreaterThan(0);
    // after the wait: CPU used <= burst + share x elapsed
    expect(c.cpuMs() - PACE_BURST_MS).toBeLessThanOrEqual(PACE_CPU_SHARE * c.now() + 1e-9);
    expect(p.waitedMs).toBe(waited);
  });

  it('a walk costing 1.4 s of CPU in 10 ms steps lasts ~115 s at 1 % after a 250 ms burst, and a hurry lifts the pace at once', async () => {
    const c = fakeClock();
    const p = new CpuPacer(c);
    for (let i = 0; i < 140; i++) {
      await p.pace();
      c.spend(10);
    }
    expect(c.now() / 1000).toBeGreaterThan(100);
    expect(c.now() / 1000).toBeLessThan(130);
    // no single wait is longer than a second (a hurry or a stop is seen within it)
    expect(Math.max(...c.slept)).toBeLessThanOrEqual(1000);
    const hurried = new CpuPacer(c);
    c.spend(5000);
    hurried.hurry();
    const before = c.slept.length;
    await hurried.pace();
    expect(c.slept.length).toBe(before);
  });

  it('an aborted walk does not wait', async () => {
    const c = fakeClock();
    const p = new CpuPacer(c);
    c.spend(10_000);
    const ac = new AbortController();
    ac.abort();
    await p.pace(ac.signal);
    expect(c.slept).toEqual([]);
  });

  it("the process clock's sleep ends when its signal aborts", async () => {
    const ac = new AbortController();
    const t0 = performance.now();
    const slept = processClock.sleep(60_000, ac.signal);
    setImmediate(() => ac.abort());
    await slept;
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});
