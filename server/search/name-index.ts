/**
 * Candidate structures over folded names, kept in step with the TreeIndex:
 * - a prefix index: rows sorted by folded name (a snapshot) plus a delta of rows changed
 *   since, so "names starting with t" is a binary search plus a short scan;
 * - name chunks: folded names joined by "/" (never inside a name) in strings of a few
 *   thousand entries, Latin-1 and two-byte kept apart, scanned with indexOf for substrings.
 * Entries carry the row's generation: an entry whose generation is not the row's current
 * one is stale and skipped (the current version was appended elsewhere).
 */
import type { IndexListener, TreeIndex } from '../store/tree-index.js';

const CHUNK_ENTRIES = 4096;
const DELTA_MAX = 20_000;

export interface Chunk {
  text: string;
  /** Start offset in `text` of each entry's name; entry i spans starts[i] .. starts[i+1]-1. */
  starts: Int32Array;
  rows: Int32Array;
  gens: Uint32Array;
  n: number;
}

class OpenChunk {
  parts: string[] = [];
  rows: number[] = [];
  gens: number[] = [];
  private cached: Chunk | undefined;
  add(name: string, row: number, gen: number): void {
    this.parts.push(name);
    this.rows.push(row);
    this.gens.push(gen);
    this.cached = undefined;
  }
  get size(): number {
    return this.parts.length;
  }
  seal(): Chunk {
    if (this.cached) return this.cached;
    const starts = new Int32Array(this.parts.length + 1);
    let off = 1;
    for (let i = 0; i < this.parts.length; i++) {
      starts[i] = off;
      off += this.parts[i]!.length + 1;
    }
    starts[this.parts.length] = off;
    this.cached = { text: '/' + this.parts.join('/') + '/', starts, rows: Int32Array.from(this.rows), gens: Uint32Array.from(this.gens), n: this.parts.length };
    return this.cached;
  }
}

const isNarrow = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0xff) return false;
  return true;
};

export class NameIndex implements IndexListener {
  /** Rows sorted by their folded name at build time. */
  private sorted = new Int32Array(0);
  private sortedKey: string[] = [];
  private sortedGen = new Uint32Array(0);
  private delta: number[] = [];
  private deltaGen: number[] = [];
  private narrow: Chunk[] = [];
  private wide: Chunk[] = [];
  private openNarrow = new OpenChunk();
  private openWide = new OpenChunk();
  private entries = 0;

  constructor(private readonly ix: TreeIndex) {
    ix.listen(this);
    this.reset();
  }

  reset(): void {
    const ix = this.ix;
    const rows: number[] = [];
    for (let r = 1; r < ix.end; r++) if (ix.isAlive(r)) rows.push(r);
    this.narrow = [];
    this.wide = [];
    this.openNarrow = new OpenChunk();
    this.openWide = new OpenChunk();
    this.entries = 0;
    for (const r of rows) this.append(r);
    this.rebuildSorted(rows);
  }

  private rebuildSorted(rows: number[]): void {
    const f = this.ix.fnames;
    rows.sort((a, b) => {
      const x = f[a]!, y = f[b]!;
      return x < y ? -1 : x > y ? 1 : a - b;
    });
    this.sorted = Int32Array.from(rows);
    this.sortedKey = rows.map((r) => f[r]!);
    this.sortedGen = Uint32Array.from(rows, (r) => this.ix.gen[r]!);
    this.delta = [];
    this.deltaGen = [];
  }

  private append(r: number): void {
    const name = this.ix.fnames[r]!;
    const narrow = isNarrow(name);
    const open = narrow ? this.openNarrow : this.openWide;
    open.add(name, r, this.ix.gen[r]!);
    this.entries++;
    if (open.size >= CHUNK_ENTRIES) {
      (narrow ? this.narrow : this.wide).push(open.seal());
      if (narrow) this.openNarrow = new OpenChunk();
      else this.openWide = new OpenChunk();
    }
  }

  changed(row: number): void {
    if (!this.ix.isAlive(row)) return;
    this.append(row);
    this.delta.push(row);
    this.deltaGen.push(this.ix.gen[row]!);
    // Too much garbage in the chunks: rebuild them (amortised O(1) per change).
    if (this.entries > 2 * this.ix.count + 100_000) this.compactChunks();
    if (this.delta.length > DELTA_MAX) this.mergeDelta();
  }

  private compactChunks(): void {
    this.narrow = [];
    this.wide = [];
    this.openNarrow = new OpenChunk();
    this.openWide = new OpenChunk();
    this.entries = 0;
    for (let r = 1; r < this.ix.end; r++) if (this.ix.isAlive(r)) this.append(r);
  }

  /** Merges the (sorted) delta into the sorted snapshot, dropping stale entries: O(n + d log d). */
  private mergeDelta(): void {
    const ix = this.ix, gen = ix.gen, f = ix.fnames;
    const seen = new Uint8Array(ix.end);
    const oldRows: number[] = [];
    for (let i = 0; i < this.sorted.length; i++) {
      const r = this.sorted[i]!;
      if (gen[r] === this.sortedGen[i] && ix.isAlive(r) && !seen[r]) { seen[r] = 1; oldRows.push(r); }
    }
    const add: number[] = [];
    for (let i = 0; i < this.delta.length; i++) {
      const r = this.delta[i]!;
      if (gen[r] === this.deltaGen[i] && ix.isAlive(r) && !seen[r]) { seen[r] = 1; add.push(r); }
    }
    const cmp = (a: number, b: number): number => {
      const x = f[a]!, y = f[b]!;
      return x < y ? -1 : x > y ? 1 : a - b;
    };
    add.sort(cmp);
    const out = new Int32Array(oldRows.length + add.length);
    let i = 0, j = 0, k = 0;
    while (i < oldRows.length || j < add.length) {
      if (j >= add.length || (i < oldRows.length && cmp(oldRows[i]!, add[j]!) <= 0)) out[k++] = oldRows[i++]!;
      else out[k++] = add[j++]!;
    }
    this.sorted = out;
    this.sortedKey = Array.from(out, (r) => f[r]!);
    this.sortedGen = Uint32Array.from(out, (r) => gen[r]!);
    this.delta = [];
    this.deltaGen = [];
  }

  /** Calls `visit(row)` for every live row whose folded name starts with `t` (duplicates possible). */
  prefix(t: string, visit: (row: number) => void): void {
    const keys = this.sortedKey;
    let lo = 0, hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keys[mid]! < t) lo = mid + 1;
      else hi = mid;
    }
    const gen = this.ix.gen;
    for (let i = lo; i < keys.length && keys[i]!.startsWith(t); i++) {
      const r = this.sorted[i]!;
      if (gen[r] === this.sortedGen[i]) visit(r);
    }
    const fn = this.ix.fnames;
    for (let i = 0; i < this.delta.length; i++) {
      const r = this.delta[i]!;
      if (gen[r] === this.deltaGen[i] && this.ix.isAlive(r) && fn[r]!.startsWith(t)) visit(r);
    }
  }

  /**
   * Calls `visit(row, firstIndex)` for every live row whose folded name contains `t`
   * (once per entry, with the index of the first occurrence in the name).
   */
  substring(t: string, visit: (row: number, firstIndex: number) => void): void {
    if (t.includes('/') || t.length === 0) return;
    const lists = isNarrow(t) ? [this.narrow, [this.openNarrow.seal()], this.wide, [this.openWide.seal()]] : [this.wide, [this.openWide.seal()]];
    const gen = this.ix.gen;
    for (const list of lists) {
      for (const c of list) {
        const text = c.text, starts = c.starts;
        let e = 0;
        let at = text.indexOf(t, 1);
        while (at >= 0) {
          // Advance to the entry holding `at` (starts is increasing; gallop then step).
          if (starts[e + 1]! <= at) {
            let step = 1;
            while (e + step < c.n && starts[e + step + 1]! <= at) step *= 2;
            let lo = e + (step >> 1), hi = Math.min(e + step, c.n - 1);
            while (lo < hi) {
              const mid = (lo + hi + 1) >> 1;
              if (starts[mid]! <= at) lo = mid;
              else hi = mid - 1;
            }
            e = lo;
          }
          const end = starts[e + 1]! - 1; // the separator after the entry
          if (at + t.length <= end) {
            const r = c.rows[e]!;
            if (gen[r] === c.gens[e]) visit(r, at - starts[e]!);
            at = text.indexOf(t, end + 1);
          } else {
            at = text.indexOf(t, at + 1);
          }
        }
      }
    }
  }
}
