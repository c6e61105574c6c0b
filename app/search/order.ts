/**
 * The order of matches (search.md rule 7) and the comparison of names by code point.
 */

/** The sort key of a match. Smaller sorts first. */
export interface SortKey {
  /** The first field (rule-2 index) holding a location. */
  field: number;
  /** Some location in `name` starts a word (sorts first when true). */
  wordStart: boolean;
  /** Index of the first location in that first field. */
  index: number;
  /** `name.length` in UTF-16 code units. */
  nameLength: number;
  name: string;
  id: string;
}

/** Compares two strings by Unicode code point (not UTF-16 code unit). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i),
      y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (D800-DFFF) encode code points above FFFF: they sort after E000-FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff,
      ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Code units at or above U+D800: only there can UTF-16 order and code point order differ. */
const HIGH = /[\uD800-\uFFFF]/;

/**
 * `compareCodePoints` in sign, faster on the common case: the native comparison when
 * neither string holds a code unit at or above U+D800 (names above U+FFFF, E000-FFFF).
 */
export function compareNames(a: string, b: string): number {
  if (a === b) return 0;
  if (HIGH.test(a) || HIGH.test(b)) return compareCodePoints(a, b);
  return a < b ? -1 : 1;
}

/**
 * A string whose UTF-16 order (native sort) is `s`'s code point order: E000-FFFF are moved
 * before the surrogates (which encode code points above FFFF). Same length as `s`.
 */
export function codePointOrderKey(s: string): string {
  if (!HIGH.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += String.fromCharCode(c >= 0xe000 ? c - 0x800 : c >= 0xd800 ? c + 0x2000 : c);
  }
  return out;
}

/** Rule 7: field, word start (yes first), index, name length, name by code point, id. */
export function compareKeys(a: SortKey, b: SortKey): number {
  return (
    a.field - b.field ||
    (a.wordStart === b.wordStart ? 0 : a.wordStart ? -1 : 1) ||
    a.index - b.index ||
    a.nameLength - b.nameLength ||
    compareCodePoints(a.name, b.name) ||
    compareCodePoints(a.id, b.id)
  );
}
