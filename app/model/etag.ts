/**
 * eTags: `"` + base64url-without-padding(zigzag-varint(version)) + `"`; version 1 is `"Ag"`.
 * The quotes are part of the string, as on the wire.
 */
import { bytesToBase64url } from '../util/base64url.js';

/** The eTag of a metadata version (a non-negative safe integer). */
export function encodeETag(version: number): string {
  if (!Number.isSafeInteger(version) || version < 0) throw new RangeError(`bad version ${version}`);
  // zigzag of a non-negative number is 2n; then a little-endian base-128 varint.
  let n = BigInt(version) * 2n;
  const bytes: number[] = [];
  do {
    let b = Number(n & 0x7fn);
    n >>= 7n;
    if (n > 0n) b |= 0x80;
    bytes.push(b);
  } while (n > 0n);
  return `"${bytesToBase64url(bytes)}"`;
}

/**
 * Parses an If-Match / If-None-Match header: `*` or a comma-separated list of eTags.
 * Weak tags (`W/"..."`) are kept verbatim; under strong comparison they never match.
 */
export function parseETagList(header: string): '*' | string[] {
  const t = header.trim();
  if (t === '*') return '*';
  const out: string[] = [];
  for (const part of t.split(',')) {
    const p = part.trim();
    if (p) out.push(p);
  }
  return out;
}
