/**
 * Strategy for several terms (and the fallback): candidates of the driver term (one no
 * make/model/mime holds, so every match holds it in the name), else the merged candidates
 * of every term; an object is evaluated when each term is in its name or its combo.
 */
import type { NamePass, NameStrategy } from '../name-pass.js';
import { mergeUnique } from '../postings.js';

export const multiTerm: NameStrategy = {
  name: 'multi-term',
  applies: () => true,
  run(pass: NamePass): boolean {
    const { view, terms, driver } = pass;
    const sources = driver >= 0 ? [view.nameCandidates(terms[driver]!)] : terms.map((t) => view.nameCandidates(t));
    scanInOrder(pass, sources.length === 1 ? sources[0]! : mergeUnique(sources));
    return true;
  },
};

/**
 * Evaluates candidates met in number order (a superset of the page's name matches): an
 * object when each term is in its name or its combo, until the page is proven. `kept`:
 * the candidates are the narrowing's own list (numbers()), so only removal is checked.
 */
export function scanInOrder(pass: NamePass, cands: Iterable<number>, kept = false): void {
  const { view, terms, cover } = pass;
  const b = view.base;
  const dead = view.dead;
  for (const o of cands) {
    if (kept ? dead[o] === 1 : pass.skip(o)) continue;
    const fname = view.fname(o);
    let ok = true,
      first = Infinity;
    const c = b.combo[o]!;
    for (let i = 0; i < terms.length; i++) {
      const at = fname.indexOf(terms[i]!);
      if (at >= 0) {
        if (at < first) first = at;
      } else if (!cover[i]![c]) {
        ok = false;
        break;
      }
    }
    if (!ok || first === Infinity) continue;
    if (pass.pruned(o, first)) continue;
    if (pass.evaluate(o, fname)) break;
  }
}
