import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jsonStringField } from './tree-index.js';

describe('jsonStringField', () => {
  it('reads string fields of the stored image JSON like JSON.parse', () => {
    fc.assert(
      fc.property(
        fc.record({
          width: fc.integer(),
          cameraMake: fc.option(fc.string(), { nil: undefined }),
          cameraModel: fc.option(fc.string({ unit: 'binary' }), { nil: undefined }),
        }),
        (img) => {
          const json = JSON.stringify(img);
          expect(jsonStringField(json, 'cameraMake')).toBe(img.cameraMake);
          expect(jsonStringField(json, 'cameraModel')).toBe(img.cameraModel);
        },
      ),
    );
  });
});
