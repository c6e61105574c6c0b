import { describe, expect, it } from 'vitest';
import { foldCase } from '../../app/search/index.js';
import { prng } from '../../app/util/prng.js';
import { casesOf, nameIn } from './name-cases.js';

const units = (s: string): Uint16Array => Uint16Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));

describe('name cases', () => {
  it('gives back every name as spelled, at any offset and length, from the folded text and its cases', () => {
    const rand = prng(30);
    const alphabet = ['a', 'B', 'z', 'Z', '_', '1', 'É', 'é', 'Σ', 'σ', 'İ', '😀', 'ẞ', 'K', ' '];
    const names = Array.from({ length: 400 }, () =>
      Array.from({ length: Math.floor(rand() * 40) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join(''),
    );
    const text = names.map((n) => n + '\0').join('');
    const folded = names.map((n) => foldCase(n) + '\0').join('');
    expect(folded.length).toBe(text.length); // folding keeps lengths
    const c = casesOf(units(text), units(folded));
    let at = 0;
    for (const n of names) {
      expect(nameIn(folded, c, at, at + n.length)).toBe(n);
      at += n.length + 1;
    }
    // every sub-range too: the bit masks at both ends of a byte
    for (let from = 0; from < 80; from++) for (let to = from; to < 90; to++) expect(nameIn(folded, c, from, to)).toBe(text.slice(from, to));
  });

  it('keeps a bit per position for ASCII capitals and a pair only for the other differences', () => {
    const text = 'IMG_0001.JPG\0ÉtéΣ\0plain\0';
    const c = casesOf(units(text), units(foldCase(text)));
    expect(c.upper.length).toBe(Math.ceil(text.length / 8));
    expect([...c.otherAt]).toEqual([13, 16]); // É and Σ
    expect(String.fromCharCode(...c.otherUnit)).toBe('ÉΣ');
    expect(nameIn(foldCase(text), c, 18, 23)).toBe('plain');
  });
});
