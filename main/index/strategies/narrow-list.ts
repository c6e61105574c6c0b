/**
 * Strategy for a narrowed page (the search filters) whose filters keep fewer objects than
 * the terms' candidates: visits the kept objects themselves, in number order, as the
 * multi-term scan does (a frequent word with a filter keeping a small share of the mirror
 * costs the kept objects up to the page's proof, not every object holding the word).
 */
import type { NamePass, NameStrategy } from '../name-pass.js';
import { scanInOrder } from './multi-term.js';

export const narrowList: NameStrategy = {
  name: 'narrow-list',
  applies(pass: NamePass): boolean {
    const kept = pass.narrow?.numbers;
    if (!kept) return false;
    const { view, terms, driver } = pass;
    const est = driver >= 0 ? view.estimate(terms[driver]!) : terms.reduce((sum, t) => sum + view.estimate(t), 0);
    // a rare term's candidates are cheap to scan: not worth a pass over every object
    if (est * 64 < view.base.n) return false;
    return kept().length * 2 < est;
  },
  run(pass: NamePass): boolean {
    scanInOrder(pass, pass.narrow!.numbers!(), true);
    return true;
  },
};
