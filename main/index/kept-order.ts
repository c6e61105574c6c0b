/**
 * Operators-only pages (filters, no text) in the order of search.md rule 7 with no term:
 * (name length, name by code point, id), the order the offline index's base numbers its
 * objects in (base-index.ts). The base is that order kept for free, and the overlay (objects
 * changed since the base was built: few) is merged in, so a page is the first limit + 1
 * objects the filters keep from the cursor on: a walk of the numbers with one typed-array
 * test each (about (limit + 1) / the filters' share of the mirror of them). A filter too
 * sparse for that (the walk passes its budget) continues from the narrowing's list of kept
 * numbers, one pass over the columns cached per filters and facts version. Never a sort
 * after each change, nor a pass over the whole mirror per page.
 */
import { idOf, nameOf, type BaseData } from './base-index.js';
import { numberOrder } from './number-order.js';
import type { Named, Narrowing } from './engine.js';
import { lowerBound } from './lower-bound.js';

/**
 * The first `k` objects after `after` that `narrow` keeps: base numbers not `dead`, and the
 * overlay's `extra` docs (which replace their base copies, already dead).
 */
export function firstKept(
  b: BaseData,
  dead: Uint8Array,
  extra: Iterable<Named>,
  k: number,
  after: Named | null,
  narrow: Narrowing,
  budget = Math.max(WALK_MIN, k * WALK_PER_ITEM),
): Named[] {
  const fromBase: Named[] = [];
  const take = (o: number): void => {
    fromBase.push({ name: nameOf(b, o), id: idOf(b, o) });
  };
  // a walk with one test per number while the filters keep enough of them; past the budget
  // (a sparse filter), the rest from the narrowing's list of kept numbers (one pass over the
  // columns, cached per filters and facts version)
  // the kept list when it is built already (cheaper than any walk), else past the budget
  const built = narrow.numbersIfBuilt?.();
  for (let o = after ? firstAfter(b, after) : 0, steps = 0; o < b.n && fromBase.length < k; o++) {
    if (built || (++steps > budget && narrow.numbers)) {
      const kept = built ?? narrow.numbers!();
      for (let i = lowerBound(kept, o); i < kept.length && fromBase.length < k; i++) if (dead[kept[i]!] !== 1) take(kept[i]!);
      break;
    }
    if (dead[o] !== 1 && narrow.number(o)) take(o);
  }
  const fromExtra: Named[] = [];
  for (const d of extra) {
    if ((after && numberOrder(d, after) <= 0) || !narrow.id(d.id)) continue;
    insertBest(fromExtra, { name: d.name, id: d.id }, k);
  }
  // merge the two sorted lists, first k
  const out: Named[] = [];
  for (let i = 0, j = 0; out.length < k && (i < fromBase.length || j < fromExtra.length);) {
    if (j >= fromExtra.length || (i < fromBase.length && numberOrder(fromBase[i]!, fromExtra[j]!) < 0)) out.push(fromBase[i++]!);
    else out.push(fromExtra[j++]!);
  }
  return out;
}

/**
 * True when a walk from the first number finds `k` objects `narrow` keeps within the walk's
 * budget (else a page would continue from the narrowing's kept list: worth building ahead).
 */
export function walkFills(b: BaseData, dead: Uint8Array, k: number, narrow: Narrowing): boolean {
  const end = Math.min(b.n, Math.max(WALK_MIN, k * WALK_PER_ITEM));
  let found = 0;
  for (let o = 0; o < end && found < k; o++) if (dead[o] !== 1 && narrow.number(o)) found++;
  return found >= k || end === b.n;
}

/** Numbers walked one by one before the kept list is used: at least this many, or this many per item wanted. */
const WALK_MIN = 20_000;
const WALK_PER_ITEM = 1_000;

/** The first base number whose (length, name, id) is after `after` (binary search). */
function firstAfter(b: BaseData, after: Named): number {
  let lo = 0,
    hi = b.n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (numberOrder({ name: nameOf(b, mid), id: idOf(b, mid) }, after) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Keeps `best` the smallest `k` in order, with `x` considered. */
export function insertBest<T extends Named>(best: T[], x: T, k: number): void {
  if (best.length === k && numberOrder(best[k - 1]!, x) <= 0) return;
  let lo = 0,
    hi = best.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (numberOrder(best[mid]!, x) <= 0) lo = mid + 1;
    else hi = mid;
  }
  best.splice(lo, 0, x);
  if (best.length > k) best.pop();
}
