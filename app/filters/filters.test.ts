/** Parsing search operators: plain text left untouched, quotes respected, clear errors. */
import { describe, expect, it } from 'vitest';
import { dayOf, factOf, kindOfMime } from './facts.js';
import fc from 'fast-check';
import { describeFilter, parseFilters, passes, quoteOperator, withoutFilter } from './filters.js';
import { isOn, stateIn, type DeviceView } from './on-device.js';
import { DEVICE_STATES } from '../contract/shapes.js';

const parse = (q: string) => {
  const p = parseFilters(q);
  if (!p.ok) throw new Error(p.message);
  return p.query;
};

describe('parseFilters', () => {
  it('keeps a query without operators exactly as typed', () => {
    for (const q of ['holiday', '  "rome 2019"  img', 'a:b', '"ext:jpg"', 'extension:jpg']) {
      const p = parse(q);
      expect(p.filters).toEqual([]);
      expect(p.text).toBe(q);
    }
  });

  it('splits operators from the text', () => {
    const p = parse('holiday ext:JPG|png kind:photo in:"Photos/2019" size:>100mb date:2019-05..2019-08 camera:Canon "x y"');
    expect(p.text.replace(/\s+/g, ' ')).toBe('holiday "x y"');
    expect(p.filters.map((f) => f.op)).toEqual(['ext', 'kind', 'in', 'size', 'date', 'camera']);
    expect(p.filters[0]).toMatchObject({ exts: ['jpg', 'png'] });
    expect(p.filters[2]).toMatchObject({ path: 'Photos/2019' });
    expect(p.filters[3]).toMatchObject({ min: 100 * 1024 * 1024 + 1, max: Infinity });
    expect(p.filters[4]).toMatchObject({ from: 20190501, to: 20190831 });
    expect(p.filters[5]).toMatchObject({ text: 'canon' });
    expect(p.filters.map(describeFilter)).toContain('in: /Photos/2019');
  });

  it('removes one operator for a chip', () => {
    const q = 'a ext:jpg b kind:photo';
    expect(withoutFilter(q, parse(q), 0)).toBe('a b kind:photo');
    expect(withoutFilter(q, parse(q), 1)).toBe('a ext:jpg b');
  });

  it('reads back any folder path it quoted: ", \\, spaces, non-ASCII, leading and trailing spaces', () => {
    const names = [
      'say "hi"',
      'back\\slash',
      'ends with \\',
      '"',
      '\\"',
      'two  spaces',
      ' padded ',
      'Fotos ÄÖÜ',
      '写真 2019',
      'emoji 📷',
      'in:"x"',
      'ext:jpg',
    ];
    for (const name of names) {
      const q = `holiday ${quoteOperator('in', `Photos/${name}`)} ext:jpg`;
      const p = parse(q);
      expect(
        p.filters.map((f) => f.op),
        q,
      ).toEqual(['in', 'ext']);
      expect(p.filters[0], q).toMatchObject({ op: 'in', path: `Photos/${name}` });
      expect(p.text).toBe('holiday');
      expect(withoutFilter(q, p, 0)).toBe('holiday ext:jpg');
    }
    expect(quoteOperator('in', 'a "b" \\c')).toBe('in:"a \\"b\\" \\\\c"');
    // typed by hand: a backslash before anything else is kept
    expect(parse('in:"C:\\Photos"').filters[0]).toMatchObject({ path: 'C:\\Photos' });
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', minLength: 1 }).filter((s) => !s.includes('/') && !s.includes('\0')),
          { minLength: 1, maxLength: 4 },
        ),
        (segs) => {
          const path = segs.join('/');
          const p = parseFilters(`x ${quoteOperator('in', path)} y`);
          return (
            p.ok &&
            p.query.text.replace(/\s+/gu, ' ') === 'x y' &&
            p.query.filters[0]!.op === 'in' &&
            (p.query.filters[0] as { path: string }).path === path
          );
        },
      ),
    );
  });

  it('reads on: with its aliases, and words it for a chip', () => {
    const p = parse('budget on:device on:HERE on:this-device on:nas on:placeholder on:kept on:Pinned');
    expect(p.text).toBe('budget');
    expect(p.filters.map((f) => (f.op === 'on' ? f.place : f.op))).toEqual(['device', 'device', 'device', 'nas', 'nas', 'kept', 'kept']);
    expect(p.filters.map(describeFilter)).toEqual([
      'on: this device',
      'on: this device',
      'on: this device',
      'on: NAS only',
      'on: NAS only',
      'on: kept',
      'on: kept',
    ]);
    // quoted, or inside a word, it is text
    expect(parse('"on:device" salon:x').filters).toEqual([]);
    const q = 'a on:nas b';
    expect(withoutFilter(q, parse(q), 0)).toBe('a b');
  });

  it('says what is wrong', () => {
    for (const [q, msg] of [
      ['size:big', /not a size/],
      ['date:2019-13', /not a date/],
      ['kind:pdf', /not a kind/],
      ['ext:', /needs a value/],
      ['on:', /needs a value \(for example on:device\)/],
      ['on:moon', /on:moon is not a place: use on:device/],
      ['on:constructor', /not a place/],
    ] as const) {
      const p = parseFilters(q);
      expect(p.ok).toBe(false);
      if (!p.ok) expect(p.message).toMatch(msg);
    }
  });

  it('tests facts', () => {
    const f = factOf({
      id: '1',
      parentID: 'p',
      eTag: 'e',
      mimeType: 'image/jpeg',
      name: 'a.JPG',
      mTime: '2021-02-03T00:00:00Z',
      cTime: '',
      hidden: 'none',
      size: 2048,
      image: { date: '2019:06:07 10:00:00', cameraMake: 'Canon', cameraModel: 'EOS' },
    });
    expect(f).toMatchObject({ kind: 'photo', ext: 'jpg', day: 20190607, camera: 'canon eos', size: 2048 });
    const under = (): boolean => true;
    expect(passes(f, parse('ext:jpg size:<=2kb date:2019 camera:eos kind:photo in:x').filters, ['x'], under)).toBe(true);
    expect(passes(f, parse('date:2021').filters, [], under)).toBe(false);
    // on: reads the state the caller gives (none: not on this device, not a placeholder either)
    expect(passes(f, parse('on:device').filters, [], under)).toBe(false);
    expect(passes(f, parse('on:nas').filters, [], under, () => 'placeholder')).toBe(true);
    expect(passes(f, parse('ext:jpg on:kept').filters, [], under, () => 'pinned')).toBe(true);
    expect(passes(f, parse('ext:png on:kept').filters, [], under, () => 'pinned')).toBe(false);
    expect(kindOfMime('application/pdf')).toBe('doc');
    expect(dayOf('nonsense')).toBe(0);
  });

  it('on: places: this device holds what is downloaded, changed or kept; the NAS only, placeholders; kept, pins', () => {
    const table = Object.fromEntries(
      [...DEVICE_STATES, undefined].map((st) => [String(st), (['device', 'nas', 'kept'] as const).filter((p) => isOn(p, st))]),
    );
    expect(table).toEqual({
      placeholder: ['nas'],
      here: ['device'],
      edited: ['device'],
      pinned: ['device', 'kept'],
      folder: [],
      undefined: [],
    });
    const view: DeviceView = { key: 'k', held: new Map([['a', 'here']]), isFile: (id) => id !== 'dir' };
    expect(['a', 'b', 'dir'].map((id) => stateIn(view, id))).toEqual(['here', 'placeholder', undefined]);
  });
});
