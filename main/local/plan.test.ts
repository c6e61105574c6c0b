import { describe, expect, it } from 'vitest';
import { LocalModel, type Kind, type LocalEntry } from './model.js';
import type { Move } from './pair-moves.js';
import { planBatch } from './plan.js';

/** Entries as [id, kind, parent, name] below the root R. */
type Spec = [string, Kind, string, string][];

function modelOf(spec: Spec): LocalModel {
  const m = new LocalModel('R');
  const e = (id: string, kind: Kind, parent: string, name: string): LocalEntry => ({
    id,
    kind,
    lparent: parent,
    lname: name,
    ino: id,
    filled: false,
    rparent: parent,
    rname: name,
    etag: '"Ag"',
    mtime: '',
    setag: '',
    state: 'ok',
  });
  m.put(e('R', 'dir', '', ''));
  for (const [id, kind, parent, name] of spec) m.put(e(id, kind, parent, name));
  return m;
}

/**
 * Plans the batch and replays it as the NAS would (404 on a patch of a deleted object, 400 on
 * a folder moved below itself, 409 on a sibling clash); returns where each object ends.
 */
function planAndReplay(spec: Spec, moves: Move[], deletes: string[]): Map<string, string> {
  const model = modelOf(spec);
  const nas = new Map(spec.map(([id, , parent, name]) => [id, { parent, name }]));
  const under = (id: string, anc: string): boolean => {
    for (let c: string | undefined = id; c && c !== 'R'; c = nas.get(c)?.parent) if (c === anc) return true;
    return false;
  };
  for (const op of planBatch(model, moves, deletes, { count: 1000, percent: 100 }).ops) {
    if (op.op === 'delete') {
      for (const id of [...nas.keys()].filter((x) => under(x, op.id))) nas.delete(id);
      continue;
    }
    const cur = nas.get(op.id);
    if (!cur) throw new Error(`404 ${op.id}`);
    const next = { parent: op.parentID ?? cur.parent, name: op.name ?? cur.name };
    if (under(next.parent, op.id)) throw new Error(`400 ${op.id}`);
    for (const [id, v] of nas)
      if (id !== op.id && v.parent === next.parent && v.name === next.name) throw new Error(`409 ${op.id} (${id})`);
    nas.set(op.id, next);
  }
  return new Map([...nas].map(([id, v]) => [id, `${v.parent}/${v.name}`]));
}

const mv = (id: string, toParent: string, toName: string): Move => ({ id, toParent, toName, reason: 't' });

/** Every order the moves may come in from pairing must plan right. */
function expectEveryOrder(spec: Spec, moves: Move[], deletes: string[], expected: Record<string, string>): void {
  const orders = moves.length === 2 ? [moves, [moves[1]!, moves[0]!]] : [moves];
  for (const order of orders) expect(Object.fromEntries(planAndReplay(spec, order, deletes))).toEqual(expected);
}

describe('planBatch: cycles through a delete (the planner gap the pipeline property found)', () => {
  for (const kind of ['file', 'dir'] as const) {
    it(`a file takes a deleted folder's name while a ${kind === 'dir' ? 'folder' : 'file'} from inside it takes the file's name: it leaves the folder before the delete`, () => {
      // d/ holds p; x is a file. On disk: p is now x, x is now d (a file where the folder was).
      // The delete of d waits for p to leave, p waits for x's name, x waits for d's: p leaves
      // under a temporary name first (the plan used to delete d with p still in it).
      expectEveryOrder(
        [
          ['D', 'dir', 'R', 'd'],
          ['P', kind, 'D', 'p'],
          ['Q', 'file', 'R', 'x'],
        ],
        [mv('P', 'R', 'x'), mv('Q', 'R', 'd')],
        ['D'],
        { P: 'R/x', Q: 'R/d' },
      );
    });
  }

  it('a rename of a folder the NAS moved elsewhere, whose placeholder has not followed yet, is a rename, not a move back (soak seed 4041)', () => {
    const model = modelOf([
      ['A', 'dir', 'R', 'A'],
      ['P', 'dir', 'R', 'P'],
      ['F', 'dir', 'A', 'F'],
    ]);
    // the NAS moved F into P; the disk still has it in A (its placeholder's move failed: renamed meanwhile)
    model.update('F', { rparent: 'P' });
    const ops = planBatch(model, [mv('F', 'A', 'F renamed')], [], { count: 1000, percent: 100 }).ops;
    expect(ops).toEqual([expect.objectContaining({ op: 'patch', id: 'F', name: 'F renamed' })]);
    expect(ops[0]).not.toHaveProperty('parentID');
    // moved here by the user: a move (to another folder than the one it was in)
    const moved = planBatch(model, [mv('F', 'R', 'F')], [], { count: 1000, percent: 100 }).ops;
    expect(moved).toEqual([expect.objectContaining({ op: 'patch', id: 'F', parentID: 'R' })]);
  });

  it("the same, one level down (the soak's first counterexample)", () => {
    // n1/n3/n5 -> n2, the file n2 -> n1/n3, n1/n3 deleted
    expectEveryOrder(
      [
        ['o1', 'dir', 'R', 'n1'],
        ['o2', 'file', 'R', 'n2'],
        ['o3', 'dir', 'o1', 'n3'],
        ['o5', 'dir', 'o3', 'n5'],
      ],
      [mv('o5', 'R', 'n2'), mv('o2', 'o1', 'n3')],
      ['o3'],
      { o1: 'R/n1', o2: 'o1/n3', o5: 'R/n2' },
    );
  });

  it("a folder moved into its own subfolder, which takes the deleted folder's name", () => {
    // d/p/t: t goes to the root as d, p goes into t, d is deleted
    expectEveryOrder(
      [
        ['D', 'dir', 'R', 'd'],
        ['P', 'dir', 'D', 'p'],
        ['T', 'dir', 'P', 't'],
      ],
      [mv('P', 'T', 'p'), mv('T', 'R', 'd')],
      ['D'],
      { P: 'T/p', T: 'R/d' },
    );
  });
});

describe('planBatch: temporary names', () => {
  it('two entries of the same name swapped between folders end with that name, not the temporary one', () => {
    expectEveryOrder(
      [
        ['X', 'dir', 'R', 'x'],
        ['Y', 'dir', 'R', 'y'],
        ['A', 'file', 'X', 'a'],
        ['B', 'file', 'Y', 'a'],
      ],
      [mv('A', 'Y', 'a'), mv('B', 'X', 'a')],
      [],
      { X: 'R/x', Y: 'R/y', A: 'Y/a', B: 'X/a' },
    );
  });

  it("an entry moved out of a deleted folder, keeping its name, into the folder's name slot", () => {
    // d/d (same name as its folder) goes up to the root as d; the folder is deleted
    expectEveryOrder(
      [
        ['D', 'dir', 'R', 'd'],
        ['P', 'file', 'D', 'd'],
      ],
      [mv('P', 'R', 'd')],
      ['D'],
      { P: 'R/d' },
    );
  });
});
