/** The treemap fills its box exactly, areas proportional to values, no overlaps. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { squarify } from './treemap.js';

describe('squarify', () => {
  it('tiles the box with areas proportional to the values', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1e9 }), { maxLength: 60 }), (vals) => {
        const box = { x: 0, y: 0, w: 600, h: 400 };
        const rects = squarify(vals, box);
        const total = vals.reduce((a, b) => a + b, 0);
        let area = 0;
        rects.forEach((r, i) => {
          if (vals[i]! <= 0) {
            expect(r).toBeUndefined();
            return;
          }
          expect(r).toBeDefined();
          area += r!.w * r!.h;
          expect(r!.w * r!.h).toBeCloseTo((vals[i]! / total) * 600 * 400, 3);
          expect(r!.x).toBeGreaterThanOrEqual(-1e-6);
          expect(r!.y + r!.h).toBeLessThanOrEqual(400 + 1e-3);
        });
        if (total > 0) expect(area).toBeCloseTo(600 * 400, 3);
        const list = rects.filter((r) => r !== undefined);
        for (let a = 0; a < list.length; a++)
          for (let b = a + 1; b < list.length; b++) {
            const p = list[a]!,
              q = list[b]!;
            const ox = Math.min(p.x + p.w, q.x + q.w) - Math.max(p.x, q.x);
            const oy = Math.min(p.y + p.h, q.y + q.h) - Math.max(p.y, q.y);
            expect(ox <= 1e-3 || oy <= 1e-3).toBe(true);
          }
      }),
      { numRuns: 200 },
    );
  });
});
