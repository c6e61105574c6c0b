/**
 * The seeded randomness of the convergence runs (app/util/prng.ts, mulberry32). Each round
 * draws from its own stream, derived from (seed, round), so a round's plan does not depend
 * on how many numbers earlier rounds consumed.
 */
import { prng } from '../../app/util/prng.js';

export class Rng {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = prng(seed);
  }

  /** The stream of round `round` of seed `seed`. */
  static forRound(seed: number, round: number): Rng {
    let h = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(round + 1, 0xc2b2ae35)) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0;
    return new Rng(h ^ (h >>> 13));
  }

  float(): number {
    return this.next();
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(a: readonly T[]): T {
    if (a.length === 0) throw new Error('pick from an empty list');
    return a[Math.floor(this.next() * a.length)]!;
  }

  /** One of the entries, with probability proportional to its weight. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((s, [, w]) => s + w, 0);
    let x = this.next() * total;
    for (const [v, w] of entries) {
      if (x < w) return v;
      x -= w;
    }
    return entries[entries.length - 1]![0];
  }

  shuffle<T>(a: readonly T[]): T[] {
    const out = [...a];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}
