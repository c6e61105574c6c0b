import { describe, expect, it } from 'vitest';
import { LocalModel, type LocalEntry } from './model.js';

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

describe('LocalModel inode index', () => {
  it('built at first use after a load: finds what was loaded, follows later changes', () => {
    const m = new LocalModel('r');
    for (let i = 0; i < 100; i++) m.load(entry(`f${i}`, String(1000 + i)));
    expect(m.byIno('1042')?.id).toBe('f42');
    m.place('f42', 'r', 'moved.txt', '5000');
    expect(m.byIno('1042')).toBeUndefined();
    expect(m.byIno('5000')?.id).toBe('f42');
    m.remove('f7');
    expect(m.byIno('1007')).toBeUndefined();
  });

  it('built in slices while changes go on: the end result equals a build at once', async () => {
    const m = new LocalModel('r');
    for (let i = 0; i < 1000; i++) m.load(entry(`f${i}`, String(1000 + i)));
    const filling = m.indexInodesSoon(100);
    // changes between slices: a move to a new inode, a removal, a new entry, an entry placed at last
    m.place('f999', 'r', 'f999.txt', '9999');
    m.remove('f500');
    m.put(entry('n1', '7777'));
    m.put(entry('n2', null));
    await new Promise((r) => setImmediate(r));
    m.place('n2', 'r', 'n2.txt', '8888');
    m.place('f3', 'r', 'f3.txt', '3333');
    await filling;
    const sliced = new Map([...m.byId.values()].filter((e) => e.ino !== null).map((e) => [e.ino!, m.byIno(e.ino!)?.id]));
    for (const [ino, id] of sliced) expect(m.get(id!)?.ino, ino).toBe(ino);
    expect(m.byIno('1999')).toBeUndefined();
    expect(m.byIno('1500')).toBeUndefined();
    expect(m.byIno('1003')).toBeUndefined();
    expect(m.byIno('9999')?.id).toBe('f999');
    expect(m.byIno('8888')?.id).toBe('n2');
    expect(m.byIno('7777')?.id).toBe('n1');
    expect(m.byIno('1001')?.id).toBe('f1');
  });

  it('a lookup before the slices end builds it at once; the slices then stop', async () => {
    const m = new LocalModel('r');
    for (let i = 0; i < 1000; i++) m.load(entry(`f${i}`, String(1000 + i)));
    const filling = m.indexInodesSoon(10);
    expect(m.byIno('1900')?.id).toBe('f900');
    m.remove('f900');
    await filling;
    expect(m.byIno('1900')).toBeUndefined();
    expect(m.byIno('1901')?.id).toBe('f901');
  });

  it('a folder read in place finds its entries without building it; anything else falls back to it', () => {
    const m = new LocalModel('r');
    m.load({ ...entry('r', '1', ''), kind: 'dir', lname: '' });
    m.load({ ...entry('d', '2'), kind: 'dir', lname: 'Fotos' });
    m.load({ ...entry('e', '3', 'd'), kind: 'dir', lname: 'Café' });
    for (let i = 0; i < 10; i++) m.load(entry(`f${i}`, String(100 + i), 'e'));
    // in place (the path read back decomposed, as on a Mac): no index
    expect(m.dirByIno('Fotos/Cafe\u0301', '3')?.id).toBe('e');
    const here = m.placeLookup('e');
    expect(m.byInoIn(here, 'f4.txt', '104')?.id).toBe('f4');
    expect(m.dirByIno('', '1')?.id).toBe('r');
    expect(m.inodesIndexed).toBe(false);
    // a name now holding another entry's inode (moved here): the index answers
    expect(m.byInoIn(here, 'f4.txt', '105')?.id).toBe('f5');
    expect(m.inodesIndexed).toBe(true);
    expect(m.byInoIn(here, 'new.txt', '999')).toBeUndefined();
    // a folder at a path whose inode is not the model's there: found by inode, or nothing
    expect(m.dirByIno('Fotos', '3')?.id).toBe('e');
    expect(m.dirByIno('Nope/x', '2')?.id).toBe('d');
    expect(m.dirByIno('Fotos', '77')).toBeUndefined();
  });
});
