import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { foldCase } from '../../app/search/index.js';
import { generateDemo } from '../../server/demo/generate.js';
import { Vocabulary, wordsOf } from './vocabulary.js';

/** The completions as the vocabulary gave them until s35: one minisearch document per word. */
function minisearchSuggest(counts: Map<string, number>): (prefix: string, limit?: number) => string[] {
  const ms = new MiniSearch<{ id: number; word: string }>({
    fields: ['word'],
    storeFields: ['word'],
    tokenize: (s) => [s],
    processTerm: (t) => t,
    searchOptions: { tokenize: (s) => [foldCase(s)], processTerm: (t) => t },
  });
  let id = 1;
  ms.addAll([...counts.keys()].map((word) => ({ id: id++, word })));
  return (prefix, limit = 8) => {
    const p = foldCase(prefix.trim());
    if (p.length === 0) return [];
    const hits = ms.search(p, { prefix: true, fuzzy: p.length >= 4 ? 0.2 : false, combineWith: 'OR' });
    const scored = hits.map((h) => {
      const w = h['word'] as string;
      return { w, starts: w.startsWith(p) ? 0 : 1, n: counts.get(w) ?? 0 };
    });
    scored.sort((a, b) => a.starts - b.starts || b.n - a.n || a.w.length - b.w.length || (a.w < b.w ? -1 : a.w > b.w ? 1 : 0));
    return scored.slice(0, limit).map((s) => s.w);
  };
}

describe('Vocabulary', () => {
  const objects = [...generateDemo({ objects: 20_000, seed: 3 })].map((o) => ({ name: o.name, image: o.image }));

  it('completes exactly as the minisearch vocabulary did: prefix matches first, near words from 4 characters, most used first', () => {
    const v = Vocabulary.build(objects);
    const counts = new Map<string, number>();
    for (const o of objects) for (const w of wordsOf(o)) counts.set(w, (counts.get(w) ?? 0) + 1);
    expect(v.size).toBe(counts.size);
    const reference = minisearchSuggest(counts);
    const words = [...counts.keys()];
    const prefixes = ['i', 'im', 'img', 'ho', 'holi', 'holid', 'holliday', 'beahc', 'sunste', 'vacaton', 'DSC', ' Pho ', 'zzzz', 'é'];
    for (let i = 0; i < words.length; i += 97) {
      const w = words[i]!;
      prefixes.push(w.slice(0, 2), w.slice(0, 4), w.slice(0, 3) + 'x' + w.slice(3), w.slice(1));
    }
    let fuzzyOnes = 0;
    for (const p of prefixes) {
      const got = v.suggest(p);
      expect(got, p).toEqual(reference(p));
      if (got.some((w) => !w.startsWith(foldCase(p.trim())))) fuzzyOnes++;
    }
    expect(fuzzyOnes).toBeGreaterThan(5); // near words were offered, not only prefixes
    expect(v.suggest('ho', 3)).toEqual(reference('ho', 3));
  });

  it('corrects an unknown word to the most used near one; known words and short ones stay', () => {
    const v = Vocabulary.build([
      { name: 'holiday 1.jpg' },
      { name: 'holiday 2.jpg' },
      { name: 'holly.jpg' },
      { name: 'beach.png' },
      { name: 'Bench 1.txt' },
      { name: 'Bench 2.txt' },
    ]);
    expect(v.corrections(['holliday'])).toEqual(['holiday']);
    expect(v.corrections(['holiday'])).toEqual([]);
    // each term corrected, then one term varied at a time
    expect(v.corrections(['holida', 'beech'])).toEqual(['holiday bench', 'holiday beach']);
    // two edits only from 6 characters
    expect(v.corrections(['beahc'])).toEqual([]);
    expect(v.corrections(['xq'])).toEqual([]);
  });

  it('follows changes: a renamed object takes its old words away and brings its new ones', () => {
    const v = Vocabulary.build([{ name: 'sunset.jpg' }, { name: 'sunrise.jpg' }]);
    const before = { id: 'a', name: 'sunset.jpg' };
    const after = { id: 'a', name: 'moonrise.jpg' };
    v.applyChanges([{ kind: 'updated', before, after } as never]);
    expect(v.suggest('sun')).toEqual(['sunrise']);
    expect(v.suggest('moo')).toEqual(['moonrise']);
    expect(v.suggest('jp')).toEqual(['jpg']);
    expect(Vocabulary.fromJSON(v.toJSON()).suggest('mo')).toEqual(['moonrise']);
  });
});
