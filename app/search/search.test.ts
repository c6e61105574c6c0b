import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  type SortKey,
  compareCodePoints,
  compareKeys,
  decodeListingToken,
  decodeSearchToken,
  encodeListingToken,
  encodeSearchToken,
  foldCase,
  locate,
  matchDoc,
  parseQuery,
  selectPage,
  type SearchDoc,
} from './index.js';

const doc = (name: string, extra: Partial<SearchDoc> = {}): SearchDoc => ({ id: name, name, mimeType: 'text/plain', ...extra });
const q = (s: string) => {
  const r = parseQuery(s);
  if (!r.ok) throw new Error(r.message);
  return r.query;
};

describe('search.md worked examples', () => {
  const cases: [string, SearchDoc, number, { index: number; length: number }[]][] = [
    ['hello', doc('hello.txt'), 0, [{ index: 0, length: 5 }]],
    ['hel', doc('hello.txt'), 0, [{ index: 0, length: 5 }]],
    ['ello', doc('hello.txt'), 0, [{ index: 1, length: 4 }]],
    ['2041', doc('IMG_2041.JPG'), 0, [{ index: 4, length: 4 }]],
    ['rom', doc('Holiday in Rome 2019.mp4'), 0, [{ index: 11, length: 4 }]],
    ['x.wd.dir', { id: 'd', name: 'Photos', mimeType: 'application/x.wd.dir' }, 0, [{ index: 12, length: 8 }]],
    ['canon', doc('IMG_1.JPG', { cameraMake: 'Canon' }), 0, [{ index: 0, length: 5 }]],
    [
      'holiday rome',
      doc('Holiday in Rome 2019.mp4'),
      0,
      [
        { index: 0, length: 7 },
        { index: 11, length: 4 },
      ],
    ],
    ['"in rome"', doc('Holiday in Rome 2019.mp4'), 0, [{ index: 8, length: 7 }]],
    [
      'aa',
      doc('aaaa aa'),
      0,
      [
        { index: 0, length: 4 },
        { index: 5, length: 2 },
      ],
    ],
  ];
  it.each(cases)('%s', (query, d, fragIndex, locations) => {
    const m = matchDoc(d, q(query));
    expect(m).toBeDefined();
    expect(m!.fragments[fragIndex]!.locations).toEqual(locations);
  });

  it('orders hello.txt, helloworld.txt, world hello.txt', () => {
    const docs = ['world hello.txt', 'helloworld.txt', 'hello.txt'].map((n) => doc(n));
    const page = selectPage(
      docs.map((d) => ({ doc: d, value: d.name })),
      q('hello'),
      20,
      null,
    );
    expect(page.items.map((i) => i.value)).toEqual(['hello.txt', 'helloworld.txt', 'world hello.txt']);
    expect(page.pageToken).toBe('');
  });
});

describe('rules', () => {
  it('parses terms and quotes', () => {
    expect(q('a  b').terms).toEqual(['a', 'b']);
    expect(q('"in rome" x').terms).toEqual(['in rome', 'x']);
    expect(q('"open').terms).toEqual(['open']);
    for (const bad of ['', '   ', '""', '"" ""']) expect(parseQuery(bad).ok).toBe(false);
    expect(parseQuery('x'.repeat(1025)).ok).toBe(false);
  });
  it('folds without changing length', () => {
    expect(foldCase('İstanbul').length).toBe('İstanbul'.length);
    expect(foldCase('HeLLo ÄÖ')).toBe('hello äö');
    expect(foldCase('𐐀')).toBe('𐐨'); // Deseret: astral upper -> lower, same length
  });
  it('needs every term, in any field', () => {
    const d = doc('IMG_1.JPG', { cameraMake: 'Canon', cameraModel: 'EOS 5D' });
    expect(matchDoc(d, q('img canon'))).toBeDefined();
    expect(matchDoc(d, q('img nikon'))).toBeUndefined();
    expect(matchDoc(d, q('img canon'))!.fragments.map((f) => f.text)).toEqual(['IMG_1.JPG', 'Canon']);
  });
  it('drops overlapping locations, longer first on a tie', () => {
    expect(locate('hello', 'hello', ['hell', 'ell'])).toEqual([{ index: 0, length: 5 }]);
    expect(locate('ab-cd', 'ab-cd', ['b-c', 'cd'])).toEqual([{ index: 1, length: 4 }]);
  });
  it('word start counts only in name', () => {
    const a = matchDoc(doc('xhello'), q('hello'))!;
    const b = matchDoc(doc('a hello'), q('hello'))!;
    expect(a.key.wordStart).toBe(false);
    expect(b.key.wordStart).toBe(true);
    expect(compareKeys(b.key, a.key)).toBeLessThan(0);
  });
  it('compares by code point', () => {
    expect(compareCodePoints('\uFFFF', '😀')).toBeLessThan(0);
    expect('\uFFFF' < '😀').toBe(false); // UTF-16 order differs
    expect(compareCodePoints('a', 'ab')).toBeLessThan(0);
  });
  it('round-trips page tokens', () => {
    const key = { field: 2, wordStart: true, index: 7, nameLength: 4, name: 'żółw', id: 'x1' };
    expect(decodeSearchToken(encodeSearchToken(key))).toEqual(key);
    expect(decodeSearchToken('')).toBeNull();
    for (const bad of ['x', 's', 'sAAAA', 'l' + encodeSearchToken(key).slice(1), 's!!!']) expect(decodeSearchToken(bad)).toBeUndefined();
    const order = { by: 'mTime', dir: 'desc' } as const;
    const c = { value: 12, name: 'n', id: 'i' };
    expect(decodeListingToken(encodeListingToken(order, c), order)).toEqual(c);
    expect(decodeListingToken(encodeListingToken(order, c), { by: 'name', dir: 'asc' })).toBeUndefined();
  });
});

describe('properties', () => {
  const alphabet = fc.constantFrom('a', 'A', 'b', ' ', '.', '_', 'é', 'É', '1', '😀', 'İ');
  const str = fc.array(alphabet, { minLength: 1, maxLength: 12 }).map((a) => a.join(''));
  it('paging through every page equals one big page', () => {
    fc.assert(
      fc.property(
        fc.array(str, { minLength: 1, maxLength: 40 }),
        fc.array(alphabet, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 5 }),
        (names, term, limit) => {
          const query = parseQuery(term.join('').trim() || 'a');
          if (!query.ok) return;
          const cands = names.map((n, i) => ({ doc: { id: `id${i}`, name: n, mimeType: 'text/plain' }, value: i }));
          const all = selectPage(cands, query.query, 1000, null).items.map((i) => i.value);
          const paged: number[] = [];
          let after: SortKey | null = null;
          for (let guard = 0; guard < 100; guard++) {
            const p: { items: { value: number }[]; pageToken: string } = selectPage(cands, query.query, limit, after);
            paged.push(...p.items.map((i) => i.value));
            if (p.pageToken === '') break;
            after = decodeSearchToken(p.pageToken)!;
          }
          expect(paged).toEqual(all);
        },
      ),
    );
  });
  it('every location is a slice of the text that matches a term or extends one', () => {
    fc.assert(
      fc.property(str, fc.array(alphabet, { minLength: 1, maxLength: 3 }), (name, term) => {
        const t = foldCase(term.join(''));
        for (const l of locate(name, foldCase(name), [t])) {
          expect(foldCase(name.slice(l.index, l.index + l.length)).startsWith(t)).toBe(true);
        }
      }),
    );
  });
});

describe('code point order of names (names above U+FFFF, handled here once)', () => {
  it('compareNames and codePointOrderKey agree with compareCodePoints', async () => {
    const { codePointOrderKey, compareCodePoints, compareNames } = await import('./order.js');
    const { prng } = await import('../util/prng.js');
    const r = prng(11);
    const chars = ['a', 'B', '\uE000', '\uFFFF', '😀', '𝒜', 'z', 'é', '\uD7FF', ''];
    const word = (): string => Array.from({ length: Math.floor(r() * 4) }, () => chars[Math.floor(r() * chars.length)]).join('');
    for (let i = 0; i < 3000; i++) {
      const a = word(),
        b = word();
      const want = Math.sign(compareCodePoints(a, b));
      expect(Math.sign(compareNames(a, b)), `${a} ${b}`).toBe(want);
      const ka = codePointOrderKey(a),
        kb = codePointOrderKey(b);
      expect(ka.length).toBe(a.length);
      expect(ka < kb ? -1 : ka > kb ? 1 : 0, `${a} ${b}`).toBe(want);
    }
  });
});
