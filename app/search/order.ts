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
    const x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (D800-DFFF) encode code points above FFFF: they sort after E000-FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff, ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
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
