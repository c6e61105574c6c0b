/**
 * Candidate streams over the offline index's base (base-index.ts), all in object-number
 * order: a blob scan for terms of 1-2 code units, the lazy intersection of sorted posting
 * ranges, a merge of several streams without duplicates, and one posting range.
 */
import type { BaseData } from './base-index.js';

/** The object holding blob offset `at`, galloping forward from object `from`: starts[o] <= at < starts[o+1]. */
export function objectAt(b: BaseData, at: number, from: number): number {
  let lo = from,
    step = 1;
  while (lo + step < b.n && b.starts[lo + step]! <= at) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(lo + step, b.n);
  while (lo + 1 < hi) {
    const mid = (lo + hi) >> 1;
    if (b.starts[mid]! <= at) lo = mid;
    else hi = mid;
  }
  return lo;
}

export function* listIter(list: Uint32Array, from: number, to: number): Generator<number> {
  for (let i = from; i < to; i++) yield list[i]!;
}

/** Lazy intersection of sorted ranges of `list`; the first range drives. */
export function* intersect(list: Uint32Array, ranges: [number, number][]): Generator<number> {
  const [d0, d1] = ranges[0]!;
  const pos = ranges.slice(1).map((r) => r[0]);
  outer: for (let i = d0; i < d1; i++) {
    const v = list[i]!;
    for (let k = 1; k < ranges.length; k++) {
      const end = ranges[k]![1];
      let p = pos[k - 1]!;
      // gallop then step
      let step = 1;
      while (p + step < end && list[p + step]! < v) {
        p += step;
        step *= 2;
      }
      while (p < end && list[p]! < v) p++;
      pos[k - 1] = p;
      if (p >= end) return;
      if (list[p] !== v) continue outer;
    }
    yield v;
  }
}

/** Objects whose folded name holds `t` (1-2 code units), by scanning the blob. */
export function* blobScan(b: BaseData, t: string): Generator<number> {
  let from = 0;
  let o = 0;
  for (;;) {
    const at = b.blob.indexOf(t, from);
    if (at < 0) return;
    const lo = objectAt(b, at, o);
    yield lo;
    o = lo + 1;
    if (o >= b.n) return;
    from = b.starts[o]!;
  }
}

/** Merges ascending iterables, dropping duplicates. */
export function* mergeUnique(sources: Iterable<number>[]): Generator<number> {
  const its = sources.map((s) => s[Symbol.iterator]());
  const heads = its.map((it) => {
    const r = it.next();
    return r.done ? Infinity : r.value;
  });
  let lastOut = -1;
  for (;;) {
    let k = -1,
      v = Infinity;
    for (let i = 0; i < heads.length; i++)
      if (heads[i]! < v) {
        v = heads[i]!;
        k = i;
      }
    if (k < 0) return;
    const r = its[k]!.next();
    heads[k] = r.done ? Infinity : r.value;
    if (v !== lastOut) {
      lastOut = v;
      yield v;
    }
  }
}
