import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildBase, nameOf } from './base-index.js';
import { indexFile, loadIndex, saveIndex } from './persist.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('saveIndex / loadIndex', () => {
  it('round-trips names and the name blob written in slices, astral characters across a slice boundary included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'persist-'));
    dirs.push(dir);
    // one name longer than a 1 MiB write slice, of surrogate pairs at odd offsets (a cut
    // between the two halves of one would corrupt it); more than 4096 names (several groups)
    const long = `x${'😀'.repeat(600_000)}é`;
    const docs = [
      { id: 'big', name: long, mimeType: 'image/jpeg' },
      ...Array.from({ length: 5000 }, (_, i) => ({ id: `n${i}`, name: `Café ${i} 𝄞.txt`, mimeType: 'text/plain' })),
    ];
    const base = buildBase(docs);
    saveIndex(dir, { base, dead: new Uint8Array(base.n), extra: [], generation: 7 });
    const back = loadIndex(dir);
    expect(back?.generation).toBe(7);
    expect(back?.base.cases).toEqual(base.cases);
    expect(back && Array.from({ length: back.base.n }, (_, o) => nameOf(back.base, o))).toEqual(
      Array.from({ length: base.n }, (_, o) => nameOf(base, o)),
    );
    expect(back?.base.blob === base.blob).toBe(true);
    expect(back?.base.idBlob === base.idBlob).toBe(true);
  });

  it('reads every typed section back as it was, and a file cut short or of another format as absent', () => {
    const dir = mkdtempSync(join(tmpdir(), 'persist-'));
    dirs.push(dir);
    const docs = Array.from({ length: 3000 }, (_, i) => ({
      id: `id${i}`,
      name: `report ${i % 97} draft-${i}.pdf`,
      mimeType: 'application/pdf',
    }));
    const base = buildBase(docs);
    const dead = new Uint8Array(base.n).map((_, i) => (i % 7 === 0 ? 1 : 0));
    saveIndex(dir, { base, dead, extra: [], generation: 3 });
    const back = loadIndex(dir);
    expect(back?.dead).toEqual(dead);
    for (const k of ['starts', 'combo', 'triKeys', 'triStart', 'triList', 'wsStart', 'wsList', 'shortList', 'byId'] as const)
      expect(back?.base[k]).toEqual(base[k]);

    const file = indexFile(dir);
    const whole = readFileSync(file);
    truncateSync(file, whole.length - 100);
    expect(loadIndex(dir)).toBeUndefined();
    const other = Buffer.from(whole);
    const hlen = other.readUInt32LE(0);
    other.write(JSON.stringify('nas-mirror-text-index/0'), other.indexOf('"format":') + '"format":'.length);
    expect(other.readUInt32LE(0)).toBe(hlen);
    writeFileSync(file, other);
    expect(loadIndex(dir)).toBeUndefined();
  });

  it('reads a file of format 5 (the names as a second text) with the same names: an update rebuilds nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'persist-'));
    dirs.push(dir);
    const docs = ['IMG_0001.JPG', 'ÉtéΣ 2024', 'plain.txt', 'İstanbul', 'a😀B'].map((name, i) => ({ id: `id${i}`, name, mimeType: 'x' }));
    const base = buildBase(docs);
    saveIndex(dir, { base, dead: new Uint8Array(base.n), extra: [], generation: 4 });
    // the same file as format 5 wrote it: its names text added as a section, the format said so
    const file = indexFile(dir);
    const whole = readFileSync(file);
    const hlen = whole.readUInt32LE(0);
    const header = JSON.parse(whole.subarray(8, 8 + hlen).toString('utf8')) as {
      format: string;
      sections: { name: string; kind: string; offset: number; bytes: number }[];
    };
    const data = whole.subarray(8 + ((hlen + 7) & ~7));
    const names = Buffer.from(Array.from({ length: base.n }, (_, o) => nameOf(base, o) + '\0').join(''), 'utf8');
    header.format = 'nas-mirror-text-index/5';
    header.sections = [
      ...header.sections.filter((x) => !['upper', 'otherAt', 'otherUnit'].includes(x.name)),
      { name: 'names', kind: 'utf8', offset: data.length, bytes: names.length },
    ];
    const hb = Buffer.from(JSON.stringify(header), 'utf8');
    const prefix = Buffer.alloc(8);
    prefix.writeUInt32LE(hb.length, 0);
    writeFileSync(file, Buffer.concat([prefix, hb, Buffer.alloc(((hb.length + 7) & ~7) - hb.length), data, names]));
    const back = loadIndex(dir);
    expect(back?.generation).toBe(4);
    expect(back && Array.from({ length: back.base.n }, (_, o) => nameOf(back.base, o))).toEqual(
      Array.from({ length: base.n }, (_, o) => nameOf(base, o)),
    );
    expect(back?.base.cases).toEqual(base.cases);
  });
});
