/**
 * Strategy for one term of 3+ code units with some infrequent trigram: the intersection of
 * its trigram postings, in number order; the first location is one indexOf away.
 */
import type { NamePass, NameStrategy } from '../name-pass.js';
import { oneTerm } from './when.js';

export const trigram: NameStrategy = {
  name: 'trigram',
  applies: oneTerm,
  run(pass: NamePass): boolean {
    const { view } = pass;
    const t0 = pass.terms[0]!;
    for (const o of view.nameCandidates(t0)) {
      if (pass.skip(o)) continue;
      const fname = view.fname(o);
      const at = fname.indexOf(t0);
      if (at < 0) continue;
      if (pass.pruned(o, at)) continue;
      if (pass.evaluate(o, fname)) break;
    }
    return true;
  },
};
