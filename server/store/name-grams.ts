/**
 * Word-start and positional buckets, one of NameIndex's candidate structures (name-index.ts
 * decides when to add and when to rebuild): for each folded name, the rows by the first one
 * and two code units of each word start, and by (position < POSITIONS, two code units).
 * Entries carry the row's generation when added; stale entries are the reader's to skip.
 */
import { isWordBefore } from '../../app/search/fold.js';

/** How many leading positions of each name the positional bigram index covers. */
export const POSITIONS = 12;

/** A growable list of (row, generation) entries. */
export class Bucket {
  rows = new Int32Array(8);
  gens = new Uint32Array(8);
  n = 0;
  push(r: number, g: number): void {
    if (this.n === this.rows.length) {
      const rows = new Int32Array(this.n * 2),
        gens = new Uint32Array(this.n * 2);
      rows.set(this.rows);
      gens.set(this.gens);
      this.rows = rows;
      this.gens = gens;
    }
    this.rows[this.n] = r;
    this.gens[this.n++] = g;
  }
}

export class NameGrams {
  /** Word starts (position 0, or after a non-word character): by first code unit, and by first two. */
  private ws1 = new Map<number, Bucket>();
  private ws2 = new Map<number, Bucket>();
  /** Positional bigrams: (position < POSITIONS, two code units) -> rows holding them there. */
  private pos = new Map<number, Bucket>();

  add(name: string, r: number, g: number): void {
    const np = Math.min(POSITIONS, name.length - 1);
    for (let p = 0; p < np; p++) {
      const k = p * 4294967296 + name.charCodeAt(p) * 65536 + name.charCodeAt(p + 1);
      let b = this.pos.get(k);
      if (!b) this.pos.set(k, (b = new Bucket()));
      b.push(r, g);
    }
    for (let p = 0; p < name.length; p++) {
      if (p > 0 && isWordBefore(name, p)) continue;
      const c0 = name.charCodeAt(p);
      let b = this.ws1.get(c0);
      if (!b) this.ws1.set(c0, (b = new Bucket()));
      b.push(r, g);
      if (p + 1 < name.length) {
        const k2 = c0 * 65536 + name.charCodeAt(p + 1);
        let b2 = this.ws2.get(k2);
        if (!b2) this.ws2.set(k2, (b2 = new Bucket()));
        b2.push(r, g);
      }
    }
  }

  /**
   * The rows (with generations; stale entries possible) that have a word start whose
   * text begins with the first one or two code units of `t`: every row where `t` occurs at
   * a word start is among them.
   */
  wordStartBucket(t: string): Bucket | undefined {
    if (t.length === 0) return undefined;
    return t.length === 1 ? this.ws1.get(t.charCodeAt(0)) : this.ws2.get(t.charCodeAt(0) * 65536 + t.charCodeAt(1));
  }

  /** Rows (stale entries possible) whose folded name holds `t`'s first two code units at position `p`. */
  positionBucket(t: string, p: number): Bucket | undefined {
    if (t.length < 2 || p >= POSITIONS) return undefined;
    return this.pos.get(p * 4294967296 + t.charCodeAt(0) * 65536 + t.charCodeAt(1));
  }
}
