/**
 * The answer order of one term of 1-2 code units over the base's names, built on first use
 * for a narrowed (filtered) page: every object whose folded name holds the term, sorted by
 * its OCCURRENCE key (some occurrence starts a word first, then the index of the first
 * occurrence, then object number, which is rule-7 order within those). An object's true key
 * (app/search) is never before its occurrence key (its locations are some of the
 * occurrences; equal for 1 code unit), so a walk of this list that skips the objects the
 * filters reject meets the narrowed answer in order and stops once the next occurrence key
 * is past the page's worst key (strategies/short-order.ts): a broad filter costs about
 * (limit + 1) / (its share of the term's holders) entries, not a scan of every name.
 * Built in chunks that yield (`shortOrderReady`, before a filtered query) or in one go; a
 * few are kept per base (the base never changes; removed objects are skipped as dead).
 */
import { wordBefore, type BaseData } from './base-index.js';
import { objectAt } from './postings.js';

export interface ShortOrder {
  /** Object numbers in occurrence-key order. */
  readonly list: Uint32Array;
  /** The first occurrence's index in the name, per entry. */
  readonly first: Uint32Array;
  /** Entries [0, wsEnd) have an occurrence at a word start; the rest none. */
  readonly wsEnd: number;
}

/** Terms kept per base (each list is at most 8 bytes per object holding the term). */
const KEEP = 6;
const cache = new WeakMap<BaseData, Map<string, ShortOrder>>();

function cached(b: BaseData, t: string): ShortOrder | undefined {
  const m = cache.get(b);
  const hit = m?.get(t);
  if (m && hit) {
    m.delete(t);
    m.set(t, hit);
  } // most recently used last
  return hit;
}

function keep(b: BaseData, t: string, order: ShortOrder): ShortOrder {
  let m = cache.get(b);
  if (!m) cache.set(b, (m = new Map()));
  m.set(t, order);
  while (m.size > KEEP) m.delete(m.keys().next().value!);
  return order;
}

/**
 * The scan and sort, yielding after about `chunk` objects holding the term: one indexOf per
 * name (the next search starts at the name's end), then a counting sort by (word start,
 * first index), stable in number order.
 */
export function* buildingShortOrder(b: BaseData, t: string, chunk = 10_000): Generator<void, ShortOrder> {
  const { blob, starts, n } = b;
  let objs = new Uint32Array(1024),
    firsts = new Uint32Array(1024),
    wss = new Uint8Array(1024);
  let count = 0,
    maxFirst = 0;
  let at = blob.indexOf(t, 0),
    o = 0,
    sinceYield = 0;
  while (at >= 0 && o < n) {
    o = objectAt(b, at, o);
    const s0 = starts[o]!,
      end = starts[o + 1]! - 1;
    let ws = false,
      x = at;
    for (; x >= 0 && x < end; x = blob.indexOf(t, x + 1))
      if (!wordBefore(b, o, x - s0)) {
        ws = true;
        break;
      }
    if (count === objs.length) {
      const grow = <A extends Uint32Array | Uint8Array>(a: A, z: A): A => {
        z.set(a as never);
        return z;
      };
      objs = grow(objs, new Uint32Array(count * 2));
      firsts = grow(firsts, new Uint32Array(count * 2));
      wss = grow(wss, new Uint8Array(count * 2));
    }
    objs[count] = o;
    firsts[count] = at - s0;
    wss[count] = ws ? 1 : 0;
    if (at - s0 > maxFirst) maxFirst = at - s0;
    count++;
    // the next name holding the term: reuse the inner search's hit when it is past this name
    at = x >= end ? x : blob.indexOf(t, end);
    o++;
    if (++sinceYield >= chunk) {
      sinceYield = 0;
      yield;
    }
  }
  // bucket = (no word start) * (maxFirst + 1) + first
  const w = maxFirst + 1;
  const pos = new Uint32Array(2 * w + 1);
  for (let i = 0; i < count; i++) pos[(wss[i] ? 0 : w) + firsts[i]! + 1]!++;
  for (let k = 1; k <= 2 * w; k++) pos[k]! += pos[k - 1]!;
  const list = new Uint32Array(count),
    first = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    const k = pos[(wss[i] ? 0 : w) + firsts[i]!]!++;
    list[k] = objs[i]!;
    first[k] = firsts[i]!;
    if ((i + 1) % (chunk * 8) === 0) yield;
  }
  return { list, first, wsEnd: pos[w - 1]! };
}

/** The term's answer order over base `b`, built now in one go when not kept yet. */
export function shortOrderOf(b: BaseData, t: string): ShortOrder {
  const have = cached(b, t);
  if (have) return have;
  const steps = buildingShortOrder(b, t);
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return keep(b, t, r.value);
}

/** Resolves once `shortOrderOf(b, t)` is kept, built in chunks that let the event loop run between them. */
export async function shortOrderReady(b: BaseData, t: string): Promise<void> {
  if (cached(b, t)) return;
  const steps = buildingShortOrder(b, t);
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) {
      keep(b, t, r.value);
      return;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
