import { afterAll, describe, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPipelineBatch, pipelineProperty } from './pipeline-property.js';

/**
 * analyse -> pair moves -> plan on a REAL folder: random renames, moves, swaps and deletes;
 * the plan replayed on a NAS model (409 on a sibling clash) must end equal to the disk.
 * The property is pipeline-property.ts's, shared with the soak (100,000 random batches).
 */
const base = mkdtempSync(join(tmpdir(), 'pipeline-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('local pipeline on a real folder (property)', () => {
  it("a file takes a deleted folder's name while a file from inside it takes the first one's name (found by the property)", () => {
    // n0, n1, n2/n3 become n1 (was n2/n3) and n2 (was n1, a file where the folder was); n0 and
    // n2/ are deleted. The plan deleted n2/ before n2/n3 left it: the NAS lost n2/n3 (404).
    checkPipelineBatch(
      join(base, 'found-1'),
      [
        { parent: 0, dir: false },
        { parent: 0, dir: false },
        { parent: 0, dir: true },
        { parent: 3, dir: false },
      ],
      [
        { op: 'swap', a: 0, b: 1 },
        { op: 'swap', a: 7, b: 5 },
        { op: 'swap', a: 0, b: 6 },
        { op: 'delete', a: 0, b: 0 },
      ],
    );
  });

  it('whatever the user does, replaying the plan makes the NAS equal to the disk, deleting only what is gone', () => {
    fc.assert(
      pipelineProperty(base),
      // a fixed seed by default, so CI sees the same 300 cases each time; PIPELINE_SEED=random
      // and PIPELINE_RUNS=10000 explore; `npm run soak` runs 100,000
      {
        numRuns: Number(process.env['PIPELINE_RUNS'] ?? 300),
        ...(process.env['PIPELINE_SEED'] === 'random' ? {} : { seed: Number(process.env['PIPELINE_SEED'] ?? 20261123) }),
      },
    );
  });
});
