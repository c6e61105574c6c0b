/** DeviceQuirks: what is kept out of listings and search pages, and for how long. */
import { describe, expect, it } from 'vitest';
import type { RemoteObject } from '../../app/model/remote-object.js';
import { DeviceQuirks, GONE_FOR_MS } from './device-quirks.js';

const obj = (id: string, extra: Record<string, unknown> = {}): RemoteObject =>
  ({ id, parentID: 'p', eTag: '"Ag"', mimeType: 'text/plain', name: id, mTime: '', cTime: '', hidden: 'none', ...extra }) as RemoteObject;

describe('DeviceQuirks', () => {
  it('keeps trashed objects out, and a 202-deleted folder for GONE_FOR_MS only', () => {
    let now = 1000;
    const q = new DeviceQuirks(() => now);
    q.deletedInBackground('d');
    const page = { pageToken: '', files: [obj('a'), obj('t', { trashed: true }), obj('d'), obj('u', { trashed: false })] };
    expect(q.listing(page).files.map((o) => o.id)).toEqual(['a', 'u']);
    now += GONE_FOR_MS + 1;
    expect(q.listing(page).files.map((o) => o.id)).toEqual(['a', 'd', 'u']);
    const clean = { pageToken: 'x', files: [obj('a')] };
    expect(q.listing(clean)).toBe(clean);
  });

  it('drops storage roots from search pages; a short page is the last one', () => {
    const q = new DeviceQuirks();
    const m = (o: RemoteObject) => ({ file: o, fragments: [] });
    const root = obj('r', { parentID: '' });
    // a full page (root included) keeps its token
    expect(q.search({ pageToken: 'next', matches: [m(root), m(obj('a')), m(obj('b'))] }, 3)).toEqual({
      pageToken: 'next',
      matches: [m(obj('a')), m(obj('b'))],
    });
    // a short page with a token ends the search
    expect(q.search({ pageToken: 'stale', matches: [m(obj('a'))] }, 3)).toEqual({ pageToken: '', matches: [m(obj('a'))] });
    const full = { pageToken: 't', matches: [m(obj('a')), m(obj('b'))] };
    expect(q.search(full, 2)).toBe(full);
  });
});
