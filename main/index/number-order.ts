/**
 * The build order of the offline index: (name length, name by code point, id by code
 * point), the tail of rule 7's key. Sorted without comparing strings: objects are bucketed
 * by name length (counting sort), then each bucket is sorted by an LSD radix sort over a
 * column-major matrix of its names' and ids' code units (typed arrays, no per-object temporaries). A JS
 * comparator over a million objects costs seconds; a Map of distinct names plus a native
 * string sort cost over a second at 1M.
 */
import { compareCodePoints } from '../../app/search/index.js';
import type { IndexDoc } from './engine.js';

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

/** Sorts docs in number order (stable for equal (name, id), which never happens). */
export function sortByNumberOrder(input: readonly IndexDoc[]): IndexDoc[] {
  const n = input.length;
  const nameLen = new Uint32Array(n);
  let maxLen = 0;
  for (let i = 0; i < n; i++) { const l = input[i]!.name.length; nameLen[i] = l; if (l > maxLen) maxLen = l; }
  const lenStart = new Uint32Array(maxLen + 2);
  for (let i = 0; i < n; i++) lenStart[nameLen[i]! + 1]!++;
  for (let l = 0; l <= maxLen; l++) lenStart[l + 1]! += lenStart[l]!;
  const byLen = new Uint32Array(n);
  const fill = lenStart.slice(0, maxLen + 1);
  const idLen = new Uint32Array(maxLen + 1);
  for (let i = 0; i < n; i++) {
    const l = nameLen[i]!;
    byLen[fill[l]!++] = i;
    const il = input[i]!.id.length;
    if (il > idLen[l]!) idLen[l] = il;
  }
  const out = new Array<IndexDoc>(n);
  let idx = new Uint32Array(0), tmp = new Uint32Array(0);
  for (let len = 0; len <= maxLen; len++) {
    const a = lenStart[len]!, m = lenStart[len + 1]! - a;
    if (m <= 1) { if (m === 1) out[a] = input[byLen[a]!]!; continue; }
    // column-major (a pass reads one column, which stays in cache): column k < len holds
    // the objects' name units at k, the next ones their ids' units, 0-padded
    const w = len + idLen[len]!;
    const keys = new Uint16Array(m * w);
    for (let j = 0; j < m; j++) {
      const d = input[byLen[a + j]!]!;
      const name = d.name, id = d.id;
      for (let k = 0; k < len; k++) keys[k * m + j] = cpUnit(name.charCodeAt(k));
      for (let k = 0; k < id.length; k++) keys[(len + k) * m + j] = cpUnit(id.charCodeAt(k));
    }
    if (idx.length < m) { idx = new Uint32Array(m); tmp = new Uint32Array(m); }
    for (let j = 0; j < m; j++) idx[j] = j;
    // least significant column first; each pass is a stable counting sort
    for (let col = w - 1; col >= 0; col--) {
      const column = keys.subarray(col * m, (col + 1) * m);
      let min = 0xffff, max = 0;
      for (let j = 0; j < m; j++) { const u = column[j]!; if (u < min) min = u; if (u > max) max = u; }
      if (min === max) continue;
      if (max - min < 4 * m + 1024) {
        countingPass(idx, tmp, m, column, min, 0, 0xffff, max - min + 1);
        [idx, tmp] = [tmp, idx];
      } else {
        countingPass(idx, tmp, m, column, min, 0, 0xff, 256);
        countingPass(tmp, idx, m, column, min, 8, 0xff, 256);
      }
    }
    for (let j = 0; j < m; j++) out[a + j] = input[byLen[a + idx[j]!]!]!;
  }
  return out;
}

/** Stable counting sort of rows `from` into `to` by digit ((column[row] - min) >> shift) & mask. */
function countingPass(from: Uint32Array, to: Uint32Array, m: number, column: Uint16Array, min: number, shift: number, mask: number, buckets: number): void {
  const start = new Uint32Array(buckets + 1);
  for (let j = 0; j < m; j++) start[(((column[from[j]!]! - min) >> shift) & mask) + 1]!++;
  for (let b = 0; b < buckets; b++) start[b + 1]! += start[b]!;
  for (let j = 0; j < m; j++) {
    const r = from[j]!;
    to[start[((column[r]! - min) >> shift) & mask]!++] = r;
  }
}
