import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LocalModel, type LocalEntry, type Kind } from './model.js';
import { pairMoves } from './pair-moves.js';
import { planBatch, type PatchOp } from './plan.js';
import type { DirScan } from './analyse.js';

/** A random tree: node i's parent is a folder among 0..i-1 (0 is the root). */
const treeArb = fc.array(fc.record({ parent: fc.nat(), dir: fc.boolean() }), { minLength: 1, maxLength: 30 });

function buildModel(spec: { parent: number; dir: boolean }[]): LocalModel {
  const m = new LocalModel('R');
  m.put(entry('R', 'dir', '', 'root', '1'));
  const dirs = ['R'];
  spec.forEach((s, i) => {
    const id = `o${i}`;
    const parent = dirs[s.parent % dirs.length]!;
    m.put(entry(id, s.dir ? 'dir' : 'file', parent, `n${i}`, String(100 + i)));
    if (s.dir) dirs.push(id);
  });
  return m;
}

function entry(id: string, kind: Kind, parent: string, name: string, ino: string): LocalEntry {
  return {
    id,
    kind,
    lparent: parent,
    lname: name,
    ino,
    filled: false,
    rparent: parent,
    rname: name,
    etag: '"Ag"',
    mtime: '',
    setag: '"Ag"',
    state: 'ok',
  };
}

/** The disk as parent/name per id, and scans of every folder on it. */
type Disk = Map<string, { parent: string; name: string; kind: Kind; ino: string }>;
function diskOf(m: LocalModel): Disk {
  const d: Disk = new Map();
  for (const e of m.entries()) if (e.id !== 'R') d.set(e.id, { parent: e.lparent, name: e.lname, kind: e.kind, ino: e.ino! });
  return d;
}
function scansOf(d: Disk): DirScan[] {
  const pathOf = (id: string): string => {
    const segs: string[] = [];
    for (let c = id; c !== 'R'; c = d.get(c)!.parent) segs.unshift(d.get(c)!.name);
    return segs.join('/');
  };
  const dirs = ['R', ...[...d].filter(([, v]) => v.kind === 'dir').map(([k]) => k)];
  return dirs.map((dir) => ({
    path: dir === 'R' ? '' : pathOf(dir),
    ino: dir === 'R' ? '1' : d.get(dir)!.ino,
    entries: [...d].filter(([, v]) => v.parent === dir).map(([, v]) => ({ name: v.name, ino: v.ino, kind: v.kind, size: 0, mtimeMs: 0 })),
  }));
}
const under = (d: Disk, id: string, anc: string): boolean => {
  for (let c: string | undefined = id; c !== undefined && c !== 'R'; c = d.get(c)?.parent) if (c === anc) return true;
  return anc === 'R';
};

describe('pairMoves (property)', () => {
  it('random renames and moves are all paired: no delete, one move per moved entry, model equals disk', () => {
    fc.assert(
      fc.property(treeArb, fc.array(fc.record({ who: fc.nat(), to: fc.nat(), rename: fc.boolean() }), { maxLength: 15 }), (spec, ops) => {
        const m = buildModel(spec);
        const disk = diskOf(m);
        const ids = [...disk.keys()];
        const touched = new Set<string>();
        let k = 0;
        for (const op of ops) {
          const id = ids[op.who % ids.length]!;
          const dirs = ['R', ...ids.filter((i) => disk.get(i)!.kind === 'dir' && !under(disk, i, id))];
          const to = dirs[op.to % dirs.length]!;
          const cur = disk.get(id)!;
          const name = op.rename ? `r${k++}` : cur.name;
          if ([...disk.values()].some((v) => v.parent === to && v.name === name && v !== cur)) continue;
          disk.set(id, { ...cur, parent: to, name });
          touched.add(id);
        }
        const res = pairMoves({ model: m, scans: scansOf(disk), carried: [], now: 0, holdMs: 1000 });
        expect(res.deletes).toEqual([]);
        expect(res.carry).toEqual([]);
        expect(res.localOnly).toEqual([]);
        for (const mv of res.moves) {
          expect(touched.has(mv.id)).toBe(true);
          m.update(mv.id, { lparent: mv.toParent, lname: mv.toName });
        }
        for (const [id, v] of disk) {
          expect(m.get(id)!.lparent).toBe(v.parent);
          expect(m.get(id)!.lname).toBe(v.name);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a folder rename is ONE move whatever it holds', () => {
    const m = new LocalModel('R');
    m.put(entry('R', 'dir', '', '', '1'));
    m.put(entry('F', 'dir', 'R', 'folder', '2'));
    for (let i = 0; i < 500; i++) m.put(entry(`c${i}`, 'file', 'F', `c${i}`, String(10 + i)));
    const disk = diskOf(m);
    disk.set('F', { ...disk.get('F')!, name: 'renamed' });
    const res = pairMoves({ model: m, scans: scansOf(disk), carried: [], now: 0, holdMs: 0 });
    expect(res.moves).toEqual([{ id: 'F', toParent: 'R', toName: 'renamed', reason: expect.any(String) }]);
  });

  it('deletes are held, carried, then become top-most deletes', () => {
    fc.assert(
      fc.property(treeArb, fc.array(fc.nat(), { maxLength: 5 }), (spec, picks) => {
        const m = buildModel(spec);
        const disk = diskOf(m);
        const ids = [...disk.keys()];
        const removed = new Set<string>();
        for (const p of picks) {
          const id = ids[p % ids.length]!;
          if (!disk.has(id)) continue;
          const sub = [...disk.keys()].filter((x) => under(disk, x, id));
          for (const x of sub) {
            disk.delete(x);
            removed.add(x);
          }
        }
        const first = pairMoves({ model: m, scans: scansOf(disk), carried: [], now: 0, holdMs: 1000 });
        expect(first.deletes).toEqual([]);
        const second = pairMoves({ model: m, scans: scansOf(disk), carried: first.carry, now: 5000, holdMs: 1000 });
        const tops = [...removed].filter((r) => !removed.has(m.get(r)!.lparent));
        expect(new Set(second.deletes)).toEqual(new Set(tops));
      }),
      { numRuns: 200 },
    );
  });

  it('an atomic save onto a placeholder is a replacement, not a delete', () => {
    const m = new LocalModel('R');
    m.put(entry('R', 'dir', '', '', '1'));
    m.put(entry('A', 'file', 'R', 'doc.txt', '2'));
    const scans: DirScan[] = [{ path: '', ino: '1', entries: [{ name: 'doc.txt', ino: '99', kind: 'file', size: 12, mtimeMs: 0 }] }];
    const r = pairMoves({ model: m, scans, carried: [], now: 0, holdMs: 0 });
    expect(r.replaced).toEqual([{ id: 'A', ino: '99', filled: true }]);
    expect(r.deletes).toEqual([]);
    expect(r.localOnly).toEqual([]);
  });

  it('a rename onto the name of an entry whose delete is still within its hold waits for it, then both go in one batch', () => {
    const m = new LocalModel('R');
    m.put(entry('R', 'dir', '', '', '1'));
    m.put(entry('A', 'file', 'R', 'a.txt', '2'));
    m.put(entry('B', 'file', 'R', 'b.txt', '3'));
    m.put(entry('C', 'file', 'R', 'c.txt', '4'));
    // b.txt deleted, a.txt renamed to b.txt, c.txt renamed to a.txt (a chain onto a held name)
    const scans: DirScan[] = [
      {
        path: '',
        ino: '1',
        entries: [
          { name: 'b.txt', ino: '2', kind: 'file', size: 0, mtimeMs: 0 },
          { name: 'a.txt', ino: '4', kind: 'file', size: 0, mtimeMs: 0 },
        ],
      },
    ];
    const first = pairMoves({ model: m, scans, carried: [], now: 0, holdMs: 1000 });
    expect(first.moves).toEqual([]);
    expect(first.carry.map((c) => c.id)).toEqual(['B']);
    const later = pairMoves({ model: m, scans, carried: first.carry, now: 2000, holdMs: 1000 });
    expect(later.deletes).toEqual(['B']);
    expect(later.moves.map((x) => [x.id, x.toName]).sort()).toEqual([
      ['A', 'b.txt'],
      ['C', 'a.txt'],
    ]);
  });

  it('a freed inode reused by a new file elsewhere is never sent as a move: held ("renamed or deleted?"), the new file local only', () => {
    const m = new LocalModel('R');
    m.put(entry('R', 'dir', '', '', '1'));
    m.put(entry('D', 'dir', 'R', 'Docs', '2'));
    m.put({ ...entry('A', 'file', 'R', 'photo.jpg', '3'), mtime: '2019-05-05T10:00:00.000Z' });
    // photo.jpg deleted, then "my note.txt" written in Docs got its inode number (ext4 reuses them at once)
    const scans: DirScan[] = [
      { path: '', ino: '1', entries: [{ name: 'Docs', ino: '2', kind: 'dir', size: 0, mtimeMs: 0 }] },
      {
        path: 'Docs',
        ino: '2',
        entries: [{ name: 'my note.txt', ino: '3', kind: 'file', size: 120, mtimeMs: Date.parse('2026-11-26T20:00:00Z') }],
      },
    ];
    const r = pairMoves({ model: m, scans, carried: [], now: 0, holdMs: 0 });
    expect(r.moves).toEqual([]);
    expect(r.uncertain).toEqual([{ id: 'A', candidates: ['Docs/my note.txt'] }]);
    expect(r.localOnly.map((l) => l.path)).toEqual(['Docs/my note.txt']);
    expect(r.deletes).toEqual([]);
    // the same inode with the placeholder's own time and no content is a plain move
    const moved: DirScan[] = [
      scans[0]!,
      { ...scans[1]!, entries: [{ name: 'photo.jpg', ino: '3', kind: 'file', size: 0, mtimeMs: Date.parse('2019-05-05T10:00:00Z') }] },
    ];
    expect(pairMoves({ model: m, scans: moved, carried: [], now: 0, holdMs: 0 }).moves.map((x) => [x.id, x.toParent])).toEqual([
      ['A', 'D'],
    ]);
  });
});

describe('unicode normalisation', () => {
  it('a name read back decomposed (NFD) is the same entry, not a rename', () => {
    const m = new LocalModel('R');
    m.put(entry('R', 'dir', '', '', '1'));
    m.put(entry('A', 'file', 'R', 'caf\u00e9.txt', '2'));
    const r = pairMoves({
      model: m,
      scans: [{ path: '', ino: '1', entries: [{ name: 'cafe\u0301.txt', ino: '2', kind: 'file', size: 0, mtimeMs: 0 }] }],
      carried: [],
      now: 0,
      holdMs: 0,
    });
    expect(r.moves).toEqual([]);
    expect(r.deletes).toEqual([]);
  });
});

describe('editor backups', () => {
  it('vim-style save (rename to a~, write a new a) is a save, not a rename', () => {
    const m = new LocalModel('R');
    m.put(entry('R', 'dir', '', '', '1'));
    m.put(entry('A', 'file', 'R', 'notes.txt', '2'));
    const scans: DirScan[] = [
      {
        path: '',
        ino: '1',
        entries: [
          { name: 'notes.txt~', ino: '2', kind: 'file', size: 0, mtimeMs: 0 },
          { name: 'notes.txt', ino: '77', kind: 'file', size: 5, mtimeMs: 0 },
        ],
      },
    ];
    const r = pairMoves({ model: m, scans, carried: [], now: 0, holdMs: 0 });
    expect(r.moves).toEqual([]);
    expect(r.replaced).toEqual([{ id: 'A', ino: '77', filled: true }]);
    expect(r.localOnly).toEqual([{ path: 'notes.txt~', kind: 'file', parent: 'R', name: 'notes.txt~' }]);
    expect(r.deletes).toEqual([]);
  });
  it('a plain rename to a backup-looking name with nothing new in its place stays a rename', () => {
    const m = new LocalModel('R');
    m.put(entry('R', 'dir', '', '', '1'));
    m.put(entry('A', 'file', 'R', 'notes.txt', '2'));
    const r = pairMoves({
      model: m,
      scans: [{ path: '', ino: '1', entries: [{ name: 'notes.txt.bak', ino: '2', kind: 'file', size: 0, mtimeMs: 0 }] }],
      carried: [],
      now: 0,
      holdMs: 0,
    });
    expect(r.moves.map((x) => x.toName)).toEqual(['notes.txt.bak']);
  });
});

describe('planBatch', () => {
  /** Applies ops to a remote name table, failing on any sibling clash (the NAS's 409). */
  function replay(m: LocalModel, ops: PatchOp[]): Map<string, { parent: string; name: string }> {
    const r = new Map([...m.entries()].filter((e) => e.id !== 'R').map((e) => [e.id, { parent: e.rparent, name: e.rname }]));
    for (const op of ops) {
      const cur = r.get(op.id)!;
      const next = { parent: op.parentID ?? cur.parent, name: op.name ?? cur.name };
      for (const [id, v] of r) if (id !== op.id && v.parent === next.parent && v.name === next.name) throw new Error(`409 ${op.id}`);
      r.set(op.id, next);
    }
    return r;
  }

  it('property: any permutation of sibling names replays without a clash', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 8 })
          .chain((n) => fc.tuple(fc.constant(n), fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }))),
        ([n, perm]) => {
          const m = new LocalModel('R');
          m.put(entry('R', 'dir', '', '', '1'));
          for (let i = 0; i < n; i++) m.put(entry(`e${i}`, 'file', 'R', `name${i}`, String(10 + i)));
          const moves = perm
            .map((p, i) => ({ id: `e${i}`, toParent: 'R', toName: `name${p}`, reason: 't' }))
            .filter((mv, i) => mv.toName !== `name${i}`);
          const plan = planBatch(m, moves, [], { count: 50, percent: 10 });
          const final = replay(m, plan.ops as PatchOp[]);
          perm.forEach((p, i) => expect(final.get(`e${i}`)!.name).toBe(`name${p}`));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('holds deletes past the threshold, counted in objects', () => {
    const m = new LocalModel('R');
    m.put(entry('R', 'dir', '', '', '1'));
    m.put(entry('F', 'dir', 'R', 'f', '2'));
    for (let i = 0; i < 100; i++) m.put(entry(`c${i}`, 'file', 'F', `c${i}`, String(10 + i)));
    for (let i = 0; i < 900; i++) m.put(entry(`x${i}`, 'file', 'R', `x${i}`, String(1000 + i)));
    expect(planBatch(m, [], ['F'], { count: 50, percent: 10 }).held).toHaveLength(1);
    expect(planBatch(m, [], ['c1', 'c2'], { count: 50, percent: 10 }).held).toHaveLength(0);
    // a child moved out of the deleted folder does not count
    const p = planBatch(m, [{ id: 'c0', toParent: 'R', toName: 'c0', reason: 't' }], ['F'], { count: 100, percent: 50 });
    expect(p.deleteObjects).toBe(100);
    expect(p.ops.map((o) => o.op)).toEqual(['patch', 'delete']);
  });
});
