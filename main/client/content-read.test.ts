import { describe, expect, it } from 'vitest';
import { contentRangeOf } from './content-read.js';

describe('contentRangeOf', () => {
  it('reads a part, the 416 form, and refuses anything else', () => {
    expect(contentRangeOf('bytes 100-199/1000')).toEqual({ start: 100, total: 1000 });
    expect(contentRangeOf('bytes */1000')).toEqual({ start: undefined, total: 1000 });
    expect(contentRangeOf('bytes 0-9/*')).toEqual({ start: 0, total: undefined });
    expect(contentRangeOf(undefined)).toBeUndefined();
    expect(contentRangeOf('items 0-9/10')).toBeUndefined();
  });
});
