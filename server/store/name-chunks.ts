/**
 * Name chunks, one of NameIndex's candidate structures (name-index.ts decides when to add and
 * when to rebuild): the folded names joined by "/" (never inside a name) in strings of a few
 * thousand entries, Latin-1 and two-byte kept apart, scanned with indexOf for substrings.
 * Each entry carries its row and the row's generation when added: an entry whose generation
 * is not the row's current one is stale and skipped.
 */
import { isWordBefore } from '../../app/search/fold.js';
import type { SortKey } from '../../app/search/order.js';

const CHUNK_ENTRIES = 4096;

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
    this.cached = {
      text: '/' + this.parts.join('/') + '/',
      starts,
      rows: Int32Array.from(this.rows),
      gens: Uint32Array.from(this.gens),
      n: this.parts.length,
    };
    return this.cached;
  }
}

/** Latin-1 only: such a name can only hold a Latin-1 term. */
const isNarrow = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0xff) return false;
  return true;
};

export class NameChunks {
  private narrow: Chunk[] = [];
  private wide: Chunk[] = [];
  private openNarrow = new OpenChunk();
  private openWide = new OpenChunk();
  /** Entries held, stale ones included (the owner rebuilds when too many are stale). */
  entries = 0;

  add(name: string, row: number, gen: number): void {
    const narrow = isNarrow(name);
    const open = narrow ? this.openNarrow : this.openWide;
    open.add(name, row, gen);
    this.entries++;
    if (open.size >= CHUNK_ENTRIES) {
      (narrow ? this.narrow : this.wide).push(open.seal());
      if (narrow) this.openNarrow = new OpenChunk();
      else this.openWide = new OpenChunk();
    }
  }

  /** The chunks that can hold `t`: all for a Latin-1 term, the two-byte ones otherwise. */
  private lists(t: string): Chunk[][] {
    return isNarrow(t) ? [this.narrow, [this.openNarrow.seal()], this.wide, [this.openWide.seal()]] : [this.wide, [this.openWide.seal()]];
  }

  /**
   * The single-term name scan with pruning done in place: for every live row whose folded
   * name contains `t`, computes the first occurrence, whether some occurrence starts a word
   * and the name length, and calls `visit` only when that (field 0) lower bound could still
   * beat `bound()` (the current k-th best key, or undefined while the page is not full).
   * `gen` is the rows' current generations.
   */
  scanSingle(
    t: string,
    gen: Uint32Array,
    bound: () => SortKey | undefined,
    visit: (row: number, wordStart: boolean, first: number) => void,
  ): void {
    if (t.includes('/') || t.length === 0) return;
    const tl = t.length;
    for (const list of this.lists(t)) {
      for (const c of list) {
        const text = c.text,
          starts = c.starts,
          n = c.n;
        let e = 0;
        let at = text.indexOf(t, 1);
        while (at >= 0) {
          if (starts[e + 1]! <= at) {
            // the entry holding `at`, from entry e onwards (the scan only moves forward): gallop, then binary search
            let step = 1;
            while (e + step < n && starts[e + step + 1]! <= at) step *= 2;
            let lo = e + (step >> 1),
              hi = Math.min(e + step, n - 1);
            while (lo < hi) {
              const mid = (lo + hi + 1) >> 1;
              if (starts[mid]! <= at) lo = mid;
              else hi = mid - 1;
            }
            e = lo;
          }
          const start = starts[e]!;
          const end = starts[e + 1]! - 1;
          if (at + tl > end) {
            at = text.indexOf(t, at + 1);
            continue;
          }
          const first = at - start;
          const len = end - start;
          // wordStart: some occurrence in this entry starts a word (entries are preceded by "/").
          let ws = !isWordBefore(text, at);
          let x = text.indexOf(t, at + 1);
          while (x >= 0 && x + tl <= end) {
            if (!ws && !isWordBefore(text, x)) ws = true;
            x = text.indexOf(t, x + 1);
          }
          const b = bound();
          const skip =
            b !== undefined &&
            b.field === 0 &&
            ((b.wordStart && !ws) || (b.wordStart === ws && (first > b.index || (first === b.index && len > b.nameLength))));
          if (!skip) {
            const r = c.rows[e]!;
            if (gen[r] === c.gens[e]) visit(r, ws, first);
          }
          at = x;
        }
      }
    }
  }

  /**
   * Calls `visit(row, firstIndex)` for every live row whose folded name contains `t`
   * (once per entry, with the index of the first occurrence in the name).
   */
  substring(t: string, gen: Uint32Array, visit: (row: number, firstIndex: number) => void): void {
    // the entry search is written out here and in scanSingle on purpose: shared, it measured
    // 1-5 % slower on terms with many substring matches (the hottest loop of the service)
    if (t.includes('/') || t.length === 0) return;
    for (const list of this.lists(t)) {
      for (const c of list) {
        const text = c.text,
          starts = c.starts,
          n = c.n;
        let e = 0;
        let at = text.indexOf(t, 1);
        while (at >= 0) {
          if (starts[e + 1]! <= at) {
            // advance to the entry holding `at` (starts is increasing; gallop then step)
            let step = 1;
            while (e + step < n && starts[e + step + 1]! <= at) step *= 2;
            let lo = e + (step >> 1),
              hi = Math.min(e + step, n - 1);
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
