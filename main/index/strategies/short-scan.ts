/**
 * Strategy for one term of 1-2 code units: scans the folded-name blob in number order. The
 * first hit in a name is its first location and the next search starts at the name's end,
 * so each name costs one indexOf; stops once the page is proven.
 */
import type { NamePass, NameStrategy } from '../name-pass.js';
import { objectAt } from '../postings.js';
import { wordBefore } from '../base-index.js';
import { oneShortTerm } from './when.js';

export const shortScan: NameStrategy = {
  name: 'short-scan',
  applies: oneShortTerm,
  run(pass: NamePass): boolean {
    const { view } = pass;
    const b = view.base;
    const t0 = pass.terms[0]!;
    const blob = b.blob,
      starts = b.starts,
      n = b.n;
    let at = blob.indexOf(t0, 0);
    let o = 0;
    while (at >= 0) {
      o = objectAt(b, at, o);
      const s0 = starts[o]!,
        end = starts[o + 1]! - 1;
      const next = blob.indexOf(t0, end);
      if (!view.dead[o]) {
        const first = at - s0;
        const bound = pass.local.bound;
        // Later names have a larger (length, name, id): only a smaller first location,
        // or a word start when the bound has none, can beat the bound.
        let go = !bound || first < bound.index;
        if (!go && !bound!.wordStart) {
          for (let x = at; x >= 0 && x < end; x = blob.indexOf(t0, x + 1)) {
            if (!wordBefore(b, o, x - s0)) {
              go = true;
              break;
            }
          }
        }
        // the narrowing (filters) last: most objects are pruned by the bound first
        if (go && !pass.skip(o) && pass.evaluate(o, blob.substring(s0, end))) break;
      }
      at = next;
      if (++o >= n) break;
    }
    return true;
  },
};
