import { describe, expect, it } from 'vitest';
import { MAX_LIST_IDS, parseLimit, parseListingIds, parseListingRequest, parseSearchRequest } from './requests.js';

const msg = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
};

describe('request validation shared by the service and the offline index', () => {
  it('drops duplicate and empty ids before the 100-id check', () => {
    const dup = Array.from({ length: 150 }, (_, i) => `f${i % MAX_LIST_IDS}`);
    expect(parseListingIds(dup.join(','))).toHaveLength(MAX_LIST_IDS);
    expect(parseListingIds([' a', 'a ', '', 'b'])).toEqual(['a', 'b']);
    expect(msg(() => parseListingIds(Array.from({ length: 101 }, (_, i) => `f${i}`)))).toBe('ids holds more than 100 ids');
    expect(msg(() => parseListingIds(' , '))).toBe('ids is required');
  });

  it('takes a limit as text (HTTP) or as a number (the offline index) with one rule', () => {
    expect(parseLimit(null, 20, 1000)).toBe(20);
    expect(parseLimit('', 20, 1000)).toBe(20);
    expect(parseLimit('5000', 20, 1000)).toBe(1000);
    expect(parseLimit(5000, 20, 1000)).toBe(1000);
    for (const bad of ['0', '-1', '1.5', 'x', '1234567890', 0, -1, 1.5, NaN])
      expect(
        msg(() => parseLimit(bad, 20, 1000)),
        String(bad),
      ).toBe('limit must be a positive integer');
  });

  it('checks a listing in the service order with the service messages', () => {
    expect(parseListingRequest({})).toEqual({ order: { by: 'name', dir: 'asc' }, limit: 1000, after: null, hide: undefined });
    expect(parseListingRequest({ hidden: 'none' }).hide).toBeUndefined();
    expect(parseListingRequest({ hidden: 'mac' }).hide).toBe('mac');
    expect(msg(() => parseListingRequest({ orderBy: 'size', order: 'up', limit: 'x' }))).toBe(
      'orderBy must be name, mTime, cTime or size and order asc or desc',
    );
    expect(msg(() => parseListingRequest({ limit: 'x', pageToken: '!' }))).toBe('limit must be a positive integer');
    expect(msg(() => parseListingRequest({ pageToken: '!' }))).toBe('pageToken is not valid for this listing');
    expect(msg(() => parseListingRequest({ hidden: 'dos' }))).toBe('hidden must be mac, linux, windows or none');
  });

  it('checks a text search', () => {
    expect(parseSearchRequest('a', null, null).limit).toBe(20);
    expect(msg(() => parseSearchRequest(null, null, null))).toBe('q is required');
    expect(msg(() => parseSearchRequest('""', null, null))).not.toBe('no error');
    expect(msg(() => parseSearchRequest('a', null, '!'))).toBe('pageToken is not valid');
  });
});
