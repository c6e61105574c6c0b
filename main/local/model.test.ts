import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LocalModel, type EntrySource, type LocalEntry } from './model.js';

const entry = (id: string, ino: string | null, lparent = 'r'): LocalEntry => ({
  id,
  kind: 'file',
  lparent,
  lname: `${id}.txt`,
  ino,
  filled: false,
  rparent: lparent,
  rname: `${id}.txt`,
  etag: '"e"',
  mtime: '2020-01-01T00:00:00Z',
  setag: '"e"',
  state: 'ok',
});

/** The state database's part, as rows in a map (copies in and out, as SQLite's rows are). */
class RowSource implements EntrySource {
  rows = new Map<string, LocalEntry>();
  reads = 0;
  /** Reads by id, found or not. */
  asked = 0;
  private out = (e: LocalEntry): LocalEntry => {
    this.reads++;
    return structuredClone(e);
  };
  get(id: string): LocalEntry | undefined {
    this.asked++;
    const e = this.rows.get(id);
    return e && this.out(e);
  }
  childrenOf(id: string): LocalEntry[] {
    return [...this.rows.values()].filter((e) => e.lparent === id).map(this.out);
  }
  withIno(ino: string): LocalEntry[] {
    return [...this.rows.values()].filter((e) => e.ino === ino).map(this.out);
  }
  dirs(): LocalEntry[] {
    return [...this.rows.values()].filter((e) => e.kind === 'dir').map(this.out);
  }
  all(): LocalEntry[] {
    return [...this.rows.values()].map(this.out);
  }
  count(): number {
    return this.rows.size;
  }
  filledIds(): string[] {
    return [...this.rows.values()].filter((e) => e.filled).map((e) => e.id);
  }
  contentIds(): string[] {
    return [...this.rows.values()].filter((e) => e.content !== undefined).map((e) => e.id);
  }
  /** What `LocalStore.flush` does: the changed entries written, the removed ones deleted. */
  flush(m: LocalModel): void {
    for (const id of m.takeDirty()) {
      const e = m.peek(id);
      if (e) this.rows.set(id, structuredClone(e));
      else this.rows.delete(id);
    }
  }
}

describe('LocalModel inode lookups', () => {
  it('find what was loaded and follow later changes', () => {
    const m = new LocalModel('r');
    for (let i = 0; i < 100; i++) m.load(entry(`f${i}`, String(1000 + i)));
    expect(m.byIno('1042')?.id).toBe('f42');
    m.place('f42', 'r', 'moved.txt', '5000');
    expect(m.byIno('1042')).toBeUndefined();
    expect(m.byIno('5000')?.id).toBe('f42');
    m.remove('f7');
    expect(m.byIno('1007')).toBeUndefined();
  });

  it('a folder read in place finds its entries by name; anything else by inode', () => {
    const m = new LocalModel('r');
    m.load({ ...entry('r', '1', ''), kind: 'dir', lname: '' });
    m.load({ ...entry('d', '2'), kind: 'dir', lname: 'Fotos' });
    m.load({ ...entry('e', '3', 'd'), kind: 'dir', lname: 'Café' });
    for (let i = 0; i < 10; i++) m.load(entry(`f${i}`, String(100 + i), 'e'));
    // in place (the path read back decomposed, as on a Mac)
    expect(m.dirByIno('Fotos/Cafe\u0301', '3')?.id).toBe('e');
    const here = m.placeLookup('e');
    expect(m.byInoIn(here, 'f4.txt', '104')?.id).toBe('f4');
    expect(m.dirByIno('', '1')?.id).toBe('r');
    // a name now holding another entry's inode (moved here)
    expect(m.byInoIn(here, 'f4.txt', '105')?.id).toBe('f5');
    expect(m.byInoIn(here, 'new.txt', '999')).toBeUndefined();
    // a folder at a path whose inode is not the model's there: found by inode, or nothing
    expect(m.dirByIno('Fotos', '3')?.id).toBe('e');
    expect(m.dirByIno('Nope/x', '2')?.id).toBe('d');
    expect(m.dirByIno('Fotos', '77')).toBeUndefined();
  });
});

describe('LocalModel over a source (issue 24: entries read on use, released between rounds)', () => {
  const tree = (): LocalEntry[] => [
    { ...entry('r', '1', ''), kind: 'dir', lname: '' },
    { ...entry('d', '2'), kind: 'dir', lname: 'D' },
    { ...entry('e', '3', 'd'), kind: 'dir', lname: 'E' },
    ...Array.from({ length: 6 }, (_, i) => entry(`f${i}`, String(100 + i), i < 3 ? 'd' : 'e')),
  ];

  it('reads nothing up front; a lookup reads just what it needs; released, unchanged entries leave memory', () => {
    const src = new RowSource();
    for (const e of tree()) src.rows.set(e.id, e);
    const m = new LocalModel('r', [], src);
    expect(m.inMemory).toBe(0);
    expect(m.objectCount()).toBe(8);
    expect(m.pathOf('f4')).toBe('D/E/f4.txt');
    expect(m.inMemory).toBe(4);
    expect(m.children('e').sort()).toEqual(['f3', 'f4', 'f5']);
    m.place('f5', 'd', 'moved.txt', '105');
    m.release();
    expect(m.inMemory).toBe(1); // the changed one stays until it is written
    expect(m.children('d').sort()).toEqual(['e', 'f0', 'f1', 'f2', 'f5']);
    expect(m.children('e').sort()).toEqual(['f3', 'f4']);
    m.remove('f0');
    expect(m.get('f0')).toBeUndefined(); // removed here, still in the rows until the flush
    expect(m.byIno('100')).toBeUndefined();
    src.flush(m);
    m.release();
    expect(m.inMemory).toBe(0);
    expect(m.get('f5')?.lname).toBe('moved.txt');
    expect(m.byIno('104')?.id).toBe('f4');
    expect(m.objectCount()).toBe(7);
    expect(
      m
        .dirs()
        .map((e) => e.id)
        .sort(),
    ).toEqual(['d', 'e', 'r']);
  });

  it('over an empty source (a first run) reads nothing until a release', () => {
    const src = new RowSource();
    const m = new LocalModel('r', [], src);
    for (const e of tree()) m.put(e);
    expect(m.pathOf('f4')).toBe('D/E/f4.txt');
    expect(m.get('nope')).toBeUndefined();
    expect(src.reads).toBe(0);
    src.flush(m);
    m.release();
    expect(m.inMemory).toBe(0);
    expect(m.pathOf('f4')).toBe('D/E/f4.txt');
    expect(src.reads).toBe(3); // f4, E and D: the path stops at the root
    // released in the middle of a first fill: an id never put is not looked for (engine.ts releases in a first walk)
    const asked = src.asked;
    expect(m.get('new')).toBeUndefined();
    m.put(entry('new', '200', 'd'));
    expect(src.asked).toBe(asked);
    src.flush(m);
    m.release();
    expect(m.get('new')?.lname).toBe('new.txt');
    expect(src.asked).toBe(asked + 1);
  });

  // Any run of changes, with flushes and releases anywhere between them, answers every
  // question as the model that holds everything in memory does.
  it('answers as the model held in memory, whatever is flushed and released when', () => {
    const ids = ['d', 'e', 'g', ...Array.from({ length: 8 }, (_, i) => `f${i}`), 'n1', 'n2'];
    const folders = ['r', 'd', 'e', 'g'];
    const op = fc.oneof(
      fc.record({ t: fc.constant('place' as const), id: fc.constantFrom(...ids), parent: fc.constantFrom(...folders), ino: fc.nat(30) }),
      fc.record({ t: fc.constant('remove' as const), id: fc.constantFrom(...ids) }),
      fc.record({ t: fc.constant('put' as const), id: fc.constantFrom(...ids), parent: fc.constantFrom(...folders), filled: fc.boolean() }),
      fc.record({ t: fc.constant('rebind' as const), id: fc.constantFrom(...ids) }),
      fc.record({ t: fc.constant('flush' as const) }),
      fc.record({ t: fc.constant('release' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const start = [
          { ...entry('r', '1', ''), kind: 'dir' as const, lname: '' },
          ...['d', 'e', 'g'].map((id, i) => ({ ...entry(id, String(2 + i), i === 1 ? 'd' : 'r'), kind: 'dir' as const, lname: id })),
          ...Array.from({ length: 8 }, (_, i) => entry(`f${i}`, String(10 + i), folders[i % 4])),
        ];
        const src = new RowSource();
        for (const e of start) src.rows.set(e.id, structuredClone(e));
        const lazy = new LocalModel('r', [], src);
        const mem = new LocalModel('r');
        for (const e of start) mem.load(structuredClone(e));
        // (each change a new inode: two entries holding one, which no disk shows, answer either)
        for (const [step, o] of ops.entries()) {
          const ino = String(100 + step);
          for (const m of [lazy, mem]) {
            const has = m.get('id' in o ? o.id : '') !== undefined;
            if (o.t === 'place' && has) m.place(o.id, o.parent, `${o.id}-${o.ino}`, ino);
            else if (o.t === 'remove') m.remove(o.id);
            else if (o.t === 'put') m.put({ ...entry(o.id, null, o.parent), filled: o.filled });
            else if (o.t === 'rebind' && has) m.rebind(o.id, ino, false);
          }
          if (o.t === 'flush') {
            src.flush(lazy);
            mem.takeDirty();
          } else if (o.t === 'release') lazy.release();
          expect(lazy.objectCount()).toBe(mem.objectCount());
        }
        for (const id of ['r', ...ids]) {
          expect(lazy.get(id)).toEqual(mem.get(id));
          expect(lazy.pathOf(id)).toBe(mem.pathOf(id));
          expect(lazy.children(id).sort()).toEqual(mem.children(id).sort());
        }
        for (let ino = 0; ino <= 150; ino++) expect(lazy.byIno(String(ino))?.id).toBe(mem.byIno(String(ino))?.id);
        expect(
          lazy
            .dirs()
            .map((e) => e.id)
            .sort(),
        ).toEqual(
          mem
            .dirs()
            .map((e) => e.id)
            .sort(),
        );
        expect([...lazy.entries()].map((e) => e.id).sort()).toEqual([...mem.entries()].map((e) => e.id).sort());
        expect([...lazy.withFilled].sort()).toEqual([...mem.withFilled].sort());
      }),
      { numRuns: 400 },
    );
  });
});
