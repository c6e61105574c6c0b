/**
 * The immutable, numbered part of the offline text index. Objects are numbered in
 * (name length, name by code point, id) order, so a scan in number order meets objects
 * with the same (field, wordStart, index) key prefix in rule-7 order and a first page can
 * stop early. Holds: folded names in one blob, trigram postings in flat typed arrays
 * (sorted by number), and the (make, model, mime) combination of each object with its postings.
 */
import { compareCodePoints, foldCase } from '../../app/search/index.js';
import type { IndexDoc } from './engine.js';

/** The distinct (cameraMake, cameraModel, mimeType) combinations; folded copies alongside. */
export interface Combo {
  make?: string | undefined;
  model?: string | undefined;
  mime: string;
}

export interface BaseData {
  n: number;
  ids: string[];
  names: string[];
  /** Folded names in number order, each followed by `\0`. */
  blob: string;
  /** n+1 offsets into `blob`: name o is blob[starts[o], starts[o+1]-1). */
  starts: Uint32Array;
  combo: Uint32Array;
  combos: Combo[];
  comboStart: Uint32Array;
  comboList: Uint32Array;
  /** Trigram keys (c0*2^32 + c1*2^16 + c2) per slot, and the CSR postings per slot. */
  triKeys: Float64Array;
  triStart: Uint32Array;
  triList: Uint32Array;
  /** Object numbers sorted by id (UTF-16 order) for id lookups. */
  byId: Uint32Array;
}

export const triKey = (s: string, i: number): number => s.charCodeAt(i) * 4294967296 + s.charCodeAt(i + 1) * 65536 + s.charCodeAt(i + 2);

/** Rule-7 tail order: name length, name by code point, id by code point. */
export function numberOrder(a: { name: string; id: string }, b: { name: string; id: string }): number {
  return a.name.length - b.name.length || compareCodePoints(a.name, b.name) || compareCodePoints(a.id, b.id);
}

export function buildBase(input: readonly IndexDoc[]): BaseData {
  const docs = [...input].sort(numberOrder);
  const n = docs.length;
  const ids = new Array<string>(n);
  const names = new Array<string>(n);
  const starts = new Uint32Array(n + 1);
  const combo = new Uint32Array(n);
  const comboIds = new Map<string, number>();
  const combos: Combo[] = [];
  const parts: string[] = [];
  let off = 0;
  for (let o = 0; o < n; o++) {
    const d = docs[o]!;
    ids[o] = d.id;
    names[o] = d.name;
    const f = foldCase(d.name);
    parts.push(f, '\0');
    starts[o] = off;
    off += f.length + 1;
    const ck = `${d.cameraMake === undefined ? '\u0001' : d.cameraMake}\u0000${d.cameraModel === undefined ? '\u0001' : d.cameraModel}\u0000${d.mimeType}`;
    let c = comboIds.get(ck);
    if (c === undefined) {
      c = combos.length;
      comboIds.set(ck, c);
      combos.push({ make: d.cameraMake, model: d.cameraModel, mime: d.mimeType });
    }
    combo[o] = c;
  }
  starts[n] = off;
  const blob = parts.join('');
  const [comboStart, comboList] = csr(combos.length, n, (emit) => { for (let o = 0; o < n; o++) emit(combo[o]!, o); });

  // Trigrams: pass 1 assigns slots and counts distinct (slot, object) pairs.
  const slotOf = new Map<number, number>();
  const keys: number[] = [];
  let counts: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 16);
  let last: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 16);
  let seq: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 20);
  let seqLen = 0;
  const objEnd = new Uint32Array(n);
  for (let o = 0; o < n; o++) {
    const s = starts[o]!, e = starts[o + 1]! - 1;
    for (let i = s; i + 3 <= e; i++) {
      const k = triKey(blob, i);
      let slot = slotOf.get(k);
      if (slot === undefined) {
        slot = keys.length;
        slotOf.set(k, slot);
        keys.push(k);
        if (slot >= counts.length) {
          counts = grow(counts, counts.length * 2);
          last = grow(last, last.length * 2);
        }
      }
      if (last[slot] === o + 1) continue;
      last[slot] = o + 1;
      counts[slot]!++;
      if (seqLen >= seq.length) seq = grow(seq, seq.length * 2);
      seq[seqLen++] = slot;
    }
    objEnd[o] = seqLen;
  }
  const slots = keys.length;
  const triStart = new Uint32Array(slots + 1);
  for (let k = 0; k < slots; k++) triStart[k + 1] = triStart[k]! + counts[k]!;
  const fill = triStart.slice(0, slots);
  const triList = new Uint32Array(seqLen);
  let p = 0;
  for (let o = 0; o < n; o++) {
    const end = objEnd[o]!;
    for (; p < end; p++) triList[fill[seq[p]!]!++] = o;
  }
  const byId = new Uint32Array(n);
  for (let o = 0; o < n; o++) byId[o] = o;
  byId.sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
  return { n, ids, names, blob, starts, combo, combos, comboStart, comboList, triKeys: Float64Array.from(keys), triStart, triList, byId };
}

function grow(a: Uint32Array, size: number): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(size);
  b.set(a);
  return b;
}

/** Builds CSR lists: `emit(bucket, value)` must be called in increasing value order. */
function csr(buckets: number, total: number, each: (emit: (b: number, v: number) => void) => void): [Uint32Array, Uint32Array] {
  const start = new Uint32Array(buckets + 1);
  each((b) => { start[b + 1]!++; });
  for (let b = 0; b < buckets; b++) start[b + 1]! += start[b]!;
  const fill = start.slice(0, buckets);
  const list = new Uint32Array(total);
  each((b, v) => { list[fill[b]!++] = v; });
  return [start, list];
}

/** The object number of an id, or -1. */
export function numberOfId(b: BaseData, id: string): number {
  let lo = 0, hi = b.n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const x = b.ids[b.byId[mid]!]!;
    if (x === id) return b.byId[mid]!;
    if (x < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
