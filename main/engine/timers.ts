/**
 * The engine's timers: one-shot steps (`schedule`), periodic ones (`every`) and the re-walk
 * loop, all cancelled at once when the engine stops. None is unref'd: a running engine keeps
 * its process alive until stop().
 */

/** Periodic re-walks use at most this share of one core. */
export const REWALK_CPU_SHARE = 0.01;
/** After a walk that could not reach the NAS, the next comes this soon, then twice as late each time (up to the usual spacing). */
export const UNREACHABLE_RETRY_MS = 2000;

export class EngineTimers {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  /** Set once the periodic rounds run. */
  started = false;

  /**
   * Runs `fn` once after `ms`, unless the engine stopped meanwhile. Once stopped, nothing is
   * scheduled: a step that ends after the stop (a walk the stop aborted, whose loop schedules
   * the next re-walk) must not leave a timer that holds the process open.
   */
  schedule(fn: () => void, ms: number): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(t);
  }

  /** Runs `fn` every `ms` (0 or undefined: never). */
  every(ms: number | undefined, fn: () => void): void {
    if (!ms || this.stopped) return;
    this.timers.add(setInterval(fn, ms));
  }

  /**
   * Re-walks `rewalkMs` after the last walk ended, or later when the last one cost more CPU
   * than REWALK_CPU_SHARE of the time until the next: an unchanged million-object NAS (15k
   * folders answering 304) is then re-walked every few minutes instead of keeping a core
   * busy. Local changes are sent at once whatever this says. While walks cannot reach the NAS
   * (`unreachable`: asleep, booting, the network down), the next one comes sooner: 2 s, 4 s,
   * 8 s... up to `rewalkMs`, so a NAS that wakes up is mirrored within seconds, not a minute.
   */
  rewalkLoop(rewalkMs: number, lastWalkCpuMs: () => number, walk: () => Promise<void>, unreachable: () => boolean = () => false): void {
    if (rewalkMs <= 0) return;
    let misses = 0;
    const next = (): void => {
      misses = unreachable() ? misses + 1 : 0;
      const ms =
        misses > 0
          ? Math.min(rewalkMs, UNREACHABLE_RETRY_MS * 2 ** Math.min(misses - 1, 20))
          : Math.max(rewalkMs, lastWalkCpuMs() / REWALK_CPU_SHARE);
      this.schedule(() => void walk().finally(next), ms);
    };
    next();
  }

  /** Cancels everything; nothing scheduled runs afterwards. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) {
      clearTimeout(t);
      clearInterval(t);
    }
    this.timers.clear();
  }
}
