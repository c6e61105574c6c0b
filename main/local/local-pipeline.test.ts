import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalModel, type LocalEntry } from './model.js';
import { allDirs, scanDirs } from './analyse.js';
import { pairMoves } from './pair-moves.js';
import { planBatch } from './plan.js';

/**
 * analyse -> pair moves -> plan on a REAL folder: random renames, moves, swaps and deletes;
 * the plan replayed on a NAS model (409 on a sibling clash) must end equal to the disk.
 */
const base = mkdtempSync(join(tmpdir(), 'pipeline-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

function tree(root: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    out.push(e.isDirectory() ? `${rel}/` : rel);
    if (e.isDirectory()) out.push(...tree(root, rel));
  }
  return out.sort();
}

describe('local pipeline on a real folder (property)', () => {
  it('whatever the user does, replaying the plan makes the NAS equal to the disk, deleting only what is gone', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ parent: fc.nat(), dir: fc.boolean() }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.record({ op: fc.constantFrom('rename', 'move', 'delete', 'swap'), a: fc.nat(), b: fc.nat() }), { maxLength: 10 }),
        (spec, ops) => {
          const root = join(base, `m${n++}`);
          mkdirSync(root);
          const model = new LocalModel('R');
          const e = (id: string, kind: 'dir' | 'file', parent: string, name: string, ino: string): LocalEntry => ({ id, kind, lparent: parent, lname: name, ino, filled: false, rparent: parent, rname: name, etag: '"Ag"', mtime: '', setag: '', state: 'ok' });
          model.put(e('R', 'dir', '', '', lstatSync(root, { bigint: true }).ino.toString()));
          const dirs = ['R'];
          spec.forEach((s, i) => {
            const parent = dirs[s.parent % dirs.length]!;
            const abs = join(root, ...model.segments(parent)!, `n${i}`);
            if (s.dir) mkdirSync(abs); else writeFileSync(abs, '');
            model.put(e(`o${i}`, s.dir ? 'dir' : 'file', parent, `n${i}`, lstatSync(abs, { bigint: true }).ino.toString()));
            if (s.dir) dirs.push(`o${i}`);
          });
          let k = 0;
          for (const op of ops) {
            const paths = tree(root);
            if (paths.length === 0) break;
            const a = paths[op.a % paths.length]!.replace(/\/$/, '');
            const folders = ['', ...paths.filter((p) => p.endsWith('/')).map((p) => p.slice(0, -1))].filter((f) => f !== a && !f.startsWith(`${a}/`));
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
          const pair = pairMoves({ model, scans: scanDirs(root, allDirs(root)), carried: [], now: 0, holdMs: 0 });
          expect(pair.localOnly).toEqual([]);
          const plan = planBatch(model, pair.moves, pair.deletes, { count: 1_000_000, percent: 100 });
          // Replay on the NAS model.
          const nas = new Map([...model.byId.values()].filter((x) => x.id !== 'R').map((x) => [x.id, { parent: x.rparent, name: x.rname, kind: x.kind }]));
          for (const op of plan.ops) {
            if (op.op === 'delete') {
              const gone = [...nas.keys()].filter((id) => { for (let c: string | undefined = id; c && c !== 'R'; c = nas.get(c)?.parent) if (c === op.id) return true; return false; });
              for (const g of gone) nas.delete(g);
              continue;
            }
            const cur = nas.get(op.id)!;
            const next = { ...cur, parent: op.parentID ?? cur.parent, name: op.name ?? cur.name };
            // the NAS refuses a folder moved into itself or below it
            for (let c: string | undefined = next.parent; c && c !== 'R'; c = nas.get(c)?.parent) if (c === op.id) throw new Error(`400: ${op.id} moved below itself`);
            for (const [id, v] of nas) if (id !== op.id && v.parent === next.parent && v.name === next.name) throw new Error(`409 on ${op.id}`);
            nas.set(op.id, next);
          }
          const path = (id: string): string => (nas.get(id)!.parent === 'R' ? nas.get(id)!.name : `${path(nas.get(id)!.parent)}/${nas.get(id)!.name}`);
          const nasTree = [...nas.keys()].map((id) => path(id) + (nas.get(id)!.kind === 'dir' ? '/' : '')).sort();
          expect(nasTree).toEqual(tree(root));
        },
      ),
      // a fixed seed by default, so CI sees the same 300 cases each time; PIPELINE_SEED=random
      // and PIPELINE_RUNS=10000 explore (a file and a folder swapped next to a delete still
      // fails about once in 2,000 cases: see docs/sync-engine.md, known limits)
      { numRuns: Number(process.env['PIPELINE_RUNS'] ?? 300), ...(process.env['PIPELINE_SEED'] === 'random' ? {} : { seed: Number(process.env['PIPELINE_SEED'] ?? 20261123) }) },
    );
  });
});
