import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LocalModel, type Kind, type LocalEntry } from './model.js';
import { pairByPlace } from './pair-by-place.js';
import type { DirScan } from './analyse.js';

/**
 * Pairing by place (a disk whose file ids changed: every inode renumbered) never guesses:
 * whatever the user did while the engine was stopped, a move it reports is where that entry
 * really went, a delete is an entry really gone with nothing that could be it, and whatever
 * it cannot tell is `uncertain` (held for the user). Entries left alone are recognised.
 */
const T0 = Date.parse('2020-01-01T00:00:00Z');

interface Node {
  id: string;
  kind: Kind;
  parent: string;
  name: string;
  time: number;
  isNew?: boolean;
}

function modelOf(nodes: Node[]): LocalModel {
  const m = new LocalModel('R');
  m.put(entry('R', 'dir', '', '', 0));
  for (const n of nodes) m.put(entry(n.id, n.kind, n.parent, n.name, n.time));
  return m;
}

function entry(id: string, kind: Kind, parent: string, name: string, time: number): LocalEntry {
  return {
    id,
    kind,
    lparent: parent,
    lname: name,
    ino: `old-${id}`,
    filled: false,
    rparent: parent,
    rname: name,
    etag: '"Ag"',
    mtime: new Date(time).toISOString(),
    setag: '"Ag"',
    state: 'ok',
  };
}

/** Scans of every folder of `disk` (nodes as they are now), with fresh inodes (a remount). */
function scansOf(disk: Node[]): DirScan[] {
  const byId = new Map(disk.map((n) => [n.id, n]));
  const pathOf = (id: string): string => {
    const segs: string[] = [];
    for (let c = id; c !== 'R'; c = byId.get(c)!.parent) segs.unshift(byId.get(c)!.name);
    return segs.join('/');
  };
  const dirs = ['R', ...disk.filter((n) => n.kind === 'dir').map((n) => n.id)];
  return dirs
    .map((d) => ({
      path: d === 'R' ? '' : pathOf(d),
      ino: d === 'R' ? 'new-R' : `new-${d}`,
      entries: disk
        .filter((n) => n.parent === d)
        .map((n) => ({ name: n.name, ino: `new-${n.id}`, kind: n.kind, size: 0, mtimeMs: n.time })),
    }))
    .sort((a, b) => (a.path === '' ? 0 : a.path.split('/').length) - (b.path === '' ? 0 : b.path.split('/').length));
}

const opArb = fc.record({ op: fc.constantFrom('rename', 'move', 'delete', 'add', 'touch'), a: fc.nat(), b: fc.nat() });

describe('pairByPlace (property)', () => {
  it('never pairs wrongly: moves are real, deletes have no possible twin, the rest is recognised or held', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ parent: fc.nat(), dir: fc.boolean(), sameTime: fc.boolean() }), { minLength: 1, maxLength: 25 }),
        fc.array(opArb, { maxLength: 8 }),
        (spec, ops) => {
          const nodes: Node[] = [];
          const dirs = ['R'];
          spec.forEach((s, i) => {
            const n: Node = {
              id: `o${i}`,
              kind: s.dir ? 'dir' : 'file',
              parent: dirs[s.parent % dirs.length]!,
              name: `n${i}`,
              time: s.sameTime ? T0 : T0 + (i + 1) * 60_000,
            };
            nodes.push(n);
            if (s.dir) dirs.push(n.id);
          });
          const model = modelOf(nodes);
          // the user, while the engine was stopped
          let disk = nodes.map((n) => ({ ...n }));
          const isUnder = (id: string, anc: string): boolean => {
            for (let c: string | undefined = id; c && c !== 'R'; c = disk.find((x) => x.id === c)?.parent) if (c === anc) return true;
            return false;
          };
          const free = (parent: string, name: string): boolean => !disk.some((x) => x.parent === parent && x.name === name);
          let k = 0;
          for (const o of ops) {
            if (disk.length === 0) break;
            const x = disk[o.a % disk.length]!;
            const folders = ['R', ...disk.filter((d) => d.kind === 'dir').map((d) => d.id)];
            if (o.op === 'rename' && free(x.parent, `r${k}`)) x.name = `r${k++}`;
            else if (o.op === 'move') {
              const to = folders[o.b % folders.length]!;
              if (to !== x.id && !isUnder(to, x.id) && free(to, x.name)) x.parent = to;
            } else if (o.op === 'delete') disk = disk.filter((d) => d.id !== x.id && !isUnder(d.id, x.id));
            else if (o.op === 'add') {
              const to = folders[o.b % folders.length]!;
              // a new file has today's time, a placeholder the NAS's (years before)
              if (free(to, `new${k}`))
                disk.push({
                  id: `new${k}`,
                  kind: o.b % 2 ? 'dir' : 'file',
                  parent: to,
                  name: `new${k}`,
                  time: T0 + 900_000_000 + k++ * 60_000,
                  isNew: true,
                });
            } else if (o.op === 'touch' && x.kind === 'file') x.time = T0 + 999_999_999;
          }
          const res = pairByPlace({ model, scans: scansOf(disk), granularityMs: 2000, why: 'test' });
          const now = new Map(disk.map((n) => [n.id, n]));
          // a file's move is where that file went; a folder's may be another folder that
          // took its contents and its place (two folders renamed while everything in one
          // moved to the other: the NAS ends with the same tree, their ids traded), so
          // folders are checked below by where everything ends
          const traded = res.moves.some((m) => {
            const d = now.get(m.id);
            return model.get(m.id)!.kind === 'dir' && (!d || d.parent !== m.toParent || d.name !== m.toName);
          });
          for (const m of res.moves) {
            const d = now.get(m.id);
            if (traded || model.get(m.id)!.kind === 'dir') continue;
            expect(d, `${m.id} moved but it is gone`).toBeDefined();
            expect([d!.parent, d!.name]).toEqual([m.toParent, m.toName]);
          }
          for (const id of res.deletes) expect(now.has(id), `${id} deleted but it is on disk`).toBe(false);
          for (const u of res.uncertain) expect(model.get(u.id)).toBeDefined();
          // nothing the user left at its place is reported at all
          const reported = new Set([...res.moves.map((m) => m.id), ...res.deletes, ...res.uncertain.map((u) => u.id)]);
          for (const n of nodes) {
            const d = now.get(n.id);
            const orig = nodes.find((x) => x.id === n.id)!;
            if (!traded && d && d.parent === orig.parent && d.name === orig.name)
              expect(reported.has(n.id), `${n.id} untouched but reported`).toBe(false);
          }
          // entries of the model that are gone are either deleted, held, or below something that is
          const covered = (id: string): boolean => {
            for (let c: string | undefined = id; c && c !== 'R'; c = model.get(c)?.lparent) if (reported.has(c)) return true;
            return false;
          };
          for (const n of nodes) if (!now.has(n.id)) expect(covered(n.id), `${n.id} gone without a word`).toBe(true);
          // applied to the model, the result puts everything not held or deleted at a place of its kind on disk
          const after = new Map([...model.entries()].map((e) => [e.id, { parent: e.lparent, name: e.lname }]));
          for (const m of res.moves) after.set(m.id, { parent: m.toParent, name: m.toName });
          const pathAfter = (id: string): string => {
            const segs: string[] = [];
            for (let c = id; c !== 'R'; c = after.get(c)!.parent) segs.unshift(after.get(c)!.name);
            return segs.join('/');
          };
          const diskKinds = new Map(
            scansOf(disk).flatMap((sc) => sc.entries.map((e) => [sc.path === '' ? e.name : `${sc.path}/${e.name}`, e.kind] as const)),
          );
          for (const n of nodes)
            if (!covered(n.id)) expect(diskKinds.get(pathAfter(n.id)), `${n.id} ends at ${pathAfter(n.id)}`).toBe(n.kind);
          // every rebound inode of a file is the one the disk gives that file now (folders: see above)
          for (const r of res.rebound) if (r.id !== 'R' && model.get(r.id)!.kind === 'file') expect(r.ino).toBe(`new-${r.id}`);
        },
      ),
      {
        numRuns: Number(process.env['PLACE_RUNS'] ?? 500),
        ...(process.env['PLACE_SEED'] === 'random' ? {} : { seed: Number(process.env['PLACE_SEED'] ?? 20261126) }),
      },
    );
  });
});

describe('pairByPlace (cases)', () => {
  const base = (): Node[] => [
    { id: 'd', kind: 'dir', parent: 'R', name: 'Docs', time: T0 },
    { id: 'a', kind: 'file', parent: 'd', name: 'a.txt', time: T0 + 60_000 },
    { id: 'b', kind: 'file', parent: 'd', name: 'b.txt', time: T0 + 120_000 },
    { id: 'p', kind: 'dir', parent: 'R', name: 'Photos', time: T0 },
    { id: 'x', kind: 'file', parent: 'p', name: 'x.jpg', time: T0 + 180_000 },
    { id: 'y', kind: 'file', parent: 'p', name: 'y.jpg', time: T0 + 240_000 },
  ];

  it('a remount with nothing changed: every entry recognised, nothing else', () => {
    const r = pairByPlace({ model: modelOf(base()), scans: scansOf(base()), granularityMs: 2000, why: 'test' });
    expect(r).toMatchObject({ moves: [], deletes: [], uncertain: [], localOnly: [] });
    expect(r.rebound.map((x) => x.id).sort()).toEqual(['R', 'a', 'b', 'd', 'p', 'x', 'y']);
  });

  it('a renamed folder is paired by its contents and its insides by place; a renamed file by its time', () => {
    const disk = base().map((n) => (n.id === 'p' ? { ...n, name: 'Trip' } : n.id === 'a' ? { ...n, name: 'A.txt', parent: 'p' } : n));
    const r = pairByPlace({ model: modelOf(base()), scans: scansOf(disk), granularityMs: 2000, why: 'test' });
    expect(r.moves.map((m) => [m.id, m.toParent, m.toName]).sort()).toEqual([
      ['a', 'p', 'A.txt'],
      ['p', 'R', 'Trip'],
    ]);
    expect(r.deletes).toEqual([]);
    expect(r.uncertain).toEqual([]);
  });

  it('a deleted file with nothing new anywhere is a delete; with a new file that does not agree, it is held', () => {
    const gone = base().filter((n) => n.id !== 'b');
    expect(pairByPlace({ model: modelOf(base()), scans: scansOf(gone), granularityMs: 2000, why: 'test' }).deletes).toEqual(['b']);
    const other = [...gone, { id: 'n', kind: 'file' as const, parent: 'p', name: 'new.txt', time: T0 + 999_999 }];
    const r = pairByPlace({ model: modelOf(base()), scans: scansOf(other), granularityMs: 2000, why: 'test' });
    expect(r.deletes).toEqual([]);
    expect(r.uncertain).toEqual([{ id: 'b', candidates: ['Photos/new.txt'] }]);
    expect(r.localOnly.map((l) => l.path)).toEqual(['Photos/new.txt']);
  });

  it('the time is compared to the file system granularity (FAT: 2 s)', () => {
    const disk = base().map((n) => (n.id === 'b' ? { ...n, name: 'b2.txt', time: n.time + 1500 } : n));
    expect(pairByPlace({ model: modelOf(base()), scans: scansOf(disk), granularityMs: 2000, why: 'test' }).moves.map((m) => m.id)).toEqual([
      'b',
    ]);
    expect(pairByPlace({ model: modelOf(base()), scans: scansOf(disk), granularityMs: 0, why: 'test' }).uncertain.map((u) => u.id)).toEqual(
      ['b'],
    );
  });

  it('two folders that traded names while stopped are a swap of the two folders, not moves of what they hold', () => {
    const nodes: Node[] = [
      { id: 'A', kind: 'dir', parent: 'R', name: 'Love Sky', time: T0 },
      { id: 'B', kind: 'dir', parent: 'R', name: 'Summer', time: T0 },
      ...[1, 2, 3].map((i): Node => ({ id: `a${i}`, kind: 'file', parent: 'A', name: `a${i}.mp3`, time: T0 + i * 60_000 })),
      ...[1, 2, 3].map((i): Node => ({ id: `b${i}`, kind: 'file', parent: 'B', name: `b${i}.mp3`, time: T0 + (10 + i) * 60_000 })),
    ];
    const disk = nodes.map((n) => (n.id === 'A' ? { ...n, name: 'Summer' } : n.id === 'B' ? { ...n, name: 'Love Sky' } : n));
    const r = pairByPlace({ model: modelOf(nodes), scans: scansOf(disk), granularityMs: 2000, why: 'test' });
    expect(r.moves.map((m) => [m.id, m.toName]).sort()).toEqual([
      ['A', 'Summer'],
      ['B', 'Love Sky'],
    ]);
    expect(r.deletes).toEqual([]);
    expect(r.uncertain).toEqual([]);
  });

  it('two folders of two items and one that traded names are a swap too (soak seed 4049); of one item each, the place wins', () => {
    const trade = (na: number, nb: number): [string, string][] => {
      const nodes: Node[] = [
        { id: 'A', kind: 'dir', parent: 'R', name: 'Radiohead', time: T0 },
        { id: 'B', kind: 'dir', parent: 'R', name: 'Yann Tiersen', time: T0 },
        ...Array.from({ length: na }, (_, i): Node => ({ id: `a${i}`, kind: 'dir', parent: 'A', name: `Album a${i}`, time: T0 })),
        ...Array.from({ length: nb }, (_, i): Node => ({ id: `b${i}`, kind: 'dir', parent: 'B', name: `Album b${i}`, time: T0 })),
      ];
      const disk = nodes.map((n) => (n.id === 'A' ? { ...n, name: 'Yann Tiersen' } : n.id === 'B' ? { ...n, name: 'Radiohead' } : n));
      const r = pairByPlace({ model: modelOf(nodes), scans: scansOf(disk), granularityMs: 2000, why: 'test' });
      expect(r.deletes).toEqual([]);
      return r.moves.map((m): [string, string] => [m.id, m.toParent === 'R' ? m.toName : `into ${m.toParent}`]).sort();
    };
    expect(trade(2, 1)).toEqual([
      ['A', 'Yann Tiersen'],
      ['B', 'Radiohead'],
    ]);
    expect(trade(1, 2)).toEqual([
      ['A', 'Yann Tiersen'],
      ['B', 'Radiohead'],
    ]);
    // one item each: "the folders swapped" or "their items swapped" (docs/sync-engine.md, known limits)
    expect(trade(1, 1)).toEqual([
      ['a0', 'into B'],
      ['b0', 'into A'],
    ]);
  });

  it('three folders whose names went round while stopped (two swaps in a row, soak seed 9015 r20) are three renames, not moves of what they hold', () => {
    const names = ['Documents', 'Music', 'Party'];
    const nodes: Node[] = names.flatMap((name, f): Node[] => [
      { id: `F${f}`, kind: 'dir', parent: 'R', name, time: T0 },
      ...[1, 2, 3].map((i): Node => ({
        id: `k${f}${i}`,
        kind: 'file',
        parent: `F${f}`,
        name: `${name} ${i}.jpg`,
        time: T0 + (f * 10 + i) * 60_000,
      })),
    ]);
    // Documents -> Music, Music -> Party, Party -> Documents
    const disk = nodes.map((n) => (n.kind === 'dir' ? { ...n, name: names[(Number(n.id.slice(1)) + 1) % 3]! } : n));
    const r = pairByPlace({ model: modelOf(nodes), scans: scansOf(disk), granularityMs: 2000, why: 'test' });
    expect(r.moves.map((m) => [m.id, m.toName]).sort()).toEqual([
      ['F0', 'Music'],
      ['F1', 'Party'],
      ['F2', 'Documents'],
    ]);
    expect(r.deletes).toEqual([]);
    expect(r.uncertain).toEqual([]);
  });

  it('two folders of two items and one that traded names, the two-item one then renamed (soak seed 10007 r6): two renames, nothing inside moves', () => {
    const nodes: Node[] = [
      { id: 'Y', kind: 'dir', parent: 'R', name: 'Yann', time: T0 },
      { id: 'K', kind: 'dir', parent: 'R', name: 'Kraft', time: T0 },
      { id: 'y1', kind: 'dir', parent: 'Y', name: 'Love Road', time: T0 },
      { id: 'y2', kind: 'dir', parent: 'Y', name: 'Night River', time: T0 },
      { id: 'k1', kind: 'dir', parent: 'K', name: 'Love Sky', time: T0 },
    ];
    const disk = nodes.map((n) => (n.id === 'K' ? { ...n, name: 'Yann' } : n.id === 'Y' ? { ...n, name: 'Yann r6' } : n));
    const r = pairByPlace({ model: modelOf(nodes), scans: scansOf(disk), granularityMs: 2000, why: 'test' });
    expect(r.moves.map((m) => [m.id, m.toName]).sort()).toEqual([
      ['K', 'Yann'],
      ['Y', 'Yann r6'],
    ]);
    expect(r.deletes).toEqual([]);
    expect(r.uncertain).toEqual([]);
  });

  it('two folders that traded names, one of them then moved away: each is found by its contents, nothing inside moves', () => {
    const nodes: Node[] = [
      { id: 'P', kind: 'dir', parent: 'R', name: 'Party', time: T0 },
      { id: 'V', kind: 'dir', parent: 'R', name: 'Old Videos', time: T0 },
      { id: 'M', kind: 'dir', parent: 'R', name: 'Music', time: T0 },
      ...[1, 2, 3].map((i): Node => ({ id: `p${i}`, kind: 'file', parent: 'P', name: `p${i}.jpg`, time: T0 + i * 60_000 })),
      ...[1, 2, 3].map((i): Node => ({ id: `v${i}`, kind: 'file', parent: 'V', name: `v${i}.mp4`, time: T0 + (10 + i) * 60_000 })),
    ];
    // Party <-> Old Videos (names traded), then the former Party moved into Music as "Party 2"
    const disk = nodes.map((n) => (n.id === 'V' ? { ...n, name: 'Party' } : n.id === 'P' ? { ...n, parent: 'M', name: 'Party 2' } : n));
    const r = pairByPlace({ model: modelOf(nodes), scans: scansOf(disk), granularityMs: 2000, why: 'test' });
    expect(r.moves.map((m) => [m.id, m.toParent, m.toName]).sort()).toEqual([
      ['P', 'M', 'Party 2'],
      ['V', 'R', 'Party'],
    ]);
    expect(r.deletes).toEqual([]);
    expect(r.uncertain).toEqual([]);
  });

  it('a downloaded file (the size and NAS time the engine left) moved and renamed while stopped is a move, not a delete', () => {
    const nodes = base();
    const model = modelOf(nodes);
    const a = model.get('a')!;
    model.update('a', { content: { etag: a.etag, nasMtime: a.mtime, size: 5, mtimeMs: T0 + 60_000, ino: a.ino! } });
    const disk = nodes.map((n) => (n.id === 'a' ? { ...n, parent: 'p', name: 'renamed.txt' } : n));
    const scans = scansOf(disk).map((s) => ({ ...s, entries: s.entries.map((d) => (d.name === 'renamed.txt' ? { ...d, size: 5 } : d)) }));
    const r = pairByPlace({ model, scans, granularityMs: 2000, why: 'test' });
    expect(r.moves.map((m) => [m.id, m.toParent, m.toName])).toEqual([['a', 'p', 'renamed.txt']]);
    expect(r.deletes).toEqual([]);
  });

  it('a mass change pairs one to one without comparing everything with everything (20,000 renamed, 5,000 deleted, 5,000 new)', () => {
    const nodes: Node[] = [{ id: 'd', kind: 'dir', parent: 'R', name: 'Big', time: T0 }];
    for (let i = 0; i < 25_000; i++) nodes.push({ id: `f${i}`, kind: 'file', parent: 'd', name: `f${i}.jpg`, time: T0 + i * 60_000 });
    const disk = nodes
      .filter((n) => !(n.id.startsWith('f') && Number(n.id.slice(1)) >= 20_000))
      .map((n) => (n.id.startsWith('f') ? { ...n, name: `renamed ${n.name}` } : n));
    for (let i = 0; i < 5000; i++)
      disk.push({ id: `n${i}`, kind: 'file', parent: 'R', name: `new ${i}.txt`, time: T0 + 2_000_000_000 + i });
    const r = pairByPlace({ model: modelOf(nodes), scans: scansOf(disk), granularityMs: 2000, why: 'test' });
    expect(r.moves).toHaveLength(20_000);
    expect(r.moves.every((m) => m.toName === `renamed ${m.id}.jpg`)).toBe(true);
    // the new files are empty, so each could be one of the deleted placeholders: held, never deleted
    expect(r.deletes).toEqual([]);
    expect(r.uncertain).toHaveLength(5000);
  });
});
