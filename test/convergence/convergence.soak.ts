/**
 * `npm run soak`: the convergence run (run.ts) over many seeds, thousands of rounds in all
 * (every third seed against the service in the real device's quirks mode). A seed stops at
 * its first failing round; the next seed goes on. The report, bench/results/
 * convergence-soak.json, is rewritten after every seed (a run cut short still leaves one):
 * seeds, rounds, failures with their seed, round, kinds, violations and replay command,
 * duration.
 *
 * Knobs: CONVERGENCE_SOAK_ROUNDS (total rounds, default 2000), CONVERGENCE_SOAK_MINUTES (time
 * budget, default 170: the soak config allows 3 h), CONVERGENCE_SOAK_PER_SEED (rounds per seed,
 * default 25), CONVERGENCE_SOAK_SEED0 (first seed, default 1000), CONVERGENCE_LATE_OK=1 (see
 * run.ts: a disk change taken in only on a sync is logged, not a failure).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { envNumber, failureKinds } from './report.js';
import { formatFailure, runSeed, type SeedResult } from './run.js';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'bench/results/convergence-soak.json');

it('convergence soak: many seeds, thousands of rounds, every invariant after every round', async () => {
  const totalRounds = envNumber('CONVERGENCE_SOAK_ROUNDS', 2000);
  const budgetMs = envNumber('CONVERGENCE_SOAK_MINUTES', 170) * 60_000;
  const perSeed = envNumber('CONVERGENCE_SOAK_PER_SEED', 25);
  const seed0 = envNumber('CONVERGENCE_SOAK_SEED0', 1000);
  const lateOk = process.env['CONVERGENCE_LATE_OK'] === '1';
  const t0 = Date.now();
  const results: SeedResult[] = [];
  let rounds = 0;
  const write = (done: boolean): void => {
    const failures = results.filter((r) => r.failure);
    const kinds: Record<string, number> = {};
    for (const r of failures) for (const k of failureKinds(r)) kinds[k] = (kinds[k] ?? 0) + 1;
    const coverage: Record<string, number> = {};
    for (const r of results) for (const [k, n] of Object.entries(r.coverage)) coverage[k] = (coverage[k] ?? 0) + n;
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(
      OUT,
      `${JSON.stringify(
        {
          what: 'convergence soak (test/convergence): random local and NAS-side changes on the same objects, kill -9, clean restarts, NAS outages, restores from a copy, held mass deletes; invariants after every round',
          startedAt: new Date(t0).toISOString(),
          finished: done,
          durationSec: Math.round((Date.now() - t0) / 1000),
          settings: { totalRounds, perSeed, seed0, budgetMinutes: budgetMs / 60_000, lateOk },
          seeds: results.length,
          rounds,
          failedSeeds: failures.length,
          failureKinds: kinds,
          coverage,
          failures: failures.map((r) => ({
            seed: r.seed,
            quirks: r.quirks,
            round: r.failure!.round,
            flavor: r.failure!.flavor,
            kinds: failureKinds(r),
            violations: r.failure!.violations,
            replay: r.failure!.replay,
            log: r.failure!.log,
          })),
          perSeed: results.map((r) => ({
            seed: r.seed,
            quirks: r.quirks,
            rounds: r.rounds.length,
            failedAt: r.failure?.round ?? null,
            sec: Math.round(r.ms / 1000),
          })),
        },
        null,
        2,
      )}\n`,
    );
  };
  for (let seed = seed0; rounds < totalRounds && Date.now() - t0 < budgetMs; seed++) {
    const quirks = (seed - seed0) % 3 === 2 ? 'real-device' : undefined;
    const r = await runSeed({
      seed,
      rounds: Math.min(perSeed, totalRounds - rounds),
      lateOk,
      ...(quirks ? { quirks } : {}),
      log: (l) => console.log(l),
    });
    results.push(r);
    rounds += r.rounds.length;
    if (r.failure) console.log(formatFailure(r.failure));
    write(false);
  }
  write(true);
  const failed = results.filter((r) => r.failure);
  expect(
    failed.map(
      (r) =>
        `seed ${r.seed}${r.quirks ? ' (quirks)' : ''}, round ${r.failure!.round}: ${failureKinds(r).join(', ')} (${r.failure!.replay})`,
    ),
    `report: ${OUT}`,
  ).toEqual([]);
});
