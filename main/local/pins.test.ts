/**
 * Which entries pins cover (a folder's pin covers its subtree by the model's parent chain, so
 * it follows renames and moves and covers files added later) and which need a download; the
 * search's device view says of every id what `deviceStateOf` says.
 */
import { describe, expect, it } from 'vitest';
import { stateIn } from '../../app/filters/on-device.js';
import type { RemoteObject } from '../../app/model/remote-object.js';
import { prng } from '../../app/util/prng.js';
import { LocalModel, type LocalEntry } from './model.js';
import { deviceStateOf, deviceView, needsContent, pinOf, sameVersion, subtreeOf, WantedWalk, wantedFiles } from './pins.js';

const T0 = '2021-01-01T00:00:00.000Z';
const entry = (id: string, kind: 'file' | 'dir', lparent: string, over: Partial<LocalEntry> = {}): LocalEntry => ({
  id,
  kind,
  lparent,
  lname: id,
  ino: `i-${id}`,
  filled: false,
  rparent: lparent,
  rname: id,
  etag: `"${id}"`,
  mtime: T0,
  setag: `"${id}"`,
  state: 'ok',
  ...over,
});
const obj = (id: string, over: Partial<RemoteObject> = {}): RemoteObject => ({
  id,
  parentID: 'root',
  eTag: `"${id}"`,
  mimeType: 'application/octet-stream',
  name: id,
  mTime: T0,
  cTime: T0,
  hidden: 'none',
  size: 10,
  ...over,
});

/** root/{Docs/{a, Sub/{b}}, Other/, c} */
const tree = (): LocalModel =>
  new LocalModel('root', [
    entry('root', 'dir', ''),
    entry('Docs', 'dir', 'root'),
    entry('a', 'file', 'Docs'),
    entry('Sub', 'dir', 'Docs'),
    entry('b', 'file', 'Sub'),
    entry('Other', 'dir', 'root'),
    entry('c', 'file', 'root'),
  ]);

describe('pins', () => {
  it('a folder pin covers its subtree, wherever the folder moves, and what is added later', () => {
    const m = tree();
    const pins = new Set(['Docs']);
    expect(['a', 'b', 'Sub', 'Docs', 'c'].map((id) => pinOf(m, pins, id))).toEqual(['Docs', 'Docs', 'Docs', 'Docs', undefined]);
    m.place('Docs', 'Other', 'Papers', 'i-Docs'); // renamed and moved: the pin follows the id
    expect(pinOf(m, pins, 'b')).toBe('Docs');
    m.put(entry('new', 'file', 'Sub'));
    expect(pinOf(m, pins, 'new')).toBe('Docs');
    expect(pinOf(m, new Set(), 'b')).toBeUndefined();
    expect(subtreeOf(m, 'Sub').sort()).toEqual(['Sub', 'b', 'new']);
    expect(subtreeOf(m, 'a')).toEqual(['a']);
  });

  it('a rename (new eTag, same size and time) is the same version; new size or time is not', () => {
    const c = { etag: '"v1"', nasMtime: T0, size: 10, mtimeMs: 1, ino: '1' };
    expect(sameVersion(c, obj('a', { eTag: '"v1"' }))).toBe(true);
    expect(sameVersion(c, obj('a', { eTag: '"v2"' }))).toBe(true);
    expect(sameVersion(c, obj('a', { eTag: '"v2"', size: 11 }))).toBe(false);
    expect(sameVersion(c, obj('a', { eTag: '"v2"', mTime: '2022-01-01T00:00:00.000Z' }))).toBe(false);
  });

  it("needs a download: a placeholder of a non-empty file, or an older version; never the user's content", () => {
    const held = { etag: '"a"', nasMtime: T0, size: 10, mtimeMs: 1, ino: 'i-a' };
    expect(needsContent(entry('a', 'file', 'root'), obj('a'))).toBe(true);
    expect(needsContent(entry('a', 'file', 'root'), obj('a', { size: 0 }))).toBe(false);
    expect(needsContent(entry('a', 'file', 'root'), undefined)).toBe(false);
    expect(needsContent(entry('a', 'file', 'root', { filled: true }), obj('a'))).toBe(false);
    expect(needsContent(entry('a', 'file', 'root', { state: 'deleting' }), obj('a'))).toBe(false);
    expect(needsContent(entry('a', 'file', 'root', { ino: null }), obj('a'))).toBe(false);
    expect(needsContent(entry('a', 'file', 'root', { content: held }), obj('a'))).toBe(false);
    expect(needsContent(entry('a', 'file', 'root', { content: held }), obj('a', { eTag: '"a2"', size: 12 }))).toBe(true);
    expect(needsContent(entry('d', 'dir', 'root'), obj('d'))).toBe(false);
  });

  it('wantedFiles lists each covered file needing content once, overlapping pins or not', () => {
    const m = tree();
    const objects = new Map(['a', 'b', 'c'].map((id) => [id, obj(id)]));
    expect(wantedFiles(m, new Set(['Docs', 'Sub', 'b', 'gone']), (id) => objects.get(id)).sort()).toEqual(['a', 'b']);
    expect(wantedFiles(m, new Set(['c']), (id) => objects.get(id))).toEqual(['c']);
    m.update('a', { filled: true });
    expect(wantedFiles(m, new Set(['Docs']), (id) => objects.get(id))).toEqual(['b']);
  });

  it('read in steps of one entry, the walk finds what wantedFiles finds, in the same order', () => {
    const m = tree();
    const objects = new Map(['a', 'b', 'c'].map((id) => [id, obj(id)]));
    for (const pins of [new Set(['Docs', 'Sub', 'b', 'gone']), new Set(['root']), new Set(['c', 'Docs'])]) {
      const walk = new WantedWalk(pins);
      let steps = 0;
      while (!walk.step(m, (id) => objects.get(id), 1)) steps++;
      expect(walk.wanted).toEqual(wantedFiles(m, pins, (id) => objects.get(id)));
      expect(steps).toBeGreaterThan(0);
    }
  });

  it('the device view says what deviceStateOf says of every id, held or not, as the model and the pins change', () => {
    const r = prng(23);
    const held = (id: string): LocalEntry['content'] => ({ etag: `"${id}"`, nasMtime: T0, size: 10, mtimeMs: 1, ino: `i-${id}` });
    for (let round = 0; round < 20; round++) {
      const m = new LocalModel('root', [entry('root', 'dir', '')]);
      const dirs = ['root'];
      for (let i = 0; i < 300; i++) {
        const parent = dirs[Math.floor(r() * dirs.length)]!;
        if (r() < 0.2) {
          m.put(entry(`d${i}`, 'dir', parent));
          dirs.push(`d${i}`);
        } else {
          const x = r();
          m.put(entry(`f${i}`, 'file', parent, x < 0.1 ? { filled: true } : x < 0.25 ? { content: held(`f${i}`) } : {}));
        }
      }
      const ids = [...[...m.entries()].map((e) => e.id), 'not-in-the-model'];
      const pins = new Set([...ids.filter(() => r() < 0.02), 'pinned-but-gone']);
      const check = (what: string): void => {
        const view = deviceView(m, pins, what);
        for (const id of ids) {
          const want = deviceStateOf(m, pins, id);
          expect(stateIn(view, id), `${what} ${id}`).toBe(want === 'folder' ? undefined : want);
          expect(view.held.has(id), `${what} ${id}`).toBe(want === 'here' || want === 'edited' || want === 'pinned');
        }
      };
      check(`round ${round}`);
      // moves, edits, frees and new pins: a view built after them says it as well
      for (let k = 0; k < 30; k++) {
        const id = ids[Math.floor(r() * (ids.length - 1))]!;
        const e = m.get(id)!;
        if (id === 'root') continue;
        const x = r();
        if (x < 0.3 && e.kind === 'file') m.update(id, { filled: !e.filled, content: undefined });
        else if (x < 0.5 && e.kind === 'file') m.update(id, { content: e.content ? undefined : held(id) });
        else if (x < 0.7 && !m.isUnder(dirs[k % dirs.length]!, id)) m.place(id, dirs[k % dirs.length]!, id, e.ino);
        else pins.add(id);
      }
      check(`round ${round}, after changes`);
    }
  });
});
