/**
 * What a walk knows of the NAS's size, which the interface never states: every folder in a
 * listing carries `childCount`, so the items KNOWN to exist so far are the root's children plus
 * the childCount of every folder met (listed in its parent). A lower bound that only grows, and
 * is the true total once every folder is met. One folder without childCount (a device that
 * omits it) makes it unknown for the rest of the walk: no total rather than a wrong one.
 * Pure: the walk (walk.ts) feeds it and hands its view on with the progress.
 */

/** Pages looked back over to tell a settled total from a growing one. */
export const SETTLE_PAGES = 16;
/** Settled: over the last SETTLE_PAGES pages the known total grew by at most this share of the items read meanwhile. */
export const SETTLE_SHARE = 0.1;
/** The recent rate (time left) is taken over this span. */
export const RATE_WINDOW_MS = 10_000;

/** The walk's total as it stands, in the progress and the status. */
export interface TotalView {
  /** Items known to exist (a lower bound), or null when the NAS does not say (no childCount, or a walk of some folders only). */
  known: number | null;
  /**
   * The known total has stopped growing fast: over the last SETTLE_PAGES pages it grew by at
   * most a tenth of the items read in them (at that pace what is left adds little), so it can
   * be said as THE total, with a percentage and the time left.
   */
  settled: boolean;
  /** Items per second over the last RATE_WINDOW_MS (the time left follows it, not the whole walk's average). */
  recentRate: number;
}

interface Mark {
  t: number;
  known: number;
  objects: number;
}

export class WalkTotal {
  private known: number | null;
  /** known and objects after each of the last pages (SETTLE_PAGES + 1 of them). */
  private readonly pages: Mark[] = [];
  /** objects over time: the samples of the last RATE_WINDOW_MS, and one before them. */
  private readonly times: Mark[] = [];

  /** `rootChildren`: the root's childCount (undefined: the NAS does not say; null: a walk of some folders only, no total). */
  constructor(rootChildren: number | undefined | null, startedAt: number) {
    this.known = rootChildren ?? null;
    this.times.push({ t: startedAt, known: 0, objects: 0 });
  }

  /** A folder met for the first time in this walk, with the childCount its parent listed (or the store holds). */
  met(childCount: number | undefined): void {
    if (this.known === null) return;
    this.known = childCount === undefined ? null : this.known + childCount;
  }

  /** A folder met turned out gone (deleted since its parent was listed): its children will not come. */
  gone(childCount: number | undefined): void {
    if (this.known !== null && childCount !== undefined) this.known = Math.max(0, this.known - childCount);
  }

  /** A page was taken: `objects` seen so far, at `now`. */
  page(objects: number, now: number): void {
    const known = this.known ?? 0;
    this.pages.push({ t: now, known, objects });
    if (this.pages.length > SETTLE_PAGES + 1) this.pages.shift();
    this.times.push({ t: now, known, objects });
    // keep one sample at or before the window's start
    while (this.times.length > 2 && this.times[1]!.t <= now - RATE_WINDOW_MS) this.times.shift();
  }

  view(objects: number, now: number): TotalView {
    const known = this.known;
    const first = this.pages[0];
    const settled =
      known !== null &&
      first !== undefined &&
      this.pages.length > SETTLE_PAGES &&
      known - first.known <= SETTLE_SHARE * (objects - first.objects);
    const from = this.times[0]!;
    const span = now - from.t;
    const recentRate = span > 0 ? Math.round(((objects - from.objects) * 1000) / span) : 0;
    return { known, settled, recentRate };
  }
}
