/**
 * Background walks at a share of one core. A restart's catch-up walk and the periodic re-walks
 * (the app's own, not one the user asked for) wait between their listings whenever the
 * process has used more CPU since the walk began than a small burst plus PACE_CPU_SHARE of the
 * time since: a million-object NAS's catch-up walk (~1.4 s of CPU in ~9 s at full speed, 3 % of
 * a core over the minute after ready, s33) then takes a minute or two at ~1 %, and a small
 * library's walk, under the burst, never waits. The process's CPU is what is counted (every
 * thread: the index's worker, SQLite's), since that is what the user sees.
 * "Sync now" lifts the pace for the rest of the walk (`hurry`).
 */

/** A paced walk uses at most this share of one core, after its burst. */
export const PACE_CPU_SHARE = 0.01;
/** CPU a paced walk uses at full speed before any wait (ms): a library of up to ~100k objects walks unpaced. */
export const PACE_BURST_MS = 250;
/** The longest single wait (ms): a hurry or a stop is seen within it. */
const MAX_WAIT_MS = 1000;

export interface PaceClock {
  /** CPU used by the process so far (ms, every thread). */
  cpuMs(): number;
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export class CpuPacer {
  private readonly cpu0: number;
  private readonly t0: number;
  private hurried = false;
  /** Time spent waiting so far (ms). */
  waitedMs = 0;

  constructor(
    private readonly clock: PaceClock,
    private readonly share = PACE_CPU_SHARE,
    private readonly burstMs = PACE_BURST_MS,
  ) {
    this.cpu0 = clock.cpuMs();
    this.t0 = clock.now();
  }

  /** No more waits in this walk (the user asked for it). */
  hurry(): void {
    this.hurried = true;
  }

  /** Waits while the process is over its budget since the walk began (not after a hurry or an abort). */
  async pace(signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (this.hurried || signal?.aborted) return;
      const used = this.clock.cpuMs() - this.cpu0;
      const over = used - this.burstMs - this.share * (this.clock.now() - this.t0);
      if (over <= 0) return;
      const ms = Math.min(MAX_WAIT_MS, over / this.share);
      const t = this.clock.now();
      await this.clock.sleep(ms, signal);
      this.waitedMs += this.clock.now() - t;
    }
  }
}

/** `PaceClock` on this process: `process.cpuUsage`, the wall clock, an abortable timer. */
export const processClock: PaceClock = {
  cpuMs: () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  },
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = (): void => {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};
