/**
 * The inverse of case folding over the BMP, built once: which code units fold to a given one.
 * The prefix index walks only the regions of a name group whose first character can fold to
 * the term's first character (name-index.ts `prefixGroup`).
 */
import { foldCase } from '../../app/search/fold.js';

let inverseFold: Map<number, number[]> | undefined;

/** The BMP code units whose fold is `c`, ascending; undefined for surrogates. */
export function preimages(c: number): readonly number[] | undefined {
  if (c >= 0xd800 && c <= 0xdfff) return undefined;
  if (!inverseFold) {
    inverseFold = new Map();
    for (let x = 0; x < 0x10000; x++) {
      if (x >= 0xd800 && x <= 0xdfff) continue;
      const f = foldCase(String.fromCharCode(x)).charCodeAt(0);
      let l = inverseFold.get(f);
      if (!l) inverseFold.set(f, (l = []));
      l.push(x);
    }
  }
  return inverseFold.get(c) ?? [];
}
