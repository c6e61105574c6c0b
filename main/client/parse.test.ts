import { describe, expect, it } from 'vitest';
import { parseListing, parseObject, parseSearch } from './parse.js';
import { parseRetryAfter } from './service-client.js';

describe('parsing at the boundary', () => {
  it('keeps unknown fields, accepts missing optional ones and dates without fractions', () => {
    const o = parseObject({
      id: 'x',
      name: 'a.txt',
      parentID: 'p',
      eTag: '"Ag"',
      mimeType: 'text/plain',
      mTime: '2016-11-14T13:15:14Z',
      cTime: '2016-11-14T13:15:14Z',
      hidden: 'none',
      futureField: { a: 1 },
    });
    expect((o as unknown as Record<string, unknown>)['futureField']).toEqual({ a: 1 });
    expect(o.mTime).toBe('2016-11-14T13:15:14Z');
    const bare = parseObject({
      id: 'y',
      name: 'b',
      eTag: '"A"',
      mTime: '2016-11-14T13:15:14Z',
      cTime: '2016-11-14T13:15:14Z',
      hidden: 'none',
    });
    expect(bare).toMatchObject({ id: 'y', name: 'b', parentID: '', mimeType: 'application/octet-stream' });
    // a trimmed object (fields asked): only id and name are required
    expect(parseObject({ id: 'z', name: 'c' }, true)).toMatchObject({ id: 'z', name: 'c', parentID: '' });
  });
  it('rejects what it cannot use', () => {
    expect(() => parseObject({ name: 'x' })).toThrow(expect.objectContaining({ code: 'BadResponse' }));
    expect(() => parseObject({ id: 'x' })).toThrow(expect.objectContaining({ code: 'BadResponse' }));
    expect(() => parseListing({ files: 'no' })).toThrow(expect.objectContaining({ code: 'BadResponse' }));
  });
  it('defaults a missing pageToken to "" and missing lists to []', () => {
    expect(parseListing({})).toStrictEqual({ pageToken: '', files: [] });
    expect(parseSearch({ matches: [{ file: { id: 'a', name: 'n' } }] }, true).matches[0]!.fragments).toEqual([]);
  });
  it('checks every object with the one schema: an invalid one in a listing is skipped and said, the rest kept', () => {
    const good = {
      id: 'g',
      name: 'ok',
      parentID: 'p',
      eTag: '"A"',
      mimeType: 'text/plain',
      mTime: '2016-11-14T13:15:14Z',
      cTime: '2016-11-14T13:15:14Z',
      hidden: 'none',
    };
    for (const broken of [
      { mTime: null },
      { mTime: { a: 1 } },
      { eTag: { x: 1 } },
      { eTag: '' },
      { eTag: '"a"\r\nX-Evil: 1' },
      { eTag: '"a", "b"' },
      { eTag: '*' },
      { name: '' },
      { hidden: 7 },
      { hidden: 'sometimes' },
      { childCount: -1 },
      { size: 'big' },
      { image: 'x' },
    ]) {
      const l = parseListing({ files: [good, { ...good, id: 'b', ...broken }, 42], pageToken: '' });
      expect(l.files.map((f) => f.id)).toEqual(['g']);
      expect(l.invalid).toHaveLength(2);
      expect(l.invalid![0]!.id).toBe('b');
      expect(l.invalid![0]!.reason).toMatch(/unexpected response from the NAS: object "b": /);
      expect(() => parseObject({ ...good, ...broken })).toThrow(expect.objectContaining({ code: 'BadResponse' }));
    }
  });
  it('checks the fields a trimmed object has (fields asked), not the ones it lacks', () => {
    expect(parseObject({ id: 't', name: 'n', eTag: '"Ag"' }, true)).toMatchObject({ id: 't', name: 'n', eTag: '"Ag"' });
    expect(() => parseObject({ id: 't', name: 'n', eTag: 'a,b' }, true)).toThrow(expect.objectContaining({ code: 'BadResponse' }));
    expect(() => parseObject({ id: 't', name: 'n', size: -3 }, true)).toThrow(/size/);
  });
  it('reads Retry-After as seconds or a date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
