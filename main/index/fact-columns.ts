/**
 * Small helpers of the columnar object facts (object-facts.ts): the fact of a stored row, a string table (each
 * distinct extension or camera once, by a dense id; 0 is '') and the read-only map view of
 * the facts by id that callers iterate (storage totals, tests), each fact read from the
 * columns when asked, and the table of ids to slots (an id can be taken out, so that a
 * freed slot can take another).
 */
import { factOf, type Fact } from '../../app/filters/facts.js';
import type { RemoteObject } from '../../app/model/remote-object.js';

/** A row of the facts' query (object-facts.ts `building`). */
export type FactRow = [number, string, string, string, string, unknown, unknown, unknown, unknown, string | null, string | null];

/** The fact of a row: the same as factOf of the stored object. */
export function factOfRow(r: FactRow): Fact {
  const [, id, parentID, name, mimeType, size, extension, mTime, date, cameraMake, cameraModel] = r;
  const o = { id, parentID, name, mimeType, mTime, eTag: '', cTime: '', hidden: 'none' } as RemoteObject;
  if (typeof size === 'number') o.size = size;
  if (typeof extension === 'string') o.extension = extension;
  if (typeof date === 'string' || cameraMake !== null || cameraModel !== null) {
    o.image = {};
    if (typeof date === 'string') o.image.date = date;
    if (cameraMake !== null) o.image.cameraMake = cameraMake;
    if (cameraModel !== null) o.image.cameraModel = cameraModel;
  }
  return factOf(o);
}

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

/**
 * Ids to slots: open addressing over an Int32Array (slot + 1; 0 is empty) by FNV-1a of the
 * id, the ids themselves in the caller's array by slot. Sized up front for the expected
 * count (no rehash of a million entries mid-build), doubled past half full.
 */
export class IdTable {
  private table: Int32Array;
  private used = 0;

  constructor(
    private readonly ids: readonly string[],
    expected = 1024,
  ) {
    let size = 1024;
    while (size < expected * 2) size *= 2;
    this.table = new Int32Array(size);
  }

  private static hash(id: string): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
    return h >>> 0;
  }

  get(id: string): number | undefined {
    const t = this.table,
      mask = t.length - 1;
    for (let i = IdTable.hash(id) & mask; ; i = (i + 1) & mask) {
      const v = t[i]!;
      if (v === 0) return undefined;
      if (this.ids[v - 1] === id) return v - 1;
    }
  }

  /** Adds an id not in the table yet, at `slot`. */
  add(id: string, slot: number): void {
    if ((this.used + 1) * 2 > this.table.length) this.rehash(this.table.length * 2);
    this.place(id, slot);
    this.used++;
  }

  /**
   * Takes an id out (its slot is about to be reused): the entries after it in its probe run
   * move back into the hole when their home allows (linear probing's deletion, no
   * tombstones). Call while `ids` still holds every entry's id.
   */
  delete(id: string): void {
    const t = this.table,
      mask = t.length - 1;
    let i = IdTable.hash(id) & mask;
    for (; ; i = (i + 1) & mask) {
      const v = t[i]!;
      if (v === 0) return;
      if (this.ids[v - 1] === id) break;
    }
    t[i] = 0;
    this.used--;
    for (let j = (i + 1) & mask; t[j] !== 0; j = (j + 1) & mask) {
      const v = t[j]!;
      const home = IdTable.hash(this.ids[v - 1]!) & mask;
      // the entry stays when its home lies cyclically in (i, j]
      const stays = i <= j ? home > i && home <= j : home > i || home <= j;
      if (stays) continue;
      t[i] = v;
      t[j] = 0;
      i = j;
    }
  }

  private place(id: string, slot: number): void {
    const t = this.table,
      mask = t.length - 1;
    let i = IdTable.hash(id) & mask;
    while (t[i] !== 0) i = (i + 1) & mask;
    t[i] = slot + 1;
  }

  private rehash(size: number): void {
    const old = this.table;
    this.table = new Int32Array(size);
    for (const v of old) if (v !== 0) this.place(this.ids[v - 1]!, v - 1);
  }
}
