/**
 * The pure parts of a content read: a `Range` header against the file's size (RFC 9110
 * section 14: `bytes=a-b`, `a-`, `-n`; several ranges or a bad header are ignored and the
 * whole body sent), and the RFC 5987/6266 `Content-Disposition` of a download.
 */

export type RangeAnswer = { kind: 'whole' } | { kind: 'part'; start: number; end: number } | { kind: 'unsatisfiable' };

/** The range asked for, `end` exclusive. */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'whole' };
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', start: Math.max(0, size - n), end: size };
  }
  const start = Number(m[1]);
  const last = m[2] === '' ? Number.MAX_SAFE_INTEGER : Number(m[2]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(last) || last < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end: Math.min(last, size - 1) + 1 };
}

/** RFC 5987 `attr-char`s stay, every other UTF-8 byte is percent-encoded. */
export function encodeRfc5987(s: string): string {
  return encodeURIComponent(s).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `attachment; filename*=UTF-8''<name>` (content.md). */
export function attachment(name: string): string {
  return `attachment; filename*=UTF-8''${encodeRfc5987(name)}`;
}
