import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatDate } from '../../app/model/dates.js';
import { encodeETag } from '../../app/model/etag.js';
import { dateOf, etagOf } from './wire-format.js';

describe('fast wire formatting', () => {
  it('formats dates exactly like app/model', () => {
    for (const ms of [0, 1485828716940, 1479129314000, 1479129314100, 1479129314001, 1479129314010, -1000, 253402300799999])
      expect(dateOf(ms)).toBe(formatDate(ms));
    fc.assert(fc.property(fc.integer({ min: -62_000_000_000_000, max: 253402300799999 }), (ms) => dateOf(ms) === formatDate(ms)));
  });
  it('encodes eTags exactly like app/model', () => {
    for (const v of [0, 1, 2, 63, 64, 4095, 4096, 100000]) expect(etagOf(v)).toBe(encodeETag(v));
    expect(etagOf(1)).toBe('"Ag"');
  });
});
