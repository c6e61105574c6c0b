import { describe, expect, it } from 'vitest';
import { describeIntent, intentOf, intentSchema, inverseOf } from './intent.js';

describe('intent', () => {
  it('is one tagged union, checked on parse', () => {
    expect(intentSchema.parse({ op: 'delete', id: 'a', fromName: 'n', fromParent: 'p' })).toEqual({
      op: 'delete',
      id: 'a',
      fromName: 'n',
      fromParent: 'p',
    });
    expect(() => intentSchema.parse({ op: 'upload', id: 'a' })).toThrow(/op: expected one of patch, delete/);
    expect(() => intentSchema.parse({ op: 'patch', id: 'a', fromName: 'n', fromParent: 'p', name: null })).toThrow(/name/);
    expect(() => intentSchema.parse({ op: 'delete', id: 'a', fromName: 'n', fromParent: 'p', name: 'x' })).toThrow(/unknown field/);
  });
  it('intentOf keeps only the intent; inverseOf undoes exactly the fields a patch changed', () => {
    const planned = { op: 'patch' as const, id: 'a', name: 'new', fromName: 'old', fromParent: 'p', reason: 'moved on disk' };
    expect(intentOf(planned)).toEqual({ op: 'patch', id: 'a', name: 'new', fromName: 'old', fromParent: 'p' });
    expect(inverseOf({ op: 'patch', id: 'a', name: 'new', fromName: 'old', fromParent: 'p' }, { name: 'new', parentID: 'p' })).toEqual({
      op: 'patch',
      id: 'a',
      name: 'old',
      fromName: 'new',
      fromParent: 'p',
    });
    expect(inverseOf({ op: 'patch', id: 'a', parentID: 'q', fromName: 'old', fromParent: 'p' }, { name: 'old', parentID: 'q' })).toEqual({
      op: 'patch',
      id: 'a',
      parentID: 'p',
      fromName: 'old',
      fromParent: 'q',
    });
  });
  it('says the intent in words', () => {
    const where = (id: string): string => ({ a: '/x/a', q: '/Docs' })[id] ?? '';
    expect(describeIntent({ op: 'patch', id: 'a', name: 'b', parentID: 'q', fromName: 'a', fromParent: 'p' }, where)).toBe(
      'rename to "b" and move into /Docs',
    );
    expect(describeIntent({ op: 'delete', id: 'a', fromName: 'a', fromParent: 'p' }, where)).toBe('delete /x/a');
    expect(describeIntent({ op: 'unsendable', id: 'a', to: '/new/a' }, where)).toBe('move into /new/a');
  });
});
