/**
 * Seeded random search docs and queries for the property test of both search engines
 * (engines.test.ts): names from a small alphabet that forces collisions, case and fold
 * corner cases (é vs e + U+0301, İ, ß, ı), names above U+FFFF, word separators, and
 * makes/models/mimes that overlap the names, so every strategy and tier gets exercised.
 */
import type { SearchDoc } from '../../app/search/index.js';

export const ALPHA = [
  'a',
  'b',
  'A',
  'B',
  'ab',
  'img',
  'IMG',
  '_',
  '.',
  ' ',
  '-',
  'é',
  'É',
  'e\u0301',
  'İ',
  'ß',
  '1',
  '2',
  '😀',
  '𝒜',
  'x',
  'jpg',
  'Canon',
  'ı',
  '\uFFFD',
];
export const MAKES = [undefined, 'Canon', 'NIKON CORPORATION', 'Apple', 'abA'];
export const MODELS = ['EOS 5D', 'D750', 'iPhone 12', 'ab'];
export const MIMES = ['image/jpeg', 'text/plain', 'application/x.service.dir', 'video/mp4'];

export const pickOf =
  (r: () => number) =>
  <T>(a: readonly T[]): T =>
    a[Math.floor(r() * a.length)]!;

export function randomName(r: () => number): string {
  const pick = pickOf(r);
  let name = '';
  const len = 1 + Math.floor(r() * 6);
  for (let k = 0; k < len; k++) name += pick(ALPHA);
  return name;
}

export function randomDocs(r: () => number, n: number, idPrefix = 'id'): SearchDoc[] {
  const pick = pickOf(r);
  const docs: SearchDoc[] = [];
  for (let i = 0; i < n; i++) {
    const d: SearchDoc = { id: `${idPrefix}${i.toString(36)}`, name: randomName(r), mimeType: pick(MIMES) };
    const mk = pick(MAKES);
    if (mk !== undefined) {
      d.cameraMake = mk;
      if (r() < 0.5) d.cameraModel = pick(MODELS);
    }
    docs.push(d);
  }
  return docs;
}

export function randomQuery(r: () => number): string {
  const pick = pickOf(r);
  const terms = 1 + Math.floor(r() * 3);
  const out: string[] = [];
  for (let i = 0; i < terms; i++) {
    let t = '';
    const len = 1 + Math.floor(r() * 3);
    for (let k = 0; k < len; k++) t += pick([...ALPHA, 'image', 'ima', 'n', 'can', 'ge/', '/', 'x.s', '\uD83D']);
    out.push(r() < 0.1 ? `"${t} ${pick(ALPHA)}"` : t.replace(/[\s"]/g, '') || 'a');
  }
  return out.join(' ');
}
