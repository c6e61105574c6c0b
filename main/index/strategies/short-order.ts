/**
 * Strategy for a narrowed page (the search filters) of one term of 1-2 code units: walks the
 * term's holders in answer order (short-order.ts), skipping removed objects and those the
 * filters reject (a typed-array test each), and stops once the next occurrence key is past
 * the page's worst key. Chosen over narrow-list (a visit of every kept object, a name scan
 * each) because its expected cost is about (limit + 1) / (the filters' share of the term's
 * holders) cheap tests and its worst (a filter keeping none of them) one cheap test per
 * holder, while a kept object costs a name scan; and over short-list/short-scan, which
 * prove a narrowed page only after a scan of every name when the filters reject the best
 * matches (`e in:"Photos"`: no name there holds "e" at a word start).
 */
import type { NamePass, NameStrategy } from '../name-pass.js';
import { shortOrderOf } from '../short-order.js';
import { oneShortTerm } from './when.js';

export const shortOrder: NameStrategy = {
  name: 'short-order',
  applies: (p) => p.narrow !== undefined && oneShortTerm(p),
  run(pass: NamePass): boolean {
    const { view } = pass;
    const b = view.base;
    const { list, first, wsEnd } = shortOrderOf(b, pass.terms[0]!);
    const starts = b.starts;
    for (let e = 0; e < list.length; e++) {
      const o = list[e]!;
      const bound = pass.local.bound;
      if (bound) {
        // entries come in (word start first, first index, number) order: once one's
        // occurrence key is not before the bound, no later one's true key is either
        const ws = e < wsEnd;
        const c = ws !== bound.wordStart ? (ws ? -1 : 1) : first[e]! - bound.index;
        if (c > 0 || (c === 0 && view.tailNotBefore(o, starts[o + 1]! - 1 - starts[o]!, bound))) break;
      }
      if (pass.skip(o)) continue;
      if (pass.evaluate(o, view.fname(o))) break;
    }
    return true;
  },
};
