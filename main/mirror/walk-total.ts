/**
 * What a walk knows of the NAS's size, which the interface never states: every folder in a
 * listing carries `childCount`, so the items KNOWN to exist so far are the root's children plus
 * the childCount of every folder met (listed in its parent). A lower bound that only grows, and
 * is the true total once every folder is met. One folder without childCount (a device that
 * omits it) makes it unknown for the rest of the walk: no total rather than a wrong one.
 * Pure: the walk (walk.ts) feeds it and hands its view on with the progress.
 */

/** A total is never said as settled before this many pages were taken. */
export const SETTLE_PAGES = 16;
/**
 * Settled: over the last items read, as many as the total still leaves to read, the known
 * total grew by at most this share of them. The quiet stretch must be as long as what is left:
 * a walk meets a library's subtrees one after another, and a stretch of leaf folders (or one
 * big folder of files, page after page) grows nothing while whole subtrees are still to be met.
 * 16 pages of quiet, the rule before s35, said 15,542 as the total of a 20,000-object demo at
 * a quarter of its walk.
 */
export const SETTLE_SHARE = 0.1;
/** How finely the look-back is marked: at most this many marks over the total. */
const MARKS = 1000;
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
  /** known and objects after each page, back to the first at or before the look-back point (see `view`). */
  private readonly pages: Mark[] = [];
  private pageCount = 0;
  /** objects over time: the samples of the last RATE_WINDOW_MS, and one before them. */
  private readonly times: Mark[] = [];

  /** `rootChildren`: the root's childCount (undefined: the NAS does not say; null: a walk of some folders only, no total). */
  constructor(rootChildren: number | undefined | null, startedAt: number) {
    this.known = rootChildren ?? null;
    this.times.push({ t: startedAt, known: 0, objects: 0 });
    this.pages.push({ t: startedAt, known: this.known ?? 0, objects: 0 });
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
    // A listing's subfolders are met (the total grows) before its objects are counted, so a mark
    // keeps the total as it was when its objects were first reached: the reports that follow
    // with no new object add none. Marks are a thousandth of the total apart at most (~2,000 of
    // them on any library): a page closer than that to the mark before the last replaces the last.
    const last = this.pages[this.pages.length - 1]!;
    const near = this.pages.length > 1 && objects - this.pages[this.pages.length - 2]!.objects < known / MARKS;
    if (objects !== last.objects) {
      if (near) this.pages[this.pages.length - 1] = { t: now, known, objects };
      else this.pages.push({ t: now, known, objects });
    }
    this.pageCount++;
    // the look-back point (objects read minus what is left) only moves on while the total
    // settles; marks before it are not needed again unless the total jumps (then it is not settled)
    const from = objects - Math.max(0, known - objects);
    while (this.pages.length > 1 && this.pages[1]!.objects <= from) this.pages.shift();
    this.times.push({ t: now, known, objects });
    // keep one sample at or before the window's start
    while (this.times.length > 2 && this.times[1]!.t <= now - RATE_WINDOW_MS) this.times.shift();
  }

  view(objects: number, now: number): TotalView {
    const known = this.known;
    const left = Math.max(0, (known ?? 0) - objects);
    const first = this.pages[0]!;
    // the quiet stretch reaches back as far as what is left to read, and grew the total by little
    const settled =
      known !== null &&
      this.pageCount > SETTLE_PAGES &&
      first.objects <= objects - left &&
      known - first.known <= SETTLE_SHARE * Math.max(left, objects - first.objects);
    const from = this.times[0]!;
    const span = now - from.t;
    const recentRate = span > 0 ? Math.round(((objects - from.objects) * 1000) / span) : 0;
    return { known, settled, recentRate };
  }
}
