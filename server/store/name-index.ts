/**
 * Candidate structures over folded names, kept in step with the TreeIndex:
 * - a prefix index (here): rows sorted by folded name (a snapshot) plus a delta of rows
 *   changed since, so "names starting with t" is a binary search plus a short scan; the same
 *   rows in tier-1 order, and per metadata value;
 * - name chunks (name-chunks.ts), scanned with indexOf for substrings;
 * - word-start and positional buckets (name-grams.ts).
 * Entries carry the row's generation: an entry whose generation is not the row's current
 * one is stale and skipped (the current version was appended elsewhere).
 */
import { compareCodePoints, compareNames, type SortKey } from '../../app/search/order.js';
import type { IndexListener, TreeIndex } from './tree-index.js';
import { preimages } from './fold-preimages.js';
import { NameChunks } from './name-chunks.js';
import { NameGrams, type Bucket } from './name-grams.js';

const DELTA_MAX = 20_000;

export class NameIndex implements IndexListener {
  /** Rows sorted by (name length, folded name, row): prefix ranges per length. */
  private aRows = new Int32Array(0);
  private aKeys: string[] = [];
  private aGen = new Uint32Array(0);
  /** The same rows sorted by (name length, name by code point, id): the tier-1 order. */
  private bRows = new Int32Array(0);
  private bGen = new Uint32Array(0);
  /** The names at snapshot time (stale entries keep their old name, so the order holds). */
  private bNames: string[] = [];
  /** Distinct name lengths ascending, and where each length's group starts (same in A and B). */
  private lens: number[] = [];
  private groupStart: number[] = [];
  /** Per field (make, model, mime) and value id: the snapshot rows holding it, in tier-1 order. */
  private byValue: Map<number, { rows: Int32Array; gens: Uint32Array }>[] = [new Map(), new Map(), new Map()];
  private delta: number[] = [];
  private deltaGen: number[] = [];
  private chunks = new NameChunks();
  private grams = new NameGrams();

  private readonly deltaMax: number;
  private readonly slack: number;

  /** `deltaMax` (default: the larger of 20,000 and n/8) and `slack` (garbage tolerated in the chunks) are small in tests. */
  constructor(
    private readonly ix: TreeIndex,
    opts: { deltaMax?: number; slack?: number } = {},
  ) {
    this.deltaMax = opts.deltaMax ?? 0;
    this.slack = opts.slack ?? 100_000;
    ix.listen(this);
    this.reset();
    preimages(0x61); // build the inverse fold table now, not in the first search
  }

  private stamps = new Int32Array(0);
  private stampNow = 0;

  /**
   * Starts one search's "seen" marks: row r was seen in this search when
   * `stamps[r] === now`. O(1): a new stamp instead of clearing a row-sized array.
   */
  newVisit(): { stamps: Int32Array; now: number } {
    if (this.stamps.length < this.ix.end) this.stamps = new Int32Array(Math.max(this.ix.end * 2, 1024));
    if (++this.stampNow > 2_000_000_000) {
      this.stamps.fill(0);
      this.stampNow = 1;
    }
    return { stamps: this.stamps, now: this.stampNow };
  }

  reset(): void {
    const ix = this.ix;
    const rows: number[] = [];
    for (let r = 1; r < ix.end; r++) if (ix.isAlive(r)) rows.push(r);
    this.compactChunks();
    const a = [...rows].sort(this.cmpA);
    rows.sort(this.cmpB);
    this.setSorted(a, rows);
  }

  private readonly cmpA = (x: number, y: number): number => {
    const f = this.ix.fnames;
    const p = f[x]!,
      q = f[y]!;
    return p.length - q.length || (p < q ? -1 : p > q ? 1 : x - y);
  };

  private readonly cmpB = (x: number, y: number): number => {
    const n = this.ix.names;
    const p = n[x]!,
      q = n[y]!;
    if (p.length !== q.length) return p.length - q.length;
    return compareNames(p, q) || compareCodePoints(this.ix.ids[x]!, this.ix.ids[y]!);
  };

  private setSorted(a: ArrayLike<number>, b: ArrayLike<number>): void {
    const gen = this.ix.gen,
      f = this.ix.fnames;
    this.aRows = Int32Array.from(a);
    this.aKeys = Array.from(this.aRows, (r) => f[r]!);
    this.aGen = Uint32Array.from(this.aRows, (r) => gen[r]!);
    this.bRows = Int32Array.from(b);
    this.bGen = Uint32Array.from(this.bRows, (r) => gen[r]!);
    this.bNames = Array.from(this.bRows, (r) => this.ix.names[r]!);
    this.lens = [];
    this.groupStart = [];
    for (let i = 0; i < this.aKeys.length; i++) {
      const len = this.aKeys[i]!.length;
      if (this.lens.length === 0 || this.lens[this.lens.length - 1] !== len) {
        this.lens.push(len);
        this.groupStart.push(i);
      }
    }
    this.groupStart.push(this.aKeys.length);
    const ix = this.ix;
    this.byValue = [ix.makeId, ix.modelId, ix.mimeId].map((ids) => {
      const lists = new Map<number, number[]>();
      for (let i = 0; i < this.bRows.length; i++) {
        const r = this.bRows[i]!;
        const v = ids[r]!;
        if (v < 0) continue;
        let l = lists.get(v);
        if (!l) lists.set(v, (l = []));
        l.push(r);
      }
      const out = new Map<number, { rows: Int32Array; gens: Uint32Array }>();
      for (const [v, l] of lists) out.set(v, { rows: Int32Array.from(l), gens: Uint32Array.from(l, (r) => gen[r]!) });
      return out;
    });
    this.delta = [];
    this.deltaGen = [];
  }

  private append(r: number): void {
    const name = this.ix.fnames[r]!;
    const g = this.ix.gen[r]!;
    this.grams.add(name, r, g);
    this.chunks.add(name, r, g);
  }

  changed(row: number): void {
    if (!this.ix.isAlive(row)) return;
    this.append(row);
    this.delta.push(row);
    this.deltaGen.push(this.ix.gen[row]!);
    // Too much garbage in the chunks: rebuild them (amortised O(1) per change).
    if (this.chunks.entries > 2 * this.ix.count + this.slack) this.compactChunks();
    // Merging costs O(n); letting the delta grow with the library keeps it amortised small.
    if (this.delta.length > (this.deltaMax > 0 ? this.deltaMax : Math.max(DELTA_MAX, this.ix.count >> 3))) this.mergeDelta();
  }

  private compactChunks(): void {
    this.grams = new NameGrams();
    this.chunks = new NameChunks();
    for (let r = 1; r < this.ix.end; r++) if (this.ix.isAlive(r)) this.append(r);
  }

  /** Merges the delta into both sorted snapshots, dropping stale entries: O(n + d log d). */
  private mergeDelta(): void {
    const ix = this.ix,
      gen = ix.gen;
    const fresh = new Uint8Array(ix.end);
    const add: number[] = [];
    for (let i = 0; i < this.delta.length; i++) {
      const r = this.delta[i]!;
      if (gen[r] === this.deltaGen[i] && ix.isAlive(r) && !fresh[r]) {
        fresh[r] = 1;
        add.push(r);
      }
    }
    const keep = (rows: Int32Array, gens: Uint32Array): number[] => {
      const out: number[] = [];
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!;
        if (gens[i] === gen[r] && ix.isAlive(r) && !fresh[r]) out.push(r);
      }
      return out;
    };
    const merge = (old: number[], extra: number[], cmp: (x: number, y: number) => number): Int32Array => {
      const sorted = [...extra].sort(cmp);
      const out = new Int32Array(old.length + sorted.length);
      let i = 0,
        j = 0,
        k = 0;
      while (i < old.length || j < sorted.length) {
        if (j >= sorted.length || (i < old.length && cmp(old[i]!, sorted[j]!) <= 0)) out[k++] = old[i++]!;
        else out[k++] = sorted[j++]!;
      }
      return out;
    };
    this.setSorted(merge(keep(this.aRows, this.aGen), add, this.cmpA), merge(keep(this.bRows, this.bGen), add, this.cmpB));
  }

  /** Live rows changed since the last merge whose folded name starts with `t` (duplicates possible). */
  deltaPrefix(t: string, visit: (row: number) => void): void {
    const gen = this.ix.gen,
      fn = this.ix.fnames;
    for (let i = 0; i < this.delta.length; i++) {
      const r = this.delta[i]!;
      if (gen[r] === this.deltaGen[i] && this.ix.isAlive(r) && fn[r]!.startsWith(t)) visit(r);
    }
  }

  /**
   * Walks the snapshot rows whose `field` (0 make, 1 model, 2 mime) is value `v`, in tier-1
   * order; stops when `visit` returns false. Rows changed since come from `deltaRows`.
   */
  walkValue(field: number, v: number, visit: (row: number) => boolean): void {
    const l = this.byValue[field]!.get(v);
    if (!l) return;
    const gen = this.ix.gen;
    for (let i = 0; i < l.rows.length; i++) {
      const r = l.rows[i]!;
      if (gen[r] === l.gens[i] && !visit(r)) return;
    }
  }

  /** Live rows changed since the snapshot (duplicates possible). */
  deltaRows(visit: (row: number) => void): void {
    const gen = this.ix.gen;
    for (let i = 0; i < this.delta.length; i++) {
      const r = this.delta[i]!;
      if (gen[r] === this.deltaGen[i] && this.ix.isAlive(r)) visit(r);
    }
  }

  /** Every row where `t` occurs at a word start is in this bucket (stale entries possible): name-grams.ts. */
  wordStartBucket(t: string): Bucket | undefined {
    return this.grams.wordStartBucket(t);
  }

  /** Rows (stale entries possible) whose folded name holds `t`'s first two code units at position `p`. */
  positionBucket(t: string, p: number): Bucket | undefined {
    return this.grams.positionBucket(t, p);
  }

  /** Name lengths present in the snapshot, ascending. */
  lengths(): readonly number[] {
    return this.lens;
  }

  /**
   * The snapshot rows of name length `len` whose folded name starts with `t`. Dense groups
   * are walked in tier-1 order ((name, id) ascending, `ordered` = true) so the caller can
   * stop early by returning false; sparse ones straight from the prefix range (unordered).
   */
  prefixGroup(t: string, len: number, visit: (row: number, ordered: boolean) => boolean): void {
    const g = binarySearch(this.lens, len);
    if (g < 0) return;
    const lo0 = this.groupStart[g]!,
      hi0 = this.groupStart[g + 1]!;
    const keys = this.aKeys;
    let lo = lo0,
      hi = hi0;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keys[mid]! < t) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    {
      let h = hi0;
      while (end < h) {
        const mid = (end + h) >> 1;
        if (keys[mid]!.startsWith(t) || keys[mid]! < t) end = mid + 1;
        else h = mid;
      }
    }
    const count = end - lo;
    if (count === 0) return;
    const gen = this.ix.gen;
    if (count <= 512 || count * 50 < hi0 - lo0) {
      for (let i = lo; i < end; i++) {
        const r = this.aRows[i]!;
        if (gen[r] === this.aGen[i]) visit(r, false);
      }
      return;
    }
    const fn = this.ix.fnames,
      bNames = this.bNames;
    const pre = preimages(t.charCodeAt(0));
    if (!pre) {
      for (let i = lo0; i < hi0; i++) {
        const r = this.bRows[i]!;
        if (gen[r] !== this.bGen[i] || !fn[r]!.startsWith(t)) continue;
        if (!visit(r, true)) return;
      }
      return;
    }
    // Only names whose first character folds to t[0] can match: walk those regions of the
    // (code point ordered) group, in ascending order of that character.
    for (const c of pre) {
      let i = lo0,
        h = hi0;
      while (i < h) {
        const mid = (i + h) >> 1;
        if (bNames[mid]!.codePointAt(0)! < c) i = mid + 1;
        else h = mid;
      }
      for (; i < hi0; i++) {
        if (bNames[i]!.charCodeAt(0) !== c) break;
        const r = this.bRows[i]!;
        if (gen[r] !== this.bGen[i] || !fn[r]!.startsWith(t)) continue;
        if (!visit(r, true)) return;
      }
    }
  }

  /** The single-term name scan with pruning in place (name-chunks.ts `scanSingle`). */
  scanSingle(t: string, bound: () => SortKey | undefined, visit: (row: number, wordStart: boolean, first: number) => void): void {
    this.chunks.scanSingle(t, this.ix.gen, bound, visit);
  }

  /** `visit(row, firstIndex)` for every live row whose folded name contains `t` (name-chunks.ts). */
  substring(t: string, visit: (row: number, firstIndex: number) => void): void {
    this.chunks.substring(t, this.ix.gen, visit);
  }
}

function binarySearch(a: readonly number[], x: number): number {
  let lo = 0,
    hi = a.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! === x) return mid;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
