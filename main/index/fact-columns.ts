/**
 * Small helpers of the columnar object facts (object-facts.ts): a string table (each
 * distinct extension or camera once, by a dense id; 0 is '') and the read-only map view of
 * the facts by id that callers iterate (storage totals, tests), each fact read from the
 * columns when asked.
 */
import type { Fact } from '../../app/filters/facts.js';

export class Strings {
  readonly list: string[] = [''];
  private readonly ids = new Map<string, number>([['', 0]]);

  idOf(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.list.length;
      this.list.push(s);
      this.ids.set(s, id);
    }
    return id;
  }

  at(id: number): string {
    return this.list[id]!;
  }
}

/** What FactsById reads (ObjectFacts). */
interface FactSource {
  readonly size: number;
  presentSlot(id: string): number;
  factAt(s: number): Fact;
  presentSlots(): Iterable<number>;
  columns(): { readonly ids: readonly string[] };
}

/** The facts as a ReadonlyMap<string, Fact>, in slot order. */
export class FactsById implements ReadonlyMap<string, Fact> {
  constructor(private readonly f: FactSource) {}

  get size(): number {
    return this.f.size;
  }

  has(id: string): boolean {
    return this.f.presentSlot(id) >= 0;
  }

  get(id: string): Fact | undefined {
    const s = this.f.presentSlot(id);
    return s < 0 ? undefined : this.f.factAt(s);
  }

  *keys(): MapIterator<string> {
    const ids = this.f.columns().ids;
    for (const s of this.f.presentSlots()) yield ids[s]!;
  }

  *values(): MapIterator<Fact> {
    for (const s of this.f.presentSlots()) yield this.f.factAt(s);
  }

  *entries(): MapIterator<[string, Fact]> {
    for (const s of this.f.presentSlots()) {
      const fact = this.f.factAt(s);
      yield [fact.id, fact];
    }
  }

  [Symbol.iterator](): MapIterator<[string, Fact]> {
    return this.entries();
  }

  forEach(cb: (value: Fact, key: string, map: ReadonlyMap<string, Fact>) => void): void {
    for (const [k, v] of this.entries()) cb(v, k, this);
  }
}
