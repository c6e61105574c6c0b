import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generatedBytes, generatedStream } from './content.js';

describe('generated content', () => {
  it('every range equals the same slice of the whole, for any id', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 24 }), fc.nat({ max: 5000 }), fc.nat({ max: 5000 }), (id, a, b) => {
        const whole = generatedBytes(id, 0, 6000);
        const [s, e] = a <= b ? [a, b] : [b, a];
        expect(generatedBytes(id, s, e).equals(whole.subarray(s, e))).toBe(true);
      }),
    );
  });

  it('streams the same bytes in chunks; offsets past 4 GiB work; ids differ', async () => {
    const chunks: Buffer[] = [];
    for await (const c of generatedStream('id-1', 3, 200_003)) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(generatedBytes('id-1', 3, 200_003))).toBe(true);
    const far = 5 * 2 ** 30 + 1;
    expect(generatedBytes('id-1', far, far + 10).equals(generatedBytes('id-1', far - 3, far + 10).subarray(3))).toBe(true);
    expect(generatedBytes('id-1', 0, 64).equals(generatedBytes('id-2', 0, 64))).toBe(false);
    expect(generatedBytes('id-1', far, far + 64).equals(generatedBytes('id-1', far - 2 ** 32, far - 2 ** 32 + 64))).toBe(false);
  });
});
