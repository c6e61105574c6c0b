import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPipelineBatch, pipelineProperty, treeArb, userOpsArb } from './pipeline-property.js';

/**
 * `npm run soak`: the local pipeline's property (local-pipeline.test.ts runs 300 batches of
 * it) over 100,000 random batches. A random seed unless PIPELINE_SEED is given; the seed is
 * printed and reported, so `PIPELINE_SEED=<seed> npm run soak` replays a failure.
 * PIPELINE_RUNS changes the count. Report: bench/results/pipeline-soak.json.
 */
const runs = Number(process.env['PIPELINE_RUNS'] ?? 100_000);
const seed = process.env['PIPELINE_SEED'] !== undefined ? Number(process.env['PIPELINE_SEED']) : Math.floor(Math.random() * 2 ** 31);
const base = mkdtempSync(join(tmpdir(), 'pipeline-soak-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

interface Failure {
  run: number;
  input: unknown;
  error: string;
}

describe('local pipeline soak', () => {
  it(`${runs} random batches replay on the NAS model to the disk (seed ${seed})`, () => {
    console.log(`pipeline soak: ${runs} batches, seed ${seed} (PIPELINE_SEED=${seed} npm run soak replays it)`);
    const started = Date.now();
    // Every batch runs, failing or not, so the report counts them all (fc.assert would stop at the first).
    const failures: Failure[] = [];
    let n = 0;
    const counting = fc.property(treeArb, userOpsArb, (spec, ops) => {
      const run = n++;
      try {
        checkPipelineBatch(join(base, `m${run}`), spec, ops);
      } catch (err) {
        failures.push({ run, input: [spec, ops], error: (err as Error).message });
      }
    });
    fc.assert(counting, { numRuns: runs, seed });
    const durationMs = Date.now() - started;
    // The first failure again, shrunk: the same seed generates the same batches.
    let shrunk: { counterexample: unknown; error: string } | undefined;
    if (failures.length > 0) {
      mkdirSync(join(base, 'shrink'));
      const again = fc.check(pipelineProperty(join(base, 'shrink')), { numRuns: runs, seed });
      if (again.failed) shrunk = { counterexample: again.counterexample, error: String(again.errorInstance) };
    }
    const report = {
      at: new Date(started).toISOString(),
      node: process.version,
      runs,
      seed,
      durationSeconds: Math.round(durationMs / 100) / 10,
      failures: failures.length,
      ...(failures.length > 0 ? { firstFailures: failures.slice(0, 5), shrunk } : {}),
    };
    mkdirSync('bench/results', { recursive: true });
    writeFileSync('bench/results/pipeline-soak.json', `${JSON.stringify(report, null, 2)}\n`);
    console.log(`pipeline soak: ${runs} batches in ${report.durationSeconds} s, ${failures.length} failed (seed ${seed})`);
    expect(failures.map((f) => f.error).slice(0, 3)).toEqual([]);
  });
});
