/**
 * Name rules of the service: 1 to 255 bytes of UTF-8, no `/`, no NUL, not `.` or `..`.
 * `extension` is the last dot and what follows, letter case as in the name.
 */

/** Why a name is invalid, or undefined when it is valid. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'name must be a string';
  if (name.length === 0) return 'name must not be empty';
  if (utf8Length(name) > 255) return 'name is longer than 255 bytes of UTF-8';
  if (name.includes('/')) return 'name must not contain "/"';
  if (name.includes('\0')) return 'name must not contain NUL';
  if (name === '.' || name === '..') return 'name must not be "." or ".."';
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(name))
    return 'name is not valid Unicode (lone surrogate)';
  return undefined;
}

/** The extension of a name (`.JPG`), or undefined when it has no dot after its first character. */
export function extensionOf(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot) : undefined;
}

/** Byte length of a string in UTF-8. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
