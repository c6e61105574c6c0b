import { describe, expect, it } from 'vitest';
import { decodeSearchToken, isWordBefore, parseQuery, type SortKey } from '../../app/search/index.js';
import { prng } from '../../app/util/prng.js';
import { randomDocs } from '../../test/search/random-docs.js';
import { buildBase, nameOf } from './base-index.js';
import type { IndexDoc, SearchEngine } from './engine.js';
import { FastEngine } from './fast-engine.js';
import { nameIn } from './name-cases.js';
import { shortKey } from './short-grams.js';
import { NaiveEngine } from '../../app/search/naive.js';

function allPages(e: SearchEngine, q: string, limit: number): unknown[] {
  const p = parseQuery(q);
  if (!p.ok) return [];
  const out: unknown[] = [];
  let after: SortKey | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const page = e.page(p.query, limit, after);
    out.push(
      page.items.map((i) => [i.id, i.match.fragments]),
      page.pageToken,
    );
    if (page.pageToken === '') break;
    after = decodeSearchToken(page.pageToken)!;
  }
  return out;
}

// Random docs and queries against the naive reference, with overlay changes: test/search/engines.test.ts.
describe('terms of 1-2 code units (first-page lists)', () => {
  it('equal the naive engine on every page, small lists proving or not, with changes', () => {
    const r = prng(7);
    const shorts = [
      'a',
      'b',
      '_',
      '.',
      '1',
      '2',
      'ab',
      'ba',
      'a_',
      '_a',
      'é',
      'e',
      'i',
      'ı',
      'ß',
      'ss',
      '😀',
      'im',
      'mg',
      'g.',
      '.j',
      'pg',
      'x',
      'a1',
      '-',
      'q',
      'zz',
      '\uD835',
      '1é',
    ];
    for (let round = 0; round < 6; round++) {
      const docs = randomDocs(r, 150 + Math.floor(r() * 150));
      // infrequent grams: every one listed (default budget), none, or some (then the blob scan)
      const shortRare = [undefined, 0, 40][round % 3];
      const fast = new FastEngine(
        buildBase(docs, {
          frequent: [2, 4, 30, 1000, 60, 1000][round]!,
          shortTop: [2, 5, 24, 128, 8, 3][round]!,
          ...(shortRare === undefined ? {} : { shortRare }),
        }),
      );
      const naive = new NaiveEngine(docs);
      for (let step = 0; step < 2; step++) {
        for (const q of shorts) {
          for (const limit of [4, 25]) expect(allPages(fast, q, limit), `${q} ${limit}`).toEqual(allPages(naive, q, limit));
        }
        const ids = docs.map((d) => d.id);
        const removed = ids.filter(() => r() < 0.1);
        fast.remove(removed);
        naive.remove(removed);
        const changed = randomDocs(r, 30).map((d, i) => ({
          ...d,
          id: r() < 0.5 ? ids[Math.floor(r() * ids.length)]! : `n${round}-${step}-${i}`,
        }));
        fast.upsert(changed);
        naive.upsert(changed);
      }
    }
  }, 120_000);
});

describe('first-page lists (short-grams.ts)', () => {
  it('hold, for each gram, the top objects by occurrence key; the infrequent ones rarest first within the budget', () => {
    const r = prng(11);
    for (const [frequent, top, rare] of [
      [30, 6, undefined],
      [30, 6, 25],
      [1000, 4, 0],
      [5, 128, undefined],
    ] as const) {
      const docs = randomDocs(r, 300);
      const b = buildBase(docs, { frequent, shortTop: top, ...(rare === undefined ? {} : { shortRare: rare }) });
      // every gram of the folded names: (word start first, first index, number) per object
      const occ = new Map<number, number[][]>();
      for (let o = 0; o < b.n; o++) {
        const f = b.blob.substring(b.starts[o]!, b.starts[o + 1]! - 1);
        const seen = new Map<number, number[]>();
        for (let i = 0; i < f.length; i++) {
          for (const len of [1, 2]) {
            if (i + len > f.length) continue;
            const k = shortKey(f.substr(i, len));
            const ws = i === 0 || !isWordBefore(nameOf(b, o), i) ? 0 : 1;
            const e = seen.get(k);
            if (!e) seen.set(k, [ws, i, o]);
            else if (ws === 0) e[0] = 0;
          }
        }
        for (const [k, e] of seen) occ.set(k, [...(occ.get(k) ?? []), e]);
      }
      const listed = new Map<number, number[]>();
      for (let s = 0; s < b.shortKeys.length; s++)
        listed.set(b.shortKeys[s]!, [...b.shortList.subarray(b.shortStart[s]!, b.shortStart[s + 1]!)]);
      const budget = rare ?? Infinity;
      let spent = 0;
      const byRarity = [...occ].sort((x, y) => x[1].length - y[1].length);
      for (const [k, es] of byRarity) {
        const want = [...es]
          .sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!)
          .slice(0, top)
          .map((e) => e[2]);
        if (es.length < frequent) {
          if (spent + want.length > budget) {
            expect(listed.has(k), `gram ${k} over the budget`).toBe(false);
            spent = Infinity;
            continue;
          }
          spent += want.length;
        }
        expect(listed.get(k), `gram ${k}`).toEqual(want);
      }
      for (const k of listed.keys()) expect(occ.has(k), `listed gram ${k} is in no name`).toBe(true);
      expect(b.shortAll).toBe(rare === undefined ? 1 : 0);
    }
  });
});

describe('number order', () => {
  it('a build tells how far it is after each step: rising, to 1', () => {
    const told: number[] = [];
    buildBase(randomDocs(prng(11), 500), { progress: (f) => told.push(f) });
    expect(told.length).toBeGreaterThanOrEqual(5);
    expect(told.every((f, i) => f > 0 && f <= 1 && (i === 0 || f > told[i - 1]!))).toBe(true);
    expect(told.at(-1)).toBe(1);
  });

  it('the native-sort build order equals (name length, name by code point, id)', async () => {
    const { foldFast } = await import('./base-index.js');
    const { joined, numberOrder, numberOrderOf } = await import('./number-order.js');
    const { foldCase } = await import('../../app/search/index.js');
    const r = prng(3);
    const chars = ['a', 'B', '\uE000', '\uFFFF', '😀', '\uD83D', 'z', 'é', '\u00A0', 'İ', 'Σ'];
    const docs: IndexDoc[] = Array.from({ length: 2000 }, (_, i) => ({
      id: `i${Math.floor(r() * 50)}${chars[Math.floor(r() * chars.length)]}${i}`,
      name: Array.from({ length: 1 + Math.floor(r() * 4) }, () => chars[Math.floor(r() * chars.length)]).join(''),
      mimeType: 'x',
    }));
    expect([...numberOrderOf(joined(docs.map((d) => d.name)), joined(docs.map((d) => d.id)))].map((i) => docs[i]!.id)).toEqual(
      [...docs].sort(numberOrder).map((d) => d.id),
    );
    for (const d of docs) expect(foldFast(d.name)).toBe(foldCase(d.name));
    expect(foldFast('HELLO World.TXT')).toBe('hello world.txt');
  });

  it('name tables: folded blob, starts, ids, and word-start flags equal to isWordBefore on the original names', async () => {
    const { buildNameBlob } = await import('./name-blob.js');
    const { joined } = await import('./number-order.js');
    const { foldCase } = await import('../../app/search/index.js');
    const ascii = Array.from({ length: 127 }, (_, c) => String.fromCharCode(c + 1));
    const nameSets = [
      [ascii.join(''), 'a😀b\uD83Dc\uDE00d', '𝒜b😀c𝒜𝒜 😀😀', '\uDE00\uD83D', 'ÉtéΣ_x-1²٣', 'x\u0301y', 'İstanbul 2024.JPG', 'a', '', 'ÀÿÐ'],
      ['Hello World.TXT', 'ÀÿÐ', 'a'], // Latin-1 only: one-byte strings
      [],
    ];
    for (const names of nameSets) {
      // given in reverse: number o is input names.length - 1 - o
      const docs = names.map((name, i) => ({ id: `id-${i}${i === 1 ? 'é' : ''}`, name, mimeType: 'x' }));
      const t = buildNameBlob(
        joined([...names].reverse()),
        joined(docs.map((d) => d.id).reverse()),
        Uint32Array.from(docs, (_, i) => docs.length - 1 - i),
      );
      expect(names.map((_, o) => nameIn(t.blob, t.cases, t.starts[o]!, t.starts[o + 1]! - 1))).toEqual(names);
      expect(t.blob).toBe(names.map((x) => foldCase(x) + '\0').join(''));
      expect(t.idBlob).toBe(docs.map((d) => d.id + '\n').join(''));
      expect([...t.starts]).toEqual(names.reduce((a, x) => [...a, a[a.length - 1]! + x.length + 1], [0]));
      expect([...t.idStarts]).toEqual(docs.reduce((a, d) => [...a, a[a.length - 1]! + d.id.length + 1], [0]));
      names.forEach((name, o) => {
        for (let p = 0; p <= name.length; p++)
          expect(t.wsAt[t.starts[o]! + p], `${o} ${p}`).toBe(p < name.length && (p === 0 || !isWordBefore(name, p)) ? 1 : 0);
      });
    }
  });
});
