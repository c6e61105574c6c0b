/**
 * Length-preserving case folding and word characters (search.md rules 3 and 5).
 * A code point folds to its `toLowerCase()` when that is a single code point of the same
 * UTF-16 length, else to itself, so an index into the folded string is an index into the
 * original. No Unicode normalization.
 */

const BMP_FOLD = new Uint16Array(0x10000);
for (let c = 0; c < 0x10000; c++) {
  if (c >= 0xd800 && c <= 0xdfff) {
    BMP_FOLD[c] = c;
    continue;
  }
  const lower = String.fromCharCode(c).toLowerCase();
  BMP_FOLD[c] = lower.length === 1 ? lower.charCodeAt(0) : c;
}

const WORD_RE = /^[\p{L}\p{M}\p{N}]$/u;
/** 1 when the BMP code unit is a letter, mark or digit. */
const BMP_WORD = new Uint8Array(0x10000);
for (let c = 0; c < 0x10000; c++) {
  if (c >= 0xd800 && c <= 0xdfff) continue;
  BMP_WORD[c] = WORD_RE.test(String.fromCharCode(c)) ? 1 : 0;
}

function foldAstral(cp: number): number {
  const s = String.fromCodePoint(cp);
  const lower = s.toLowerCase();
  return lower.length === s.length && lower.codePointAt(0)! !== cp && String.fromCodePoint(lower.codePointAt(0)!) === lower
    ? lower.codePointAt(0)!
    : cp;
}

/** Folds letter case one code point at a time; the result has the same UTF-16 length. */
export function foldCase(s: string): string {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || (c >= 0x41 && c <= 0x5a)) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += String.fromCodePoint(foldAstral(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000));
        i++;
        continue;
      }
    }
    out += String.fromCharCode(BMP_FOLD[c]!);
  }
  return out;
}

/** True when the code point at UTF-16 index `i` of `s` is a letter, mark or digit. */
export function isWordAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (Number.isNaN(c)) return false;
  if (c < 0xd800 || c > 0xdfff) return BMP_WORD[c] === 1;
  const cp = s.codePointAt(i)!;
  if (cp > 0xffff) return WORD_RE.test(String.fromCodePoint(cp));
  // a low surrogate: look at the code point it ends
  if (c >= 0xdc00 && i > 0) {
    const whole = s.codePointAt(i - 1)!;
    if (whole > 0xffff) return WORD_RE.test(String.fromCodePoint(whole));
  }
  return false;
}

/** True when the code point ending just before UTF-16 index `i` is a letter, mark or digit. */
export function isWordBefore(s: string, i: number): boolean {
  if (i <= 0) return false;
  const c = s.charCodeAt(i - 1);
  if (c >= 0xdc00 && c <= 0xdfff && i >= 2) return isWordAt(s, i - 2);
  return isWordAt(s, i - 1);
}
