/**
 * The local pipeline's property, shared by its test (a few hundred batches, fixed seed) and
 * its soak (100,000 random batches): analyse -> pair moves -> plan on a REAL folder after
 * random renames, moves, swaps and deletes; the plan replayed on a NAS model (409 on a
 * sibling clash, 400 on a folder moved below itself) must end equal to the disk.
 * Not a test file, so the two runners share one definition; nothing in the app imports it.
 */
import fc from 'fast-check';
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalModel, type Kind, type LocalEntry } from './model.js';
import { allDirs, scanDirs } from './analyse.js';
import { pairMoves } from './pair-moves.js';
import { planBatch, type PlannedOp } from './plan.js';

/** Node i of the starting tree: a folder or a file in folder `parent % folders so far`. */
export interface NodeSpec {
  parent: number;
  dir: boolean;
}
/** What the user does; `a` and `b` pick paths (modulo what exists at that moment). */
export interface UserOp {
  op: 'rename' | 'move' | 'delete' | 'swap';
  a: number;
  b: number;
}

export const treeArb: fc.Arbitrary<NodeSpec[]> = fc.array(fc.record({ parent: fc.nat(), dir: fc.boolean() }), {
  minLength: 1,
  maxLength: 20,
});
export const userOpsArb: fc.Arbitrary<UserOp[]> = fc.array(
  fc.record({ op: fc.constantFrom<UserOp['op']>('rename', 'move', 'delete', 'swap'), a: fc.nat(), b: fc.nat() }),
  { maxLength: 10 },
);

/** Every path below `root` (folders end in `/`), sorted. */
export function diskTree(root: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    out.push(e.isDirectory() ? `${rel}/` : rel);
    if (e.isDirectory()) out.push(...diskTree(root, rel));
  }
  return out.sort();
}

const entry = (id: string, kind: Kind, parent: string, name: string, ino: string): LocalEntry => ({
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
  setag: '',
  state: 'ok',
});

/** Builds the tree in `root` (which must not exist) and the model that mirrors it. */
function buildTree(root: string, spec: readonly NodeSpec[]): LocalModel {
  mkdirSync(root);
  const model = new LocalModel('R');
  model.put(entry('R', 'dir', '', '', lstatSync(root, { bigint: true }).ino.toString()));
  const dirs = ['R'];
  spec.forEach((s, i) => {
    const parent = dirs[s.parent % dirs.length]!;
    const abs = join(root, ...model.segments(parent)!, `n${i}`);
    if (s.dir) mkdirSync(abs);
    else writeFileSync(abs, '');
    model.put(entry(`o${i}`, s.dir ? 'dir' : 'file', parent, `n${i}`, lstatSync(abs, { bigint: true }).ino.toString()));
    if (s.dir) dirs.push(`o${i}`);
  });
  return model;
}

/** Does what the user does, on disk. A move onto a taken name or a swap of nested entries is skipped. */
function applyUserOps(root: string, ops: readonly UserOp[]): void {
  let k = 0;
  for (const op of ops) {
    const paths = diskTree(root);
    if (paths.length === 0) break;
    const a = paths[op.a % paths.length]!.replace(/\/$/, '');
    const folders = ['', ...paths.filter((p) => p.endsWith('/')).map((p) => p.slice(0, -1))].filter(
      (f) => f !== a && !f.startsWith(`${a}/`),
    );
    const name = a.split('/').pop()!;
    if (op.op === 'rename') renameSync(join(root, a), join(root, a.slice(0, a.length - name.length) + `r${k++}`));
    if (op.op === 'move') {
      const to = folders[op.b % folders.length]!;
      const dest = to ? `${to}/${name}` : name;
      if (!paths.includes(dest) && !paths.includes(`${dest}/`)) renameSync(join(root, a), join(root, dest));
    }
    if (op.op === 'delete') rmSync(join(root, a), { recursive: true });
    if (op.op === 'swap') {
      const b = paths[op.b % paths.length]!.replace(/\/$/, '');
      if (b !== a && !b.startsWith(`${a}/`) && !a.startsWith(`${b}/`)) {
        renameSync(join(root, a), join(root, 'swap-tmp'));
        renameSync(join(root, b), join(root, a));
        renameSync(join(root, 'swap-tmp'), join(root, b));
      }
    }
  }
}

type NasTable = Map<string, { parent: string; name: string; kind: Kind }>;

/** Replays `ops` on the NAS as the user last saw it; throws the NAS's refusal (409, 400). */
function replayOnNas(model: LocalModel, ops: readonly PlannedOp[]): NasTable {
  const nas: NasTable = new Map(
    [...model.entries()].filter((x) => x.id !== model.rootId).map((x) => [x.id, { parent: x.rparent, name: x.rname, kind: x.kind }]),
  );
  const isUnder = (id: string, anc: string): boolean => {
    for (let c: string | undefined = id; c && c !== model.rootId; c = nas.get(c)?.parent) if (c === anc) return true;
    return false;
  };
  for (const op of ops) {
    if (op.op === 'delete') {
      for (const id of [...nas.keys()].filter((x) => isUnder(x, op.id))) nas.delete(id);
      continue;
    }
    const cur = nas.get(op.id);
    if (!cur) throw new Error(`404: ${op.id} is not on the NAS (deleted before its patch)`);
    const next = { ...cur, parent: op.parentID ?? cur.parent, name: op.name ?? cur.name };
    if (isUnder(next.parent, op.id)) throw new Error(`400: ${op.id} moved below itself`);
    for (const [id, v] of nas)
      if (id !== op.id && v.parent === next.parent && v.name === next.name) throw new Error(`409 on ${op.id}: ${id} holds ${next.name}`);
    nas.set(op.id, next);
  }
  return nas;
}

function nasTree(model: LocalModel, nas: NasTable): string[] {
  const path = (id: string): string => {
    const v = nas.get(id)!;
    return v.parent === model.rootId ? v.name : `${path(v.parent)}/${v.name}`;
  };
  return [...nas.keys()].map((id) => path(id) + (nas.get(id)!.kind === 'dir' ? '/' : '')).sort();
}

const show = (op: PlannedOp): string =>
  op.op === 'delete'
    ? `delete ${op.id}`
    : `patch ${op.id} ${op.fromParent}/${op.fromName} -> ${op.parentID ?? op.fromParent}/${op.name ?? op.fromName}`;

/**
 * One batch of the property, in a fresh folder `root` (removed afterwards). Throws when the
 * pipeline is wrong, with the trees and the plan in the message so a failure explains itself.
 */
export function checkPipelineBatch(root: string, spec: readonly NodeSpec[], ops: readonly UserOp[]): void {
  try {
    const model = buildTree(root, spec);
    const before = diskTree(root);
    applyUserOps(root, ops);
    const after = diskTree(root);
    const pair = pairMoves({ model, scans: scanDirs(root, allDirs(root)), carried: [], now: 0, holdMs: 0 });
    if (pair.localOnly.length > 0) throw new Error(`local only: ${pair.localOnly.map((l) => l.path).join(', ')}`);
    const plan = planBatch(model, pair.moves, pair.deletes, { count: 1_000_000, percent: 100 });
    const context = (): string =>
      `\n  before: ${before.join(' ')}\n  after:  ${after.join(' ')}\n  ids:    ${[...model.entries()]
        .filter((x) => x.id !== model.rootId)
        .map((x) => `${x.id}=${model.pathOf(x.id)}`)
        .join(' ')}` +
      `\n  moves:  ${pair.moves.map((m) => `${m.id}->${m.toParent}/${m.toName}`).join(' ')}\n  deletes: ${pair.deletes.join(' ')}` +
      `\n  plan:\n    ${plan.ops.map(show).join('\n    ')}`;
    let nas: NasTable;
    try {
      nas = replayOnNas(model, plan.ops);
    } catch (err) {
      throw new Error(`${(err as Error).message}${context()}`);
    }
    const got = nasTree(model, nas);
    if (got.join('\n') !== after.join('\n'))
      throw new Error(`the NAS ends as ${got.join(' ')}, the disk is ${after.join(' ')}${context()}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The property over fresh folders `base/m<n>`. */
export function pipelineProperty(base: string): fc.IProperty<[NodeSpec[], UserOp[]]> {
  let n = 0;
  return fc.property(treeArb, userOpsArb, (spec, ops) => checkPipelineBatch(join(base, `m${n++}`), spec, ops));
}
