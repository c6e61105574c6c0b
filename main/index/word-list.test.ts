import SearchableMap from 'minisearch/SearchableMap';
import { describe, expect, it } from 'vitest';
import { prng } from '../../app/util/prng.js';
import { MERGE_AT, WordList } from './word-list.js';

/** Random words over a small alphabet (many shared prefixes and near neighbours), some accented. */
function randomWords(seed: number, n: number): string[] {
  const r = prng(seed);
  const letters = 'aabcdeeilnorstué';
  const out = new Set<string>();
  while (out.size < n) {
    const len = 2 + Math.floor(r() * 9);
    let w = '';
    for (let i = 0; i < len; i++) w += letters[Math.floor(r() * letters.length)];
    out.add(w);
  }
  return [...out];
}

const sorted = (m: Map<string, number>): [string, number][] => [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1));

describe('WordList', () => {
  it("finds the same words within an edit distance as minisearch's radix tree, with the same distances", () => {
    const words = randomWords(1, 5000);
    const list = WordList.fromCounts(new Map(words.map((w) => [w, 1])));
    const tree = new SearchableMap<number>();
    for (const w of words) tree.set(w, 1);
    const r = prng(2);
    const queries = [...randomWords(3, 300), ...words.slice(0, 100), 'a', 'zz', 'éééé'];
    let found = 0;
    for (const q of queries) {
      for (const d of [1, 2, 3]) {
        const want = new Map([...tree.fuzzyGet(q, d)].map(([w, [, dist]]) => [w, dist]));
        expect(sorted(list.within(q, d)), `${q} within ${d}`).toEqual(sorted(want));
        found += want.size;
      }
      if (r() < 0.1) expect([...list.withPrefix(q)]).toEqual([...tree.atPrefix(q).keys()].sort());
    }
    expect(found).toBeGreaterThan(1000); // the queries did meet words
  });

  it('follows adds and removes: counts, prefixes and near words, across merges', () => {
    const list = new WordList();
    const model = new Map<string, number>();
    const r = prng(4);
    const pool = randomWords(5, 3 * MERGE_AT);
    for (let step = 0; step < 6 * MERGE_AT; step++) {
      const w = pool[Math.floor(r() * pool.length)]!;
      if (r() < 0.6) {
        list.add(w);
        model.set(w, (model.get(w) ?? 0) + 1);
      } else {
        list.remove(w);
        const n = model.get(w);
        if (n === 1) model.delete(w);
        else if (n !== undefined) model.set(w, n - 1);
      }
    }
    expect(list.size).toBe(model.size);
    for (const w of pool.slice(0, 500)) expect(list.count(w)).toBe(model.get(w) ?? 0);
    const saved = list.toSorted();
    expect(saved.words).toEqual([...model.keys()].sort());
    expect(saved.counts).toEqual(saved.words.map((w) => model.get(w)));
    const tree = new SearchableMap<number>();
    for (const w of model.keys()) tree.set(w, 1);
    for (const q of pool.slice(0, 200)) {
      expect([...list.withPrefix(q.slice(0, 3))].sort()).toEqual([...tree.atPrefix(q.slice(0, 3)).keys()].sort());
      expect(sorted(list.within(q, 2))).toEqual(sorted(new Map([...tree.fuzzyGet(q, 2)].map(([w, [, d]]) => [w, d]))));
    }
  });

  it('a word used again after its last use went is found again, once', () => {
    const list = new WordList(['beach', 'holiday'], [1, 2]);
    list.remove('beach');
    expect([...list.withPrefix('b')]).toEqual([]);
    expect(list.within('beach', 1).size).toBe(0);
    list.add('beach');
    expect([...list.withPrefix('b')]).toEqual(['beach']);
    expect(list.toSorted()).toEqual({ words: ['beach', 'holiday'], counts: [1, 2] });
  });
});
