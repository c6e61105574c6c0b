/** base64url without padding, and UTF-8, in pure code (app/ has neither Buffer nor TextEncoder). */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

export function bytesToBase64url(bytes: ArrayLike<number>): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i] ?? 0;
    const has1 = i + 1 < bytes.length,
      has2 = i + 2 < bytes.length;
    const n = (b0 << 16) | ((has1 ? bytes[i + 1]! : 0) << 8) | (has2 ? bytes[i + 2]! : 0);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
    if (has1) out += ALPHABET[(n >> 6) & 63]!;
    if (has2) out += ALPHABET[n & 63]!;
  }
  return out;
}

/** Decodes base64url; undefined when the text is not canonical base64url. */
export function base64urlToBytes(s: string): number[] | undefined {
  if (s.length % 4 === 1) return undefined;
  const bytes: number[] = [];
  let acc = 0,
    bits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? LOOKUP[c]! : -1;
    if (v < 0) return undefined;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
  }
  if (bits > 0 && (acc & ((1 << bits) - 1)) !== 0) return undefined; // non-canonical tail
  return bytes;
}

export function utf8Encode(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return out;
}

/** Strict UTF-8 decode; undefined on malformed input. */
export function utf8Decode(bytes: number[]): string | undefined {
  let out = '';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    let cp: number, n: number;
    if (b < 0x80) {
      cp = b;
      n = 1;
    } else if (b >= 0xc2 && b < 0xe0) {
      cp = b & 31;
      n = 2;
    } else if (b >= 0xe0 && b < 0xf0) {
      cp = b & 15;
      n = 3;
    } else if (b >= 0xf0 && b < 0xf5) {
      cp = b & 7;
      n = 4;
    } else return undefined;
    if (i + n > bytes.length) return undefined;
    for (let k = 1; k < n; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) return undefined;
      cp = (cp << 6) | (c & 63);
    }
    if ((n === 3 && cp < 0x800) || (n === 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff)) return undefined;
    out += String.fromCodePoint(cp);
    i += n;
  }
  return out;
}

/** JSON value -> opaque base64url string. */
export function encodeOpaque(value: unknown): string {
  return bytesToBase64url(utf8Encode(JSON.stringify(value)));
}

/** Opaque string -> JSON value; undefined when it does not decode. */
export function decodeOpaque(s: string): unknown {
  const bytes = base64urlToBytes(s);
  if (!bytes) return undefined;
  const text = utf8Decode(bytes);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
