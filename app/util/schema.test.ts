/**
 * The schema language's two answers agree: `test(v)` is true exactly when `parse(v)` accepts
 * v (the mirror store reads rows with `test` and only calls `parse` to say what is wrong).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { remoteObjectSchema, trimmedObjectSchema } from '../model/remote-object.js';
import { arr, bool, int, lit, nullable, obj, oneOf, opt, record, str, tagged, type Schema } from './schema.js';

const accepts = (s: Schema<unknown>, v: unknown): boolean => {
  try {
    s.parse(v);
    return true;
  } catch {
    return false;
  }
};

const good = {
  id: 'a',
  parentID: 'r',
  eTag: '"e1"',
  mimeType: 'image/jpeg',
  name: 'x.jpg',
  mTime: '2020-01-01T00:00:00Z',
  cTime: '2020-01-01T00:00:00Z',
  hidden: 'none',
  size: 3,
  mimeTypes: ['image/jpeg'],
  image: { width: 10, cameraMake: 'SONY', flashFired: false, custom: 'kept' },
  future: 1,
};

/** A valid object with one field replaced by an arbitrary value (often wrong, sometimes not). */
const mutated = fc
  .tuple(fc.constantFrom(...Object.keys(good), 'image.width', 'image.date', 'childCount', 'trashed'), fc.anything())
  .map(([k, x]) => {
    const o: Record<string, unknown> = structuredClone(good);
    if (k.startsWith('image.')) (o['image'] as Record<string, unknown>)[k.slice(6)] = x;
    else o[k] = x;
    return o;
  });

const mixed = obj({
  k: lit('a'),
  n: nullable(int(1, 9)),
  b: opt(bool()),
  l: opt(arr(oneOf(['x', 'y']), 2)),
  r: opt(record(str({ max: 3 }), 2)),
});
const union = tagged('k', { a: mixed, z: obj({ k: lit('z') }) });

describe('schema test agrees with parse', () => {
  it('on the object schema, for valid objects and objects with one field changed to anything', () => {
    expect(remoteObjectSchema.test(good)).toBe(true);
    fc.assert(
      fc.property(mutated, (o) => {
        expect(remoteObjectSchema.test(o)).toBe(accepts(remoteObjectSchema, o));
        expect(trimmedObjectSchema.test(o)).toBe(accepts(trimmedObjectSchema, o));
      }),
      { numRuns: 500 },
    );
  });

  it('a required field whose schema takes undefined may be missing, as parse says', () => {
    const any: Schema<unknown> = { describe: 'any', parse: (v) => v, test: (_v): _v is unknown => true };
    const s = obj({ t: lit('x'), args: any, n: int() });
    for (const v of [
      { t: 'x', n: 1 },
      { t: 'x', args: undefined, n: 1 },
      { t: 'x' },
      { t: 'x', n: 1, toString: 1 },
      { t: 'x', n: 1, ['__proto__']: 1 },
    ])
      expect(s.test(v)).toBe(accepts(s, v));
  });

  it('on closed objects, unions, nullables, arrays and records, for any value', () => {
    const near = fc.record(
      {
        k: fc.constantFrom('a', 'z', 'q'),
        n: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 10 }), fc.anything()),
        b: fc.option(fc.anything(), { nil: undefined }),
        l: fc.option(fc.array(fc.constantFrom('x', 'y', 'w'), { maxLength: 3 }), { nil: undefined }),
        r: fc.option(fc.dictionary(fc.string({ maxLength: 2 }), fc.string({ maxLength: 4 }), { maxKeys: 3 }), { nil: undefined }),
      },
      { requiredKeys: ['k'] },
    );
    fc.assert(
      fc.property(fc.oneof(near, fc.anything()), (v) => {
        expect(mixed.test(v)).toBe(accepts(mixed, v));
        expect(union.test(v)).toBe(accepts(union, v));
      }),
      { numRuns: 1000 },
    );
  });
});
