import { describe, expect, it } from 'vitest';
import { parseListing, parseObject, parseSearch } from './parse.js';
import { parseRetryAfter } from './service-client.js';

describe('tolerant parsing', () => {
  it('keeps unknown fields, accepts missing optional ones and dates without fractions', () => {
    const o = parseObject({ id: 'x', name: 'a.txt', parentID: 'p', eTag: '"Ag"', mimeType: 'text/plain', mTime: '2016-11-14T13:15:14Z', cTime: '2016-11-14T13:15:14Z', hidden: 'none', futureField: { a: 1 } });
    expect((o as unknown as Record<string, unknown>)['futureField']).toEqual({ a: 1 });
    expect(o.mTime).toBe('2016-11-14T13:15:14Z');
    const bare = parseObject({ id: 'y', name: 'b' });
    expect(bare).toMatchObject({ id: 'y', name: 'b', parentID: '', mimeType: 'application/octet-stream' });
  });
  it('rejects what it cannot use', () => {
    expect(() => parseObject({ name: 'x' })).toThrow(expect.objectContaining({ code: 'BadResponse' }));
    expect(() => parseObject({ id: 'x' })).toThrow(expect.objectContaining({ code: 'BadResponse' }));
    expect(() => parseListing({ files: 'no' })).toThrow(expect.objectContaining({ code: 'BadResponse' }));
  });
  it('defaults a missing pageToken to "" and missing lists to []', () => {
    expect(parseListing({})).toEqual({ pageToken: '', files: [] });
    expect(parseSearch({ matches: [{ file: { id: 'a', name: 'n' } }] }).matches[0]!.fragments).toEqual([]);
  });
  it('reads Retry-After as seconds or a date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
