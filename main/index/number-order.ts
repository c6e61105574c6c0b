/**
 * The build order of the offline index: (name length, name by code point, id by code
 * point), the tail of rule 7's key. Sorted without comparing strings: objects are bucketed
 * by name length (counting sort), then each bucket is sorted by an LSD radix sort over a
 * column-major matrix of its names' and ids' code units (typed arrays, no per-object
 * temporaries). A JS comparator over a million objects costs seconds; a Map of distinct
 * names plus a native string sort cost over a second at 1M.
 */
import { compareCodePoints } from '../../app/search/index.js';

/** Rule-7 tail order: name length, name by code point, id by code point. */
export function numberOrder(a: { name: string; id: string }, b: { name: string; id: string }): number {
  return a.name.length - b.name.length || compareCodePoints(a.name, b.name) || compareCodePoints(a.id, b.id);
}

/**
 * A UTF-16 code unit mapped so that unit order is code point order (surrogates above the
 * rest of the BMP), as `codePointOrderKey`. Never 0 for a unit of a name or id (they hold
 * no NUL), so 0 pads a shorter id below every longer one.
 */
const cpUnit = (c: number): number => (c >= 0xe000 ? c - 0x800 : c >= 0xd800 ? c + 0x2000 : c);

/**
 * Strings joined into one flat string, with n+1 starts: one native join instead of reading a
 * million (often cons) strings from JS.
 */
export interface Joined {
  text: string;
  start: Uint32Array;
}

export function joined(strings: readonly string[]): Joined {
  const start = new Uint32Array(strings.length + 1);
  for (let i = 0; i < strings.length; i++) start[i + 1] = start[i]! + strings[i]!.length;
  return { text: strings.join(''), start };
}

/** The number order of objects (names and ids in input order): `order[o]` is the input index of object number o. */
export function numberOrderOf(names: Joined, ids: Joined): Uint32Array {
  const buckets = bucketsByLength(names, ids);
  const { n, maxLen, lenStart, byLen } = buckets;
  const order = new Uint32Array(n);
  const sort = radixSpace(buckets, names, ids);
  for (let len = 0; len <= maxLen; len++) {
    const a = lenStart[len]!,
      m = lenStart[len + 1]! - a;
    if (m <= 1) {
      if (m === 1) order[a] = byLen[a]!;
      continue;
    }
    sortBucket(sort, len, a, m);
    for (let j = 0; j < m; j++) order[a + j] = byLen[a + sort.idx[j]!]!;
  }
  return order;
}

/** The objects bucketed by name length (counting sort), with the longest id per bucket. */
interface LengthBuckets {
  n: number;
  maxLen: number;
  /** Bucket l is byLen[lenStart[l], lenStart[l+1]). */
  lenStart: Uint32Array;
  /** Input indexes, by name length. */
  byLen: Uint32Array;
  /** Per name length: the longest id among its objects. */
  idLen: Uint32Array;
}

/** Buckets the objects by name length. */
function bucketsByLength(names: Joined, ids: Joined): LengthBuckets {
  const n = names.start.length - 1;
  const ns = names.start,
    is = ids.start;
  const nameLen = new Uint32Array(n);
  let maxLen = 0;
  for (let i = 0; i < n; i++) {
    const l = ns[i + 1]! - ns[i]!;
    nameLen[i] = l;
    if (l > maxLen) maxLen = l;
  }
  const lenStart = new Uint32Array(maxLen + 2);
  for (let i = 0; i < n; i++) lenStart[nameLen[i]! + 1]!++;
  for (let l = 0; l <= maxLen; l++) lenStart[l + 1]! += lenStart[l]!;
  const byLen = new Uint32Array(n);
  const fill = lenStart.slice(0, maxLen + 1);
  const idLen = new Uint32Array(maxLen + 1);
  for (let i = 0; i < n; i++) {
    const l = nameLen[i]!;
    byLen[fill[l]!++] = i;
    const il = is[i + 1]! - is[i]!;
    if (il > idLen[l]!) idLen[l] = il;
  }
  return { n, maxLen, lenStart, byLen, idLen };
}

/** What the radix sort of every bucket shares: the buckets, the code units, and the matrix and row buffers. */
interface RadixSpace {
  buckets: LengthBuckets;
  names: Joined;
  ids: Joined;
  matrix: Uint16Array;
  /** Rows of the bucket in sorted order (after `sortBucket`); `tmp` the other buffer. */
  idx: Uint32Array;
  tmp: Uint32Array;
}

/**
 * One matrix buffer, idx and tmp for every bucket, sized for the largest (a few MB):
 * allocating a typed array per bucket added tens of MB of external memory, and V8 starts
 * a full marking of the heap (a million docs) for every 64 MB of it.
 */
function radixSpace(buckets: LengthBuckets, names: Joined, ids: Joined): RadixSpace {
  const { maxLen, lenStart, idLen } = buckets;
  let most = 0,
    mostRows = 0;
  for (let l = 0; l <= maxLen; l++) {
    const m = lenStart[l + 1]! - lenStart[l]!;
    if (m > 1) {
      most = Math.max(most, m * (l + idLen[l]!));
      mostRows = Math.max(mostRows, m);
    }
  }
  return { buckets, names, ids, matrix: new Uint16Array(most), idx: new Uint32Array(mostRows), tmp: new Uint32Array(mostRows) };
}

/** Sorts the m objects of bucket `len` (from byLen[a]): leaves their rows in order in `space.idx`. */
function sortBucket(space: RadixSpace, len: number, a: number, m: number): void {
  const { byLen, idLen } = space.buckets;
  const nt = space.names.text,
    ns = space.names.start,
    it = space.ids.text,
    is = space.ids.start;
  // column-major (a pass reads one column, which stays in cache): column k < len holds
  // the objects' name units at k, the next ones their ids' units, 0-padded
  const w = len + idLen[len]!;
  const keys = space.matrix.subarray(0, m * w);
  keys.fill(0);
  for (let j = 0; j < m; j++) {
    const i = byLen[a + j]!;
    const from = ns[i]!,
      idFrom = is[i]!,
      idTo = is[i + 1]!;
    for (let k = 0; k < len; k++) keys[k * m + j] = cpUnit(nt.charCodeAt(from + k));
    for (let k = idFrom; k < idTo; k++) keys[(len + k - idFrom) * m + j] = cpUnit(it.charCodeAt(k));
  }
  let idx = space.idx,
    tmp = space.tmp;
  for (let j = 0; j < m; j++) idx[j] = j;
  // least significant column first; each pass is a stable counting sort
  for (let col = w - 1; col >= 0; col--) {
    const column = keys.subarray(col * m, (col + 1) * m);
    let min = 0xffff,
      max = 0;
    for (let j = 0; j < m; j++) {
      const u = column[j]!;
      if (u < min) min = u;
      if (u > max) max = u;
    }
    if (min === max) continue;
    if (max - min < 4 * m + 1024) {
      countingPass(idx, tmp, m, column, min, 0, 0xffff, max - min + 1);
      [idx, tmp] = [tmp, idx];
    } else {
      countingPass(idx, tmp, m, column, min, 0, 0xff, 256);
      countingPass(tmp, idx, m, column, min, 8, 0xff, 256);
    }
  }
  space.idx = idx;
  space.tmp = tmp;
}

/** The ranks of an order: `rank[order[o]] = o`. */
export function ranksOf(order: Uint32Array): Uint32Array {
  const rank = new Uint32Array(order.length);
  for (let o = 0; o < order.length; o++) rank[order[o]!] = o;
  return rank;
}

/** Stable counting sort of rows `from` into `to` by digit ((column[row] - min) >> shift) & mask. */
function countingPass(
  from: Uint32Array,
  to: Uint32Array,
  m: number,
  column: Uint16Array,
  min: number,
  shift: number,
  mask: number,
  buckets: number,
): void {
  const start = new Uint32Array(buckets + 1);
  for (let j = 0; j < m; j++) start[(((column[from[j]!]! - min) >> shift) & mask) + 1]!++;
  for (let b = 0; b < buckets; b++) start[b + 1]! += start[b]!;
  for (let j = 0; j < m; j++) {
    const r = from[j]!;
    to[start[((column[r]! - min) >> shift) & mask]!++] = r;
  }
}
