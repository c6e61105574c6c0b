/**
 * Read-only lookups over the offline index's base (base-index.ts) with its tombstones:
 * the doc of an object number, trigram and first-page-list slots, candidate estimates and
 * the per-object tests the name strategies (strategies/) prune with.
 */
import { compareCodePoints, foldCase, isWordBefore, type SortKey } from '../../app/search/index.js';
import { idOf, nameOf, triKey, type BaseData } from './base-index.js';
import type { IndexDoc } from './engine.js';
import { blobScan, intersect } from './postings.js';

export const foldOpt = (s: string | undefined): string | undefined => (s === undefined ? undefined : foldCase(s));

export class BaseView {
  private readonly slotOf = new Map<number, number>();
  private readonly shortSlots = new Map<number, number>();
  /** Folded (make, model, mime) of each combo. */
  readonly comboFolded: [string | undefined, string | undefined, string][];

  constructor(
    readonly base: BaseData,
    readonly dead: Uint8Array,
  ) {
    const k = base.triKeys;
    for (let s = 0; s < k.length; s++) this.slotOf.set(k[s]!, s);
    const sk = base.shortKeys;
    for (let s = 0; s < sk.length; s++) this.shortSlots.set(sk[s]!, s);
    this.comboFolded = base.combos.map((c) => [foldOpt(c.make), foldOpt(c.model), foldCase(c.mime)]);
  }

  /** The folded name of object o. */
  fname(o: number): string {
    const b = this.base;
    return b.blob.substring(b.starts[o]!, b.starts[o + 1]! - 1);
  }

  /** The doc of base object o and its folded fields. */
  docAt(o: number, fname: string): { doc: IndexDoc; folded: (string | undefined)[] } {
    const b = this.base;
    const c = b.combos[b.combo[o]!]!;
    const cf = this.comboFolded[b.combo[o]!]!;
    const doc: IndexDoc = { id: idOf(b, o), name: nameOf(b, o), mimeType: c.mime };
    if (c.make !== undefined) doc.cameraMake = c.make;
    if (c.model !== undefined) doc.cameraModel = c.model;
    return { doc, folded: [fname, cf[0], cf[1], cf[2]] };
  }

  /** The trigram slot of `t` at offset i, undefined when no name holds it. */
  slot(t: string, i: number): number | undefined {
    return this.slotOf.get(triKey(t, i));
  }

  /** The first-page-list slot (short-grams.ts) of a 1-2 code unit key. */
  shortSlot(key: number): number | undefined {
    return this.shortSlots.get(key);
  }

  /** Objects holding trigram slot s. */
  slotCount(s: number): number {
    const b = this.base;
    return b.triStart[s + 1]! - b.triStart[s]! + b.freqStart[s + 1]! - b.freqStart[s]!;
  }

  /** True when every trigram of the term is frequent (has positional postings only). */
  allFrequent(t: string): boolean {
    if (t.length < 3) return false;
    for (let i = 0; i + 3 <= t.length; i++) {
      const s = this.slot(t, i);
      if (s === undefined || this.base.freqStart[s + 1]! === this.base.freqStart[s]!) return false;
    }
    return true;
  }

  /** How many candidates a term's name lookup may give. */
  estimate(t: string): number {
    if (t.length < 3) return this.base.n;
    let best = Infinity;
    for (let i = 0; i + 3 <= t.length; i++) {
      const s = this.slot(t, i);
      if (s === undefined) return 0;
      best = Math.min(best, this.slotCount(s));
    }
    return best;
  }

  /** Objects whose folded name may hold `t`, in number order (a superset). */
  nameCandidates(t: string): Iterable<number> {
    const b = this.base;
    if (t.includes('\0')) return [];
    if (t.length < 3) return blobScan(b, t);
    const lists: [number, number][] = [];
    let smallestFreq = -1;
    for (let i = 0; i + 3 <= t.length; i++) {
      const s = this.slot(t, i);
      if (s === undefined) return [];
      if (b.freqStart[s + 1]! > b.freqStart[s]!) {
        if (smallestFreq < 0 || this.slotCount(s) < this.slotCount(smallestFreq)) smallestFreq = s;
      } else lists.push([b.triStart[s]!, b.triStart[s + 1]!]);
    }
    if (lists.length === 0) {
      // only frequent trigrams: their postings are in position order; sort one by number
      return b.freqList.slice(b.freqStart[smallestFreq]!, b.freqStart[smallestFreq + 1]!).sort();
    }
    lists.sort((x, y) => x[1] - x[0] - (y[1] - y[0]));
    return intersect(b.triList, lists.slice(0, 3));
  }

  /** True when object o's (name length, name, id) is not before the bound's. */
  tailNotBefore(o: number, len: number, bound: SortKey): boolean {
    if (len !== bound.nameLength) return len > bound.nameLength;
    const c = compareCodePoints(nameOf(this.base, o), bound.name);
    return c !== 0 ? c > 0 : compareCodePoints(idOf(this.base, o), bound.id) >= 0;
  }

  /** Whether some occurrence of some term in the name of o starts a word (a superset of rule 7's test). */
  anyWordStart(o: number, terms: readonly string[]): boolean {
    const name = nameOf(this.base, o);
    const fname = this.fname(o);
    for (const t of terms) {
      for (let at = fname.indexOf(t); at >= 0; at = fname.indexOf(t, at + 1)) {
        if (!isWordBefore(name, at)) return true;
      }
    }
    return false;
  }
}
