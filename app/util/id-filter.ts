/**
 * A Bloom filter of ids: `mayHold` is false only for an id never added. 2 MB; at 1M ids
 * ~0.5 % of the ids never added still answer "maybe". Where a first fill of 1M objects asked
 * a store about every new id only to learn it is not there, or kept every id it wrote in a
 * set to know that (~25 MB of table plus the strings): the local model (an id never put is
 * not in its store) and a first walk's writes (a page of ids never written needs no lookup).
 */
const BITS = 1 << 24;

export class IdFilter {
  private readonly bits = new Uint32Array(BITS >>> 5);

  add(id: string): void {
    const [a, b] = hashes(id);
    for (let i = 0; i < 3; i++) {
      const bit = (a + i * b) & (BITS - 1);
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  mayHold(id: string): boolean {
    const [a, b] = hashes(id);
    for (let i = 0; i < 3; i++) {
      const bit = (a + i * b) & (BITS - 1);
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** Two 32-bit FNV-1a hashes of the string's code units (different offset bases); the second odd. */
function hashes(s: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [a >>> 0, (b | 1) >>> 0];
}
