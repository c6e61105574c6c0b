import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import { LocalModel } from './model.js';
import { planRemote } from './remote-plan.js';
import { writePlaceholders } from './placeholders.js';
import { POSIX_TRAITS } from './fs-traits.js';
import { FaultDisk } from './disk.js';

const base = mkdtempSync(join(tmpdir(), 'placeholders-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

const obj = (id: string, parentID: string, name: string, dir: boolean, v = 1): RemoteObject => ({
  id,
  parentID,
  name,
  eTag: `"v${v}"`,
  mimeType: dir ? FOLDER_MIME : 'text/plain',
  mTime: '2020-01-01T00:00:00Z',
  cTime: '2020-01-01T00:00:00Z',
  hidden: 'none',
});

/** A model holding only the root 'R', placed at `root`. */
function modelAt(root: string): LocalModel {
  const model = new LocalModel('R');
  model.put({
    id: 'R',
    kind: 'dir',
    lparent: '',
    lname: '',
    ino: lstatSync(root).ino.toString(),
    filled: false,
    rparent: '',
    rname: '',
    etag: '',
    mtime: '',
    setag: '',
    state: 'ok',
  });
  return model;
}

/** The remote plan of the NAS objects `objs` (only the ids `only`, when given) with `pending` unanswered. */
function planner(model: LocalModel, objs: Map<string, RemoteObject>) {
  return (pending: Set<string>, only?: Set<string>): ReturnType<typeof planRemote> =>
    planRemote({
      model,
      rootId: 'R',
      objects: only ? [...only].flatMap((id) => objs.get(id) ?? []) : objs.values(),
      pending,
      traits: POSIX_TRAITS,
      ...(only ? { only } : {}),
    });
}

function tree(root: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, prefix), { withFileTypes: true })) {
    if (prefix === '' && e.name === '.nas-mirror') continue;
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    out.push(e.isDirectory() ? `${rel}/` : rel);
    if (e.isDirectory()) out.push(...tree(root, rel));
  }
  return out.sort();
}

function expected(objs: Map<string, RemoteObject>): string[] {
  const path = (o: RemoteObject): string => (o.parentID === 'R' ? o.name : `${path(objs.get(o.parentID)!)}/${o.name}`);
  return [...objs.values()].map((o) => path(o) + (o.mimeType === FOLDER_MIME ? '/' : '')).sort();
}

const under = (objs: Map<string, RemoteObject>, id: string, anc: string): boolean => {
  for (let c: string | undefined = id; c && c !== 'R'; c = objs.get(c)?.parentID) if (c === anc) return true;
  return false;
};

describe('placeholders (real folder, property)', () => {
  it('after any NAS renames, moves, deletes and adds, the disk equals the NAS and survivors keep their inode', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ parent: fc.nat(), dir: fc.boolean() }), { minLength: 1, maxLength: 25 }),
        fc.array(
          fc.record({ op: fc.constantFrom('rename', 'move', 'delete', 'add', 'swap'), a: fc.nat(), b: fc.nat(), dir: fc.boolean() }),
          { maxLength: 12 },
        ),
        (spec, ops) => {
          const root = join(base, `m${n++}`);
          const objs = new Map<string, RemoteObject>();
          const dirs = ['R'];
          spec.forEach((s, i) => {
            const parent = dirs[s.parent % dirs.length]!;
            objs.set(`o${i}`, obj(`o${i}`, parent, `n${i}`, s.dir));
            if (s.dir) dirs.push(`o${i}`);
          });
          const model = new LocalModel('R');
          model.put({
            id: 'R',
            kind: 'dir',
            lparent: '',
            lname: '',
            ino: lstatSync(base).ino.toString(),
            filled: false,
            rparent: '',
            rname: '',
            etag: '',
            mtime: '',
            setag: '',
            state: 'ok',
          });
          const sync = (): void => {
            const plan = planRemote({ model, rootId: 'R', objects: objs.values(), pending: new Set(), traits: POSIX_TRAITS });
            const rep = writePlaceholders(root, model, plan);
            expect(rep.failed).toEqual([]);
          };
          mkdirSync(root);
          model.update('R', { ino: lstatSync(root).ino.toString() });
          sync();
          expect(tree(root)).toEqual(expected(objs));
          const inoBefore = new Map([...objs.keys()].map((id) => [id, lstatSync(join(root, ...model.segments(id)!)).ino]));
          let v = 2;
          let k = 0;
          for (const op of ops) {
            const ids = [...objs.keys()];
            if (ids.length === 0 && op.op !== 'add') continue;
            const a = ids[op.a % Math.max(1, ids.length)]!;
            const folders = ['R', ...ids.filter((i) => objs.get(i)!.mimeType === FOLDER_MIME)];
            const sibName = (parent: string, name: string, self?: string): boolean =>
              [...objs.values()].some((o) => o.parentID === parent && o.name === name && o.id !== self);
            if (op.op === 'rename') {
              const o = objs.get(a)!;
              const nm = `r${k++}`;
              objs.set(a, { ...o, name: nm, eTag: `"v${v++}"` });
            }
            if (op.op === 'move') {
              const to = folders.filter((f) => f === 'R' || !under(objs, f, a))[op.b % folders.length] ?? 'R';
              const o = objs.get(a)!;
              if (!sibName(to, o.name, a)) objs.set(a, { ...o, parentID: to, eTag: `"v${v++}"` });
            }
            if (op.op === 'swap') {
              const b = ids[op.b % ids.length]!;
              const oa = objs.get(a)!;
              const ob = objs.get(b)!;
              if (a !== b && oa.parentID === ob.parentID) {
                objs.set(a, { ...oa, name: ob.name, eTag: `"v${v++}"` });
                objs.set(b, { ...ob, name: oa.name, eTag: `"v${v++}"` });
              }
            }
            if (op.op === 'delete') for (const id of ids.filter((i) => under(objs, i, a))) objs.delete(id);
            if (op.op === 'add') {
              const to = folders[op.b % folders.length]!;
              const id = `x${k++}`;
              objs.set(id, obj(id, to, id, op.dir));
            }
          }
          sync();
          expect(tree(root)).toEqual(expected(objs));
          for (const [id, ino] of inoBefore) if (objs.has(id)) expect(lstatSync(join(root, ...model.segments(id)!)).ino).toBe(ino);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('writePlaceholders on a failing disk (FaultDisk)', () => {
  const setup = (): {
    root: string;
    model: LocalModel;
    objs: Map<string, RemoteObject>;
    sync: (disk?: FaultDisk) => ReturnType<typeof writePlaceholders>;
  } => {
    const root = join(base, `f${n++}`);
    mkdirSync(root);
    const objs = new Map<string, RemoteObject>([
      ['d', obj('d', 'R', 'D', true)],
      ['a', obj('a', 'd', 'a.txt', false)],
    ]);
    const model = modelAt(root);
    const sync = (disk?: FaultDisk): ReturnType<typeof writePlaceholders> =>
      writePlaceholders(
        root,
        model,
        planRemote({ model, rootId: 'R', objects: objs.values(), pending: new Set(), traits: POSIX_TRAITS }),
        disk,
      );
    expect(sync().failed).toEqual([]);
    return { root, model, objs, sync };
  };

  for (const at of ['stage', 'land'] as const) {
    for (const errno of ['EIO', 'EXDEV', 'ENOSPC', 'EACCES']) {
      it(`${errno} on the rename that ${at === 'stage' ? 'stages' : 'lands'} a NAS rename: the entry stays where it was, said, and lands once the disk heals`, () => {
        const { root, model, objs, sync } = setup();
        const ino = lstatSync(join(root, 'D', 'a.txt')).ino.toString();
        objs.set('a', obj('a', 'd', 'b.txt', false, 2));
        const disk = new FaultDisk().add({ op: 'rename', path: at === 'stage' ? '/D/a.txt' : /staging\//, errno, times: 1 });
        const rep = sync(disk);
        expect(disk.failed).toHaveLength(1);
        expect(rep.failed.map((f) => f.id)).toEqual(['a']);
        expect(rep.failed[0]!.reason).toContain(errno);
        // still where the model says it is, same inode: a later scan sees nothing gone
        expect(readdirSync(join(root, 'D'))).toEqual(['a.txt']);
        expect(model.pathOf('a')).toBe('D/a.txt');
        expect(model.get('a')!.ino).toBe(ino);
        expect(readdirSync(join(root, '.nas-mirror', 'staging'))).toEqual([]);
        // the NAS change is planned again (the remote base did not move) and lands
        expect(sync().failed).toEqual([]);
        expect(readdirSync(join(root, 'D'))).toEqual(['b.txt']);
        expect(lstatSync(join(root, 'D', 'b.txt')).ino.toString()).toBe(ino);
      });
    }
  }
});

describe('a folder the NAS deletes while the user moved something into it (defect E)', () => {
  it('waits while the move is unanswered, then puts what the NAS still has back where the NAS has it and removes the folder', () => {
    const root = join(base, `e${n++}`);
    mkdirSync(root);
    const objs = new Map<string, RemoteObject>([
      ['p', obj('p', 'R', 'P', true)],
      ['a', obj('a', 'R', 'A', true)],
      ['x', obj('x', 'a', 'X', true)],
      ['x1', obj('x1', 'x', 'x1.txt', false)],
      ['p1', obj('p1', 'p', 'p1.txt', false)],
    ]);
    const model = modelAt(root);
    const plan = planner(model, objs);
    expect(writePlaceholders(root, model, plan(new Set())).failed).toEqual([]);
    const ino = lstatSync(join(root, 'A', 'X')).ino.toString();
    // the user moves X into P (the local batch records it; its PATCH is in the outbox)
    renameSync(join(root, 'A', 'X'), join(root, 'P', 'X'));
    model.update('x', { lparent: 'p' });
    // someone deletes P on the NAS (with p1); X is still in A there
    objs.delete('p');
    objs.delete('p1');
    const first = plan(new Set(['x']), new Set(['p', 'p1']));
    expect(first.removals).toEqual([]);
    expect(first.deferred).toEqual(['p']);
    writePlaceholders(root, model, first);
    expect(tree(root)).toContain('P/X/x1.txt');
    // the move met 404 (a conflict: the NAS version wins); P is planned again, alone
    const again = plan(new Set(), new Set(first.deferred));
    expect(again.removals).toEqual(['p']);
    expect(writePlaceholders(root, model, again).failed).toEqual([]);
    expect(tree(root)).toEqual(['A/', 'A/X/', 'A/X/x1.txt']);
    expect(lstatSync(join(root, 'A', 'X')).ino.toString()).toBe(ino);
    expect(model.pathOf('x1')).toBe('A/X/x1.txt');
    expect(model.get('p')).toBeUndefined();
  });
});

describe('a folder the NAS deletes holding a placeholder the user just moved in (not yet read)', () => {
  it('is not removed while it holds it: the entry is never put aside as local-only content (its disappearance would be sent as a delete)', () => {
    const root = join(base, `m${n++}`);
    mkdirSync(root);
    const objs = new Map<string, RemoteObject>([
      ['p', obj('p', 'R', 'P', true)],
      ['a', obj('a', 'R', 'A', true)],
      ['x', obj('x', 'a', 'X', true)],
      ['x1', obj('x1', 'x', 'x1.txt', false)],
    ]);
    const model = modelAt(root);
    const planned = planner(model, objs);
    const plan = (only?: Set<string>): ReturnType<typeof planRemote> => planned(new Set(), only);
    expect(writePlaceholders(root, model, plan()).failed).toEqual([]);
    // the user moves X into P; the NAS deletes P before the engine read that move
    renameSync(join(root, 'A', 'X'), join(root, 'P', 'X'));
    objs.delete('p');
    const rep = writePlaceholders(root, model, plan(new Set(['p'])));
    expect(rep.failed.map((f) => f.reason)).toEqual([expect.stringMatching(/holds A\/X, moved in here and not sent yet/)]);
    expect(rep.keptLocal).toEqual([]);
    expect(tree(root)).toEqual(['A/', 'P/', 'P/X/', 'P/X/x1.txt']);
    // once the move is read and answered (the NAS still has X in A: it goes back there), P goes
    model.update('x', { lparent: 'p' });
    expect(writePlaceholders(root, model, plan(new Set(['p']))).failed).toEqual([]);
    expect(tree(root)).toEqual(['A/', 'A/X/', 'A/X/x1.txt']);
  });
});

describe('a cycle: the user moved A into B while the NAS moved B into A (seed 7006)', () => {
  it('B waits while the move of A is unanswered (it cannot go into its own child), then lands once the NAS put A back', () => {
    const root = join(base, `c${n++}`);
    mkdirSync(root);
    const objs = new Map<string, RemoteObject>([
      ['a', obj('a', 'R', 'A', true)],
      ['b', obj('b', 'R', 'B', true)],
      ['b1', obj('b1', 'b', 'b1.txt', false)],
    ]);
    const model = modelAt(root);
    const plan = planner(model, objs);
    expect(writePlaceholders(root, model, plan(new Set())).failed).toEqual([]);
    // the user moves A into B (its PATCH waits in the outbox)
    renameSync(join(root, 'A'), join(root, 'B', 'A'));
    model.update('a', { lparent: 'b' });
    // someone moves B into A on the NAS
    objs.set('b', obj('b', 'a', 'B', true, 2));
    const first = plan(new Set(['a']), new Set(['b']));
    expect(first.placements).toEqual([]);
    expect(first.waiting).toEqual(['b']);
    expect(writePlaceholders(root, model, first).failed).toEqual([]);
    // the NAS refuses the user's move (400): A's conflict puts it back where the NAS has it;
    // the reconcile that follows plans A and the waiting B together
    const again = plan(new Set(), new Set(['a', ...first.waiting]));
    expect(again.waiting).toEqual([]);
    expect(writePlaceholders(root, model, again).failed).toEqual([]);
    expect(tree(root)).toEqual(['A/', 'A/B/', 'A/B/b1.txt']);
  });
});

describe('a NAS rename onto a name the user gave another placeholder, not read yet (seed 8003)', () => {
  it("fails without touching either, and says which folders to read (the user's rename is taken in from there)", () => {
    const root = join(base, `r${n++}`);
    mkdirSync(root);
    const objs = new Map<string, RemoteObject>([
      ['d', obj('d', 'R', 'D', true)],
      ['e', obj('e', 'R', 'E', true)],
      ['x', obj('x', 'd', 'x.txt', false)],
      ['y', obj('y', 'e', 'y.txt', false)],
    ]);
    const model = modelAt(root);
    const planned = planner(model, objs);
    const plan = (only?: Set<string>): ReturnType<typeof planRemote> => planned(new Set(), only);
    expect(writePlaceholders(root, model, plan()).failed).toEqual([]);
    // the user moves x.txt into E as z.txt (no news of it yet); someone renames y.txt to z.txt on the NAS
    renameSync(join(root, 'D', 'x.txt'), join(root, 'E', 'z.txt'));
    objs.set('y', obj('y', 'e', 'z.txt', false, 2));
    const rep = writePlaceholders(root, model, plan(new Set(['y'])));
    expect(rep.failed.map((f) => f.id)).toEqual(['y']);
    expect([...rep.reread].sort()).toEqual(['d', 'e']);
    expect(tree(root)).toEqual(['D/', 'E/', 'E/y.txt', 'E/z.txt']);
    // a placeholder at the place the model has it (an ordinary name clash) asks for no read
    const again = writePlaceholders(root, model, plan(new Set(['y'])));
    expect(again.reread.size).toBe(2);
    model.update('x', { lparent: 'e', lname: 'z.txt' });
    expect(writePlaceholders(root, model, plan(new Set(['y']))).reread.size).toBe(0);
  });
});

describe('a placeholder given another local name while the user held its name, then freed (soak seed 10012 r14)', () => {
  it('gets its own name back once the user’s entry leaves that folder on the NAS’s word', () => {
    const root = join(base, `f${n++}`);
    mkdirSync(root);
    const objs = new Map<string, RemoteObject>([
      ['v', obj('v', 'R', 'Videos', true)],
      ['m', obj('m', 'R', 'Moon', true)],
      ['sw', obj('sw', 'v', 'A.mov', false)],
      ['e', obj('e', 'v', 'B.mp4', false)],
    ]);
    const model = modelAt(root);
    const plan = planner(model, objs);
    expect(writePlaceholders(root, model, plan(new Set())).failed).toEqual([]);
    // the user renames A.mov to X.mov (its PATCH waits); on the NAS, B.mp4 is renamed X.mov and A.mov moved into Moon
    renameSync(join(root, 'Videos', 'A.mov'), join(root, 'Videos', 'X.mov'));
    model.update('sw', { lname: 'X.mov' });
    objs.set('e', obj('e', 'v', 'X.mov', false, 2));
    objs.set('sw', obj('sw', 'm', 'A.mov', false, 2));
    expect(writePlaceholders(root, model, plan(new Set(['sw']), new Set(['e', 'sw']))).failed).toEqual([]);
    const alias = readdirSync(join(root, 'Videos')).find((f) => f !== 'X.mov')!;
    expect(alias).toMatch(/^X~.+\.mov$/);
    // the PATCH is re-based over the NAS's move and applied: settle takes the NAS's object as the base
    objs.set('sw', obj('sw', 'm', 'X.mov', false, 3));
    model.update('sw', { rname: 'X.mov', rparent: 'm', etag: '"v3"', setag: '"v3"' });
    expect(writePlaceholders(root, model, plan(new Set(), new Set(['sw']))).failed).toEqual([]);
    expect(tree(root)).toEqual(['Moon/', 'Moon/X.mov', 'Videos/', 'Videos/X.mov']);
  });
});
