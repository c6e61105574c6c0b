/**
 * Strategy for one term of 3+ code units whose trigrams are all frequent: take the rarest,
 * at offset k in the term, and visit objects in order of its first position f (the term's
 * first location is at least f - k), word starts first; stop once that bound is past the
 * page's worst key.
 */
import type { NamePass, NameStrategy } from '../name-pass.js';
import { oneTerm } from './when.js';

export const frequentTrigrams: NameStrategy = {
  name: 'frequent-trigrams',
  applies: (p) => oneTerm(p) && p.view.allFrequent(p.terms[0]!),
  run(pass: NamePass): boolean {
    const { view } = pass;
    const b = view.base;
    const t0 = pass.terms[0]!;
    const blob = b.blob,
      starts = b.starts;
    let kBest = 0,
      g = -1;
    for (let i = 0; i + 3 <= t0.length; i++) {
      const sl = view.slot(t0, i)!;
      if (g < 0 || view.slotCount(sl) < view.slotCount(g)) {
        g = sl;
        kBest = i;
      }
    }
    /** Visits list[from, to) (objects with their trigram position); false once the page is proven. */
    const visit = (list: Uint32Array, pos: Uint8Array, from: number, to: number, wantWs: boolean, k: number): void => {
      for (let e = from; e < to; e++) {
        const p = Math.max(0, pos[e]! - k);
        const o = list[e]!;
        const s0 = starts[o]!,
          end = starts[o + 1]! - 1;
        const bound = pass.local.bound;
        // Later entries have a first location at p or after, and within p a larger (length, name, id).
        if (bound && (p > bound.index || (p === bound.index && view.tailNotBefore(o, end - s0, bound)))) return;
        if (pass.skip(o)) continue;
        const fname = blob.substring(s0, end);
        const at = fname.indexOf(t0, p);
        if (at < 0) continue;
        if (bound && (at > bound.index || (at === bound.index && view.tailNotBefore(o, end - s0, bound)))) continue;
        if (pass.evaluate(o, fname, wantWs)) return;
      }
    };
    // Word starts: every object whose key has wordStart holds the FIRST trigram at a word start.
    const g0 = view.slot(t0, 0)!;
    visit(b.wsList, b.wsPos, b.wsStart[g0]!, b.wsStart[g0 + 1]!, true, 0);
    // The rest only matter while the page is not full of word-start matches.
    if (pass.open) visit(b.freqList, b.freqPos, b.freqStart[g]!, b.freqStart[g + 1]!, false, kBest);
    return true;
  },
};
