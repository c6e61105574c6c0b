/**
 * Strategy for one term of 1-2 code units: evaluates the term's first-page list
 * (short-grams.ts) and keeps its matches only when the list proves the best limit + 1 name
 * matches after the cursor. A term without a list when every gram has one is in no name.
 * Declines (keeps nothing) when the term has no list (over the budget) or the list does
 * not prove the page; the blob scan runs then.
 */
import { TopK, compareKeys, isWordBefore, matchDoc, type SortKey } from '../../../app/search/index.js';
import { idOf, nameOf } from '../base-index.js';
import type { Hit, NamePass, NameStrategy } from '../name-pass.js';
import { SHORT_MAX_FIRST, shortKey } from '../short-grams.js';
import { oneShortTerm } from './when.js';

export const shortList: NameStrategy = {
  name: 'short-list',
  applies: oneShortTerm,
  run(pass: NamePass): boolean {
    const { view, query, after, limit } = pass;
    const b = view.base;
    const t = pass.terms[0]!;
    const s = view.shortSlot(shortKey(t));
    // no list: no base name holds the term when every gram has one, else the blob scan runs
    if (s === undefined) return b.shortAll === 1;
    const from = b.shortStart[s]!,
      to = b.shortStart[s + 1]!;
    const tmp = new TopK<Hit>(limit + 1);
    for (let e = from; e < to; e++) {
      const o = b.shortList[e]!;
      if (pass.skip(o)) continue;
      const { doc, folded } = view.docAt(o, view.fname(o));
      const m = matchDoc(doc, query, folded);
      if (!m || m.key.field !== 0) continue;
      if (after && compareKeys(m.key, after) <= 0) continue;
      tmp.push(m.key, { id: doc.id, match: m });
    }
    // A list shorter than shortTop holds every object with the term; else its last entry's
    // occurrence key bounds every object outside it from below.
    if (to - from >= b.shortTop) {
      const worst = tmp.bound;
      if (!worst) return false;
      const last = b.shortList[to - 1]!;
      const name = nameOf(b, last);
      const fname = view.fname(last);
      const first = fname.indexOf(t);
      if (first < 0 || first >= SHORT_MAX_FIRST) return false;
      let ws = false;
      for (let x = first; !ws && x >= 0; x = fname.indexOf(t, x + 1)) ws = !isWordBefore(name, x);
      const occ: SortKey = { field: 0, wordStart: ws, index: first, nameLength: name.length, name, id: idOf(b, last) };
      if (compareKeys(worst, occ) >= 0) return false;
    }
    for (const x of tmp.sorted()) pass.local.push(x.key, x.value);
    return true;
  },
};
