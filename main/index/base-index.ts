/**
 * The immutable, numbered part of the offline text index. Objects are numbered in
 * (name length, name by code point, id) order, so a scan in number order meets objects
 * with the same (field, wordStart, index) key prefix in rule-7 order and a first page can
 * stop early. Holds: folded names in one blob, trigram postings in flat typed arrays
 * (sorted by number), and the (make, model, mime) combination of each object with its postings.
 */
import { buildNameBlob } from './name-blob.js';
import { SHORT_TOP, buildShortLists } from './short-grams.js';
import { foldCase } from '../../app/search/index.js';
import { sortByNumberOrder } from './number-order.js';
import type { IndexDoc } from './engine.js';

/** The distinct (cameraMake, cameraModel, mimeType) combinations; folded copies alongside. */
export interface Combo {
  make?: string | undefined;
  model?: string | undefined;
  mime: string;
}

export interface BaseData {
  n: number;
  /** Ids in number order, each followed by `\n` (ids are URL-safe): one string, not a million. */
  idBlob: string;
  idStarts: Uint32Array;
  names: string[];
  /** Folded names in number order, each followed by `\0`. */
  blob: string;
  /** n+1 offsets into `blob`: name o is blob[starts[o], starts[o+1]-1). */
  starts: Uint32Array;
  combo: Uint32Array;
  combos: Combo[];
  comboStart: Uint32Array;
  comboList: Uint32Array;
  /** Trigram keys (c0*2^32 + c1*2^16 + c2) per slot. */
  triKeys: Float64Array;
  /** Postings by object number, for the infrequent trigrams only (frequent ones: empty range). */
  triStart: Uint32Array;
  triList: Uint32Array;
  /**
   * Frequent trigrams (in at least `FREQUENT` objects): every object holding it, sorted by
   * (first position of the trigram in the name, clamped to 255; number) with that position
   * alongside, so a search can visit objects in order of where their first match can be.
   */
  freqStart: Uint32Array;
  freqList: Uint32Array;
  freqPos: Uint8Array;
  /** Frequent trigrams: the objects holding it at a word start, in the same order. */
  wsStart: Uint32Array;
  wsList: Uint32Array;
  wsPos: Uint8Array;
  /** First-page lists of 1-2 code unit terms (short-grams.ts). */
  shortTop: number;
  /** 1 when every 1-2 code unit gram of the names has a first-page list. */
  shortAll: number;
  shortKeys: Uint32Array;
  shortStart: Uint32Array;
  shortList: Uint32Array;
  /** Id lookups: an open-addressing table of object number + 1 (0 = empty), by FNV-1a of the id. */
  byId: Uint32Array;
}

/** A trigram held by at least this many objects is frequent (positional postings). */
export const frequentThreshold = (n: number): number => Math.max(1024, Math.floor(n / 256));

export const triKey = (s: string, i: number): number => s.charCodeAt(i) * 4294967296 + s.charCodeAt(i + 1) * 65536 + s.charCodeAt(i + 2);

/** foldCase, with a fast path for ASCII (where it equals toLowerCase). */
export function foldFast(s: string): string {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return foldCase(s);
  return s.toLowerCase();
}

/** Open addressing from trigram key to slot; integer-only hashing (Map on doubles is slow). */
class TrigramTable {
  private cap = 1 << 14;
  private keys = new Float64Array(this.cap).fill(-1);
  private slots = new Int32Array(this.cap);
  size = 0;
  /** The slot of trigram (a, b, c), created as `size` when new. */
  slotOf(a: number, b: number, c: number): number {
    const k = a * 4294967296 + b * 65536 + c;
    let h = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b) ^ Math.imul(c, 0xc2b2ae35)) & (this.cap - 1);
    for (;;) {
      const x = this.keys[h]!;
      if (x === k) return this.slots[h]!;
      if (x === -1) break;
      h = (h + 1) & (this.cap - 1);
    }
    this.keys[h] = k;
    this.slots[h] = this.size;
    if (++this.size * 2 > this.cap) this.grow();
    return this.size - 1;
  }
  private grow(): void {
    const oldK = this.keys, oldS = this.slots;
    this.cap *= 2;
    this.keys = new Float64Array(this.cap).fill(-1);
    this.slots = new Int32Array(this.cap);
    for (let i = 0; i < oldK.length; i++) {
      const k = oldK[i]!;
      if (k === -1) continue;
      const a = Math.floor(k / 4294967296), b = Math.floor(k / 65536) & 0xffff, c = k % 65536;
      let h = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b) ^ Math.imul(c, 0xc2b2ae35)) & (this.cap - 1);
      while (this.keys[h] !== -1) h = (h + 1) & (this.cap - 1);
      this.keys[h] = k;
      this.slots[h] = oldS[i]!;
    }
  }
}

/** Overrides (tests): `frequent`, the frequent-trigram (and 1-2 gram) threshold; `shortTop`, SHORT_TOP; `shortRare`, the infrequent grams' budget. */
export function buildBase(input: readonly IndexDoc[], opts: { frequent?: number; shortTop?: number; shortRare?: number } = {}): BaseData {
  const trace = process.env['NAS_MIRROR_TRACE_BUILD'] ? (m: string): void => { process.stderr.write(`${m} ${Math.round(performance.now())}\n`); } : (): void => undefined;
  trace('start');
  const docs = sortByNumberOrder(input);
  trace('sorted');
  const n = docs.length;
  const { names, blob, starts, wsAt, idBlob, idStarts } = buildNameBlob(docs);
  trace('blob');
  const combo = new Uint32Array(n);
  const comboIds = new Map<string, Map<string | undefined, Map<string | undefined, number>>>();
  const combos: Combo[] = [];
  for (let o = 0; o < n; o++) {
    const d = docs[o]!;
    // nested maps: no key string to build and hash per object
    let byMake = comboIds.get(d.mimeType);
    if (!byMake) comboIds.set(d.mimeType, (byMake = new Map()));
    let byModel = byMake.get(d.cameraMake);
    if (!byModel) byMake.set(d.cameraMake, (byModel = new Map()));
    let c = byModel.get(d.cameraModel);
    if (c === undefined) {
      c = combos.length;
      byModel.set(d.cameraModel, c);
      combos.push({ make: d.cameraMake, model: d.cameraModel, mime: d.mimeType });
    }
    combo[o] = c;
  }
  const [comboStart, comboList] = csr(combos.length, n, (emit) => { for (let o = 0; o < n; o++) emit(combo[o]!, o); });

  trace('combos');
  // Trigrams: pass 1 assigns slots and counts distinct (slot, object) pairs.
  const table = new TrigramTable();
  const keys: number[] = [];
  let counts: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 16);
  let last: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 16);
  // (slot, object) pairs are at most one per trigram position: sized once (growing by
  // doubling copied ~270 ms at 1M objects)
  const seqCap = Math.max(16, blob.length);
  let seq: Uint32Array<ArrayBuffer> = new Uint32Array(seqCap);
  let seqPos: Uint8Array<ArrayBuffer> = new Uint8Array(seqCap);
  let seqWs: Uint8Array<ArrayBuffer> = new Uint8Array(seqCap);
  let lastSeq: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 16);
  let seqLen = 0;
  const objEnd = new Uint32Array(n);
  for (let o = 0; o < n; o++) {
    const s = starts[o]!, e = starts[o + 1]! - 1;
    let a = blob.charCodeAt(s), b2 = blob.charCodeAt(s + 1);
    for (let i = s; i + 3 <= e; i++) {
      const c3 = blob.charCodeAt(i + 2);
      const slot = table.slotOf(a, b2, c3);
      a = b2;
      b2 = c3;
      if (slot === keys.length) {
        keys.push(triKey(blob, i));
        if (slot >= counts.length) {
          counts = grow(counts, counts.length * 2);
          last = grow(last, last.length * 2);
          lastSeq = grow(lastSeq, lastSeq.length * 2);
        }
      }
      const ws = wsAt[i]!;
      if (last[slot] === o + 1) {
        if (ws) seqWs[lastSeq[slot]!] = 1;
        continue;
      }
      last[slot] = o + 1;
      counts[slot]!++;
      if (seqLen >= seq.length) {
        seq = grow(seq, seq.length * 2);
        seqPos = grow8(seqPos, seqPos.length * 2);
        seqWs = grow8(seqWs, seqWs.length * 2);
      }
      lastSeq[slot] = seqLen;
      seqPos[seqLen] = Math.min(255, i - s);
      seqWs[seqLen] = ws;
      seq[seqLen++] = slot;
    }
    objEnd[o] = seqLen;
  }
  trace('trigram pass 1');
  const slots = keys.length;
  const freqMin = opts.frequent ?? frequentThreshold(n);
  const isFreq = new Uint8Array(slots);
  for (let k = 0; k < slots; k++) isFreq[k] = counts[k]! >= freqMin ? 1 : 0;
  const triStart = new Uint32Array(slots + 1);
  const freqStart = new Uint32Array(slots + 1);
  const wsStart = new Uint32Array(slots + 1);
  const wsCount = new Uint32Array(slots);
  for (let p = 0; p < seqLen; p++) if (seqWs[p] && isFreq[seq[p]!]) wsCount[seq[p]!]!++;
  for (let k = 0; k < slots; k++) {
    triStart[k + 1] = triStart[k]! + (isFreq[k] ? 0 : counts[k]!);
    freqStart[k + 1] = freqStart[k]! + (isFreq[k] ? counts[k]! : 0);
    wsStart[k + 1] = wsStart[k]! + wsCount[k]!;
  }
  const triList = new Uint32Array(triStart[slots]!);
  const freqList = new Uint32Array(freqStart[slots]!);
  const freqPos = new Uint8Array(freqStart[slots]!);
  const wsList = new Uint32Array(wsStart[slots]!);
  const wsPos = new Uint8Array(wsStart[slots]!);
  {
    // Frequent lists: counting sort by position (stable, so number order within a position).
    const posCount = new Uint32Array(slots * 256);
    const wsPosCount = new Uint32Array(slots * 256);
    for (let p = 0; p < seqLen; p++) {
      const k = seq[p]!;
      if (!isFreq[k]) continue;
      posCount[k * 256 + seqPos[p]!]!++;
      if (seqWs[p]) wsPosCount[k * 256 + seqPos[p]!]!++;
    }
    const posFill = new Uint32Array(slots * 256);
    const wsFill = new Uint32Array(slots * 256);
    for (let k = 0; k < slots; k++) {
      if (!isFreq[k]) continue;
      let a = freqStart[k]!, w = wsStart[k]!;
      for (let q = 0; q < 256; q++) {
        posFill[k * 256 + q] = a;
        a += posCount[k * 256 + q]!;
        wsFill[k * 256 + q] = w;
        w += wsPosCount[k * 256 + q]!;
      }
    }
    const fill = triStart.slice(0, slots);
    let p = 0;
    for (let o = 0; o < n; o++) {
      const end = objEnd[o]!;
      for (; p < end; p++) {
        const k = seq[p]!;
        if (!isFreq[k]) { triList[fill[k]!++] = o; continue; }
        const q = seqPos[p]!;
        const at = posFill[k * 256 + q]!++;
        freqList[at] = o;
        freqPos[at] = q;
        if (seqWs[p]) {
          const wt = wsFill[k * 256 + q]!++;
          wsList[wt] = o;
          wsPos[wt] = q;
        }
      }
    }
  }
  trace('trigram pass 2');
  const short = buildShortLists(blob, starts, wsAt, n, freqMin, opts.shortTop ?? SHORT_TOP, opts.shortRare);
  trace('short lists');
  const byId = buildIdTable(idBlob, idStarts, n);
  trace('byId');
  return { n, idBlob, idStarts, names, blob, starts, combo, combos, comboStart, comboList, triKeys: Float64Array.from(keys), triStart, triList, freqStart, freqList, freqPos, wsStart, wsList, wsPos, ...short, byId };
}

function grow8(a: Uint8Array, size: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(size);
  b.set(a);
  return b;
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

/** The id of object o. */
export function idOf(b: BaseData, o: number): string {
  return b.idBlob.substring(b.idStarts[o]!, b.idStarts[o + 1]! - 1);
}

/** FNV-1a of s[from, to). */
function idHash(s: string, from = 0, to = s.length): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Open addressing from id to object number: slots hold number + 1 (0 = empty), 2n+ slots. Hashes the ids in place in `idBlob`. */
function buildIdTable(idBlob: string, idStarts: Uint32Array, n: number): Uint32Array {
  let cap = 1;
  while (cap < n * 2) cap *= 2;
  const t = new Uint32Array(Math.max(cap, 2));
  const mask = t.length - 1;
  for (let o = 0; o < n; o++) {
    let h = idHash(idBlob, idStarts[o]!, idStarts[o + 1]! - 1) & mask;
    while (t[h] !== 0) h = (h + 1) & mask;
    t[h] = o + 1;
  }
  return t;
}

/** The object number of an id, or -1. */
export function numberOfId(b: BaseData, id: string): number {
  const t = b.byId;
  const mask = t.length - 1;
  for (let h = idHash(id) & mask; ; h = (h + 1) & mask) {
    const v = t[h]!;
    if (v === 0) return -1;
    if (idOf(b, v - 1) === id) return v - 1;
  }
}
