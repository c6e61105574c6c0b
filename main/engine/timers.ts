/**
 * The engine's timers: one-shot steps (`schedule`), periodic ones (`every`) and the re-walk
 * loop, all cancelled at once when the engine stops. None is unref'd: a running engine keeps
 * its process alive until stop().
 */

/** Periodic re-walks use at most this share of one core. */
export const REWALK_CPU_SHARE = 0.01;

export class EngineTimers {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  /** Set once the periodic rounds run. */
  started = false;

  /** Runs `fn` once after `ms`, unless the engine stopped meanwhile. */
  schedule(fn: () => void, ms: number): void {
    const t = setTimeout(() => { this.timers.delete(t); if (!this.stopped) fn(); }, ms);
    this.timers.add(t);
  }

  /** Runs `fn` every `ms` (0 or undefined: never). */
  every(ms: number | undefined, fn: () => void): void {
    if (!ms) return;
    this.timers.add(setInterval(fn, ms));
  }

  /**
   * Re-walks `rewalkMs` after the last walk ended, or later when the last one cost more CPU
   * than REWALK_CPU_SHARE of the time until the next: an unchanged million-object NAS (15k
   * folders answering 304) is then re-walked every few minutes instead of keeping a core
   * busy. Local changes are sent at once whatever this says.
   */
  rewalkLoop(rewalkMs: number, lastWalkCpuMs: () => number, walk: () => Promise<void>): void {
    if (rewalkMs <= 0) return;
    const next = (): void => this.schedule(() => void walk().finally(next), Math.max(rewalkMs, lastWalkCpuMs() / REWALK_CPU_SHARE));
    next();
  }

  /** Cancels everything; nothing scheduled runs afterwards. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) { clearTimeout(t); clearInterval(t); }
    this.timers.clear();
  }
}
