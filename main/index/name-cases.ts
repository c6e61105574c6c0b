/**
 * The names as the NAS spells them, kept as what differs from their folded form. Folding is
 * length-preserving (`blob` positions are name positions), so a name is its folded text with a
 * few code units changed back: a bit per position for the ASCII capitals, and the rare other
 * differences (a capital outside ASCII) as sorted (position, code unit) pairs.
 *
 * Why: the names' own string was as big as the blob, two bytes a code unit as soon as one name
 * in the library is not Latin-1 (37 MB at a million objects, s30's heap snapshot); this is
 * ~2.4 MB at a million plus 6 bytes a non-ASCII capital.
 */

import { lowerBound } from './lower-bound.js';

export interface NameCases {
  /** Bit p set: the name's unit at blob position p is the ASCII capital of the blob's. */
  upper: Uint8Array;
  /** Sorted blob positions whose unit differs from the blob's otherwise... */
  otherAt: Uint32Array;
  /** ...and the name's unit there. */
  otherUnit: Uint16Array;
}

/** Code units by position: a typed array's or a string's. */
type Units = Uint16Array | string;
const unit = (u: Units, p: number): number => (typeof u === 'string' ? u.charCodeAt(p) : u[p]!);
/** Whether bit p of `bits` is set. */
const bitAt = (bits: Uint8Array, p: number): boolean => (bits[p >>> 3]! & (1 << (p & 7))) !== 0;
/** Whether spelled unit o is the ASCII capital of folded unit f. */
const asciiCapitalOf = (o: number, f: number): boolean => o >= 65 && o <= 90 && f === o + 32;

/** The cases of `original` against `folded` (same length: the code units of every name in blob order). */
export function casesOf(original: Units, folded: Units): NameCases {
  const upper = new Uint8Array((folded.length + 7) >>> 3);
  let others = 0;
  for (let p = 0; p < folded.length; p++) {
    const o = unit(original, p),
      f = unit(folded, p);
    if (o === f) continue;
    if (asciiCapitalOf(o, f)) upper[p >>> 3]! |= 1 << (p & 7);
    else others++;
  }
  const otherAt = new Uint32Array(others),
    otherUnit = new Uint16Array(others);
  if (others > 0)
    for (let p = 0, k = 0; p < folded.length; p++) {
      const o = unit(original, p),
        f = unit(folded, p);
      if (o !== f && !asciiCapitalOf(o, f)) {
        otherAt[k] = p;
        otherUnit[k++] = o;
      }
    }
  return { upper, otherAt, otherUnit };
}

/** Whether the name's unit at blob position p is other than the blob's and not an ASCII capital of it. */
export function spelledOtherwise(c: NameCases, p: number): boolean {
  return c.otherAt[lowerBound(c.otherAt, p)] === p;
}

let scratch = new Uint16Array(256);

/** The name at blob[from, to) as the NAS spells it. Most names are read straight from the blob. */
export function nameIn(blob: string, c: NameCases, from: number, to: number): string {
  const { upper, otherAt } = c;
  const k = lowerBound(otherAt, from);
  const other = k < otherAt.length && otherAt[k]! < to;
  if (!other && !anyBit(upper, from, to)) return blob.substring(from, to);
  if (other) return spelled(blob, c, from, to, k);
  // ASCII capitals only: the runs of them upper-cased, the rest sliced (they are ASCII in the blob)
  let name = '',
    p = from;
  while (p < to) {
    const up = bitAt(upper, p);
    let q = p + 1;
    while (q < to && bitAt(upper, q) === up) q++;
    name += up ? blob.substring(p, q).toUpperCase() : blob.substring(p, q);
    p = q;
  }
  return name;
}

/** The name at blob[from, to) unit by unit, where it has differences other than ASCII capitals (from the k-th). */
function spelled(blob: string, c: NameCases, from: number, to: number, k: number): string {
  const { upper, otherAt } = c;
  const len = to - from;
  if (scratch.length < len) scratch = new Uint16Array(len * 2);
  for (let p = from; p < to; p++) {
    let u = blob.charCodeAt(p);
    if (bitAt(upper, p)) u -= 32;
    else if (k < otherAt.length && otherAt[k] === p) u = c.otherUnit[k++]!;
    scratch[p - from] = u;
  }
  return String.fromCharCode.apply(null, scratch.subarray(0, len) as unknown as number[]);
}

/** Whether any bit in [from, to) is set. */
function anyBit(bits: Uint8Array, from: number, to: number): boolean {
  if (from >= to) return false;
  const first = from >>> 3,
    last = (to - 1) >>> 3;
  const head = 0xff << (from & 7),
    tail = 0xff >>> (7 - ((to - 1) & 7));
  if (first === last) return (bits[first]! & head & tail) !== 0;
  if ((bits[first]! & head) !== 0 || (bits[last]! & tail) !== 0) return true;
  for (let i = first + 1; i < last; i++) if (bits[i] !== 0) return true;
  return false;
}
