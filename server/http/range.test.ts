import { describe, expect, it } from 'vitest';
import { attachment, encodeRfc5987, parseRange } from './range.js';

describe('Range', () => {
  it('answers a-b, a- and -n, clamps the end, refuses what starts past the end, ignores the rest', () => {
    expect(parseRange(undefined, 10)).toEqual({ kind: 'whole' });
    expect(parseRange('bytes=2-4', 10)).toEqual({ kind: 'part', start: 2, end: 5 });
    expect(parseRange('bytes=2-', 10)).toEqual({ kind: 'part', start: 2, end: 10 });
    expect(parseRange('bytes=-3', 10)).toEqual({ kind: 'part', start: 7, end: 10 });
    expect(parseRange('bytes=-30', 10)).toEqual({ kind: 'part', start: 0, end: 10 });
    expect(parseRange('bytes=5-99', 10)).toEqual({ kind: 'part', start: 5, end: 10 });
    expect(parseRange(' Bytes = 1 - 1 ', 10)).toEqual({ kind: 'part', start: 1, end: 2 });
    for (const h of ['bytes=10-', 'bytes=10-20', 'bytes=-0']) expect(parseRange(h, 10), h).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-0', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-1', 0)).toEqual({ kind: 'unsatisfiable' });
    for (const h of ['bytes=0-1,3-4', 'bytes=4-2', 'bytes=-', 'pages=1-2', 'bytes=a-b']) {
      expect(parseRange(h, 10), h).toEqual({ kind: 'whole' });
    }
  });

  it('encodes a download name as RFC 5987 attr-chars', () => {
    expect(encodeRfc5987("a b'(c)*.txt")).toBe('a%20b%27%28c%29%2A.txt');
    expect(encodeRfc5987('ø/%')).toBe('%C3%B8%2F%25');
    expect(attachment('x.pdf')).toBe("attachment; filename*=UTF-8''x.pdf");
  });
});
