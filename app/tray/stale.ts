/**
 * When the mirror is "out of date", the one definition (the engine's state machine, the API's
 * status and the tray use it): no complete walk for three re-walk periods, at least 10 min.
 */

/** Seconds without a complete walk after which the mirror is stale, for a re-walk period. */
export function staleAfterSec(rewalkSec: number): number {
  return Math.max(600, rewalkSec * 3);
}

/** True when the last complete walk is missing or older than `staleAfter` seconds at `nowMs`. */
export function walkIsStale(lastCompleteWalk: string | null, staleAfter: number, nowMs: number): boolean {
  if (lastCompleteWalk === null) return true;
  const t = Date.parse(lastCompleteWalk);
  return !Number.isFinite(t) || nowMs - t > staleAfter * 1000;
}
