import { describe, expect, it } from 'vitest';
import { isWordBefore } from '../../app/search/index.js';
import { prng } from '../../app/util/prng.js';
import { randomDocs } from '../../test/search/random-docs.js';
import { buildBase, nameOf } from './base-index.js';

describe('trigram postings (trigram-postings.ts)', () => {
  it('list every object holding each trigram: infrequent by number, frequent by (first position, number) with their word-start subset', () => {
    const r = prng(5);
    for (const frequent of [2, 6, 1000]) {
      const docs = randomDocs(r, 250);
      // long names: first positions past 255 are clamped; non-ASCII trigrams take the hash table
      docs.push(
        { id: 'long1', name: `${'x'.repeat(300)}img é😀b`, mimeType: 'x' },
        { id: 'long2', name: `IMG ${'é'.repeat(260)}abc`, mimeType: 'x' },
      );
      const b = buildBase(docs, { frequent });
      const want = new Map<number, { o: number; q: number; ws: boolean }[]>();
      for (let o = 0; o < b.n; o++) {
        const f = b.blob.substring(b.starts[o]!, b.starts[o + 1]! - 1);
        const seen = new Map<number, { o: number; q: number; ws: boolean }>();
        for (let i = 0; i + 3 <= f.length; i++) {
          const k = f.charCodeAt(i) * 4294967296 + f.charCodeAt(i + 1) * 65536 + f.charCodeAt(i + 2);
          const ws = i === 0 || !isWordBefore(nameOf(b, o), i);
          const e = seen.get(k);
          if (!e) seen.set(k, { o, q: Math.min(255, i), ws });
          else if (ws) e.ws = true;
        }
        for (const [k, e] of seen) want.set(k, [...(want.get(k) ?? []), e]);
      }
      expect(new Set(b.triKeys)).toEqual(new Set(want.keys()));
      b.triKeys.forEach((k, s) => {
        const es = want.get(k)!;
        const tri = [...b.triList.subarray(b.triStart[s]!, b.triStart[s + 1]!)];
        const freq = [...b.freqList.subarray(b.freqStart[s]!, b.freqStart[s + 1]!)];
        if (es.length < frequent) {
          expect(tri, `trigram ${k}`).toEqual(es.map((e) => e.o));
          expect(freq).toEqual([]);
          expect(b.wsStart[s + 1]).toBe(b.wsStart[s]);
          return;
        }
        expect(tri).toEqual([]);
        const byPos = [...es].sort((x, y) => x.q - y.q || x.o - y.o);
        expect(freq, `trigram ${k}`).toEqual(byPos.map((e) => e.o));
        expect([...b.freqPos.subarray(b.freqStart[s]!, b.freqStart[s + 1]!)]).toEqual(byPos.map((e) => e.q));
        const ws = byPos.filter((e) => e.ws);
        expect([...b.wsList.subarray(b.wsStart[s]!, b.wsStart[s + 1]!)], `trigram ${k} word starts`).toEqual(ws.map((e) => e.o));
        expect([...b.wsPos.subarray(b.wsStart[s]!, b.wsStart[s + 1]!)]).toEqual(ws.map((e) => e.q));
      });
    }
  });
});
