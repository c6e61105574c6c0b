/**
 * The randomized whole-system run (issue 21, "Convergence, tested as a whole"), shared by
 * `convergence.test.ts` (a few fixed seeds in `npm test`) and `convergence.soak.ts` (`npm run
 * soak`: many seeds, thousands of rounds, a report in bench/results/).
 *
 * One seed = one world: the reference service with a demo library (about 1,500 objects in
 * ~45 folders) on a data folder of its own, the link (a proxy that records the engine's
 * writes and can refuse connections), a real `nas-mirror run` process mirroring it into a
 * real temp folder. Then rounds: each draws a plan from (seed, round) (plan.ts), carries it
 * out (execute.ts), lets the system settle (conditions on the engine's state db and the two
 * trees, never fixed sleeps) and checks the invariants (check.ts). A seed stops at its first
 * failing round (later rounds would build on a broken state); the failure carries the seed,
 * the round, the violations and the round's action log.
 *
 * Replay: CONVERGENCE_SEED=<n> [CONVERGENCE_ROUNDS=<r>] [CONVERGENCE_QUIRKS=real-device]
 * npx vitest run test/convergence. The plan of every round is a function of (seed, round,
 * the NAS tree the round starts from); the engine's timing is real, so when a race resolves
 * another way the later rounds may start from another tree. The action log says exactly
 * what was done, for a scenario to be written from it.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRound, expectedPaths } from './check.js';
import { inodeOf, scanDisk } from './disk.js';
import { EngineRunner, tail, type EngineView } from './engine.js';
import { decideHeld, executeRound, waitUntil, type Rig } from './execute.js';
import { NasLink } from './link.js';
import { Nas, type NasTree } from './nas.js';
import { describeStep, planRound, type Flavor } from './plan.js';
import { violationKind } from './report.js';
import { DiskIndex, LocalCreates, RoundWorld } from './world.js';

export interface SeedOptions {
  seed: number;
  rounds: number;
  /** `real-device` (every quirk of the service) or undefined. */
  quirks?: string;
  /** Demo library size (default 1500). */
  objects?: number;
  /** The flavours of the first rounds, in order (then drawn at random). */
  flavors?: readonly Flavor[];
  /** Progress lines (one per round). */
  log?: (line: string) => void;
  /** Also every round's action log (CONVERGENCE_VERBOSE=1). */
  verbose?: boolean;
  /**
   * A change on disk the engine takes in only when asked to sync (not by itself within
   * NOTICE_MS) is logged instead of failing the round (CONVERGENCE_LATE_OK=1): to look past
   * that defect at the others.
   */
  lateOk?: boolean;
  /** Violations of these kinds (report.ts) are logged in the round's log, not failures (a timing-dependent known defect). */
  tolerate?: readonly string[];
}

export interface RoundResult {
  round: number;
  flavor: Flavor;
  ms: number;
  steps: number;
}

export interface Failure {
  seed: number;
  quirks: string | null;
  round: number;
  flavor: Flavor | 'initial mirror';
  violations: string[];
  /** The round's action log (what was done, with each outcome). */
  log: string[];
  status: string;
  replay: string;
}

export interface SeedResult {
  seed: number;
  quirks: string | null;
  rounds: RoundResult[];
  failure: Failure | undefined;
  ms: number;
  /** How many times each kind of action was carried out. */
  coverage: Record<string, number>;
}

const SETTLE_MS = 90_000;
/** How soon the engine must take in the user's changes on disk by itself (watcher, 150-500 ms batches, 1 s delete hold). */
const NOTICE_MS = 8000;

export async function runSeed(o: SeedOptions): Promise<SeedResult> {
  const t0 = Date.now();
  const base = mkdtempSync(join(tmpdir(), `conv-${o.seed}-`));
  const mirror = join(base, 'mirror');
  const state = join(base, 'state');
  const nas = await Nas.start({ seed: o.seed, objects: o.objects ?? 1500, ...(o.quirks ? { quirks: o.quirks } : {}) });
  const link = await NasLink.start(nas.svc.baseUrl);
  const engine = new EngineRunner(state, mirror, () => link.url, nas.token);
  const rig: Rig = { mirror, nas, link, engine, creates: new LocalCreates() };
  const result: SeedResult = { seed: o.seed, quirks: o.quirks ?? null, rounds: [], failure: undefined, ms: 0, coverage: {} };
  const fail = (round: number, flavor: Failure['flavor'], violations: string[], log: string[], status: string): Failure => ({
    seed: o.seed,
    quirks: o.quirks ?? null,
    round,
    flavor,
    violations,
    log,
    status,
    replay: `CONVERGENCE_SEED=${o.seed} CONVERGENCE_ROUNDS=${round}${o.quirks ? ` CONVERGENCE_QUIRKS=${o.quirks}` : ''}${o.flavors?.length ? ` CONVERGENCE_FLAVORS=${o.flavors.slice(0, round).join(',')}` : ''}${o.lateOk ? ' CONVERGENCE_LATE_OK=1' : ''} npx vitest run test/convergence`,
  });
  let current: { round: number; flavor: Failure['flavor'] } = { round: 0, flavor: 'initial mirror' };
  try {
    // the first mirror: the disk must equal the NAS before anything happens
    await engine.start(120_000);
    const w0 = new RoundWorld(0, nas.tree());
    const s0 = await settle(rig, w0, indexDisk(mirror, w0.start), 'reject', false);
    const v0 = s0.problem ? [s0.problem] : checkRound(checkInput(rig, w0, s0.view, 0));
    if (v0.length) {
      result.failure = fail(0, 'initial mirror', v0, w0.log, s0.view.status);
      return result;
    }
    for (let round = 1; round <= o.rounds; round++) {
      const r0 = Date.now();
      current = { round, flavor: 'live' };
      const start = nas.tree();
      const index = indexDisk(mirror, start);
      const world = new RoundWorld(round, start);
      const plan = planRound(o.seed, round, start, {
        quirks: nas.quirks,
        ...(o.flavors?.[round - 1] ? { flavor: o.flavors[round - 1] } : {}),
      });
      current.flavor = plan.flavor;
      world.note(`round ${round} of seed ${o.seed}: ${plan.flavor}, ${plan.steps.length} steps; NAS has ${start.size - 1} objects`);
      const writesBefore = link.writes.length;
      const exitsBefore = engine.unexpectedExits.length;
      const problems = await executeRound(rig, plan, world, index);
      const s = await settle(rig, world, index, plan.heldDecision, o.lateOk ?? false);
      const writes = link.writes.slice(writesBefore);
      world.note(
        `the engine's writes this round: ${writes.map((x) => `${x.kind === 'delete' ? 'DELETE' : 'PATCH'} ${x.id}${x.body ? ` ${JSON.stringify(x.body)}` : ''} -> ${x.status || 'no answer'}`).join('; ') || 'none'}`,
      );
      const violations = [...problems, ...(s.problem ? [s.problem] : [])];
      violations.push(...checkRound(checkInput(rig, world, s.view, writesBefore, exitsBefore)));
      for (const v of violations.filter((x) => o.tolerate?.includes(violationKind(x)))) {
        world.note(`tolerated (known defect): ${v}`);
        violations.splice(violations.indexOf(v), 1);
      }
      for (const [k, n] of world.done) result.coverage[k] = (result.coverage[k] ?? 0) + n;
      result.rounds.push({ round, flavor: plan.flavor, ms: Date.now() - r0, steps: plan.steps.length });
      if (o.verbose) for (const l of world.log) o.log?.(`  ${l}`);
      o.log?.(
        `seed ${o.seed} round ${round} ${plan.flavor}: ${violations.length ? `${violations.length} violation(s)` : 'ok'} in ${((Date.now() - r0) / 1000).toFixed(1)} s`,
      );
      if (violations.length) {
        const errors = engine
          .stderr()
          .split('\n')
          .filter((l) => l.includes('"level":"error"'))
          .slice(-5);
        const last = tail(engine.stderr(), 12)
          .split('\n')
          .map((l) => `  ${l.slice(0, 400)}`);
        // the whole stderr of this run, for the investigation (CONVERGENCE_STDERR=/tmp/conv: /tmp/conv-SEED-rROUND.txt)
        const dump = process.env['CONVERGENCE_STDERR'];
        if (dump) writeFileSync(`${dump}-${o.seed}-r${round}.txt`, engine.stderr());
        result.failure = fail(
          round,
          plan.flavor,
          violations,
          [
            ...world.log,
            ...(errors.length ? ['engine errors logged:', ...errors] : []),
            "the engine's stderr ended with:",
            ...last,
            'plan:',
            ...plan.steps.map((st) => `  ${describeStep(st, start)}`),
          ],
          s.view.status,
        );
        break;
      }
      // the user's files the engine uploaded are NAS objects from now on (renamed, moved and deleted as such)
      const onNas = new Set([...rig.nas.tree().byId.values()].filter((x) => !x.dir).map((x) => x.name));
      for (const n of rig.creates.live()) if (onNas.has(n)) rig.creates.removed(n);
      // conflicts were checked (the NAS won them): keep the NAS version, so the next round starts clean
      if (s.view.conflicts.length) {
        await engine.dropConflicts();
        await waitUntil(() => engine.view().conflicts.length === 0, 15_000, 100);
      }
    }
  } catch (e) {
    result.failure ??= fail(
      current.round,
      current.flavor,
      [`the run itself failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`, `engine stderr:\n${tail(engine.stderr(), 30)}`],
      [],
      '?',
    );
  } finally {
    await engine.stop().catch(() => undefined);
    await link.close();
    await nas.close();
    rmSync(base, { recursive: true, force: true });
    result.ms = Date.now() - t0;
  }
  return result;
}

function checkInput(rig: Rig, world: RoundWorld, view: EngineView, writesFrom: number, exitsFrom = 0): Parameters<typeof checkRound>[0] {
  return {
    world,
    end: rig.nas.tree(),
    disk: scanDisk(rig.mirror),
    diskAll: scanDisk(rig.mirror, { reserved: true }),
    view,
    writes: rig.link.writes.slice(writesFrom),
    creates: rig.creates,
    unexpectedExits: rig.engine.unexpectedExits.slice(exitsFrom),
  };
}

/** Which object each disk entry is, from a settled state (the disk showed the NAS). */
function indexDisk(mirror: string, t: NasTree): DiskIndex {
  const ix = new DiskIndex();
  ix.set(t.rootId, '', undefined);
  for (const [p, o] of expectedPaths(t, new Set())) ix.set(o.id, p, inodeOf(mirror, p));
  return ix;
}

/**
 * Lets the system settle: the engine is asked to sync (walk, folders, replay) until its
 * outbox is empty, a walk that began after every change has completed, and nothing at all
 * (disk, NAS, the engine's lists) changes across two more such syncs at least 1.2 s apart
 * (longer than the engine's delete hold and watcher debounce). Held deletes found meanwhile
 * are decided as the round says. Returns the engine's view, and a problem when it did not settle.
 */
async function settle(
  rig: Rig,
  world: RoundWorld,
  index: DiskIndex,
  decision: 'approve' | 'reject',
  lateOk: boolean,
): Promise<{ view: EngineView; problem?: string }> {
  const { engine } = rig;
  const t0 = Date.now();
  // quirks: a folder deleted on the NAS is still listed for lingerMs; the disk cannot follow before
  if (world.lastNasDeleteAt)
    await waitUntil(() => Date.now() > world.lastNasDeleteAt + rig.nas.lingerMs + 100, rig.nas.lingerMs + 1000, 100);
  // First, on its own (no sync asked): the engine must take in what the user did on disk
  // (its model shows every entry where the disk has it) within a few seconds.
  let diff: string[] = [];
  // (a held "renamed or deleted?" is the engine's answer too: the user decides it below)
  const noticed = await waitUntil(() => (diff = modelVsDisk(rig)).length === 0 || engine.view().held.length > 0, NOTICE_MS, 200);
  const lateText = noticed
    ? undefined
    : `the engine did not take in the disk's changes within ${NOTICE_MS / 1000} s on its own (no sync asked; status ${engine.view().status}): ${diff.slice(0, 6).join('; ')}${diff.length > 6 ? `; and ${diff.length - 6} more` : ''}`;
  if (lateText) world.note(lateText);
  const late = lateOk ? undefined : lateText;
  let prev: (Snapshot & { at: number }) | undefined;
  let lastChange = '';
  let view = engine.view();
  let why = '';
  while (Date.now() - t0 < SETTLE_MS) {
    if (!engine.running)
      return { view, problem: `the engine is not running while settling${engine.unexpectedExits.length ? '' : ' (it exited)'}` };
    view = engine.view();
    if (view.held.length) {
      world.note(`settle: held ${await decideHeld(rig, world, index, decision)}`);
      prev = undefined;
      continue;
    }
    const asked = Date.now();
    engine.requestSync();
    const synced = await waitUntil(
      () => {
        view = engine.view();
        return view.pendingRequests === 0 && view.lastWalkAt >= asked && view.outboxPending === 0;
      },
      30_000,
      100,
    );
    if (!synced) {
      why = `after a sync request: ${view.pendingRequests} request(s) not taken, last complete walk ${view.lastWalkAt ? new Date(view.lastWalkAt).toISOString() : 'never'} (asked ${new Date(asked).toISOString()}), ${view.outboxPending} change(s) still to send; status ${view.status}`;
      prev = undefined;
      continue;
    }
    why = '';
    const snap = snapshot(rig, view);
    if (prev && prev.fp === snap.fp && Date.now() - prev.at >= 1200) {
      world.note(
        `settled in ${((Date.now() - t0) / 1000).toFixed(1)} s (status ${view.status}, ${view.conflicts.length} conflict(s), ${view.localOnly.length} local only)`,
      );
      return late ? { view, problem: late } : { view };
    }
    if (prev && prev.fp !== snap.fp) lastChange = changes(prev, snap);
    if (!prev || prev.fp !== snap.fp) prev = { ...snap, at: Date.now() };
  }
  return {
    view,
    problem: `the system did not settle in ${SETTLE_MS / 1000} s: ${why || `the disk, the NAS or the engine's lists kept changing; the last change between two syncs: ${lastChange}`}`,
  };
}

/** Where the engine's model and the disk disagree (top-most entries only), the user's own files aside. */
function modelVsDisk(rig: Rig): string[] {
  const model = rig.engine.modelPaths();
  const disk = scanDisk(rig.mirror);
  const listed = new Set(rig.engine.view().localOnly.map((l) => l.path));
  const out: string[] = [];
  const top = (p: string, set: ReadonlySet<string> | ReadonlyMap<string, unknown>, other: ReadonlyMap<string, unknown>): boolean => {
    const parent = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '';
    return parent === '' || !(set.has(parent) && !other.has(parent));
  };
  for (const [p, e] of disk) {
    if (model.has(p) || listed.has(p) || (!e.dir && rig.creates.has(e.name))) continue;
    if (top(p, disk, model)) out.push(`disk has "${p}", the engine's model does not`);
  }
  for (const p of model.keys())
    if (!disk.has(p) && top(p, model, disk)) out.push(`the engine's model has "${p}" (${model.get(p)!.id}), the disk does not`);
  return out;
}

interface Snapshot {
  fp: string;
  disk: Map<string, string>;
  nas: Map<string, string>;
  lists: string;
}

/** Everything that must stop changing: the disk (paths, inodes), the NAS tree, the engine's counts and lists. */
function snapshot(rig: Rig, v: EngineView): Snapshot {
  const disk = new Map(
    [...scanDisk(rig.mirror, { reserved: true }).values()].map((e) => [e.path, `${e.dir ? 'dir' : 'file'} ino ${e.ino}`]),
  );
  const nas = new Map([...rig.nas.tree().byId.values()].map((n) => [n.id, `${n.parent}/${n.name}`]));
  const lists = JSON.stringify({
    outbox: [v.outboxPending, v.outboxDone, v.outboxConflict],
    held: v.held,
    conflicts: v.conflicts.length,
    localOnly: v.localOnly.map((l) => l.path),
  });
  const h = createHash('sha1');
  for (const [p, x] of [...disk].sort()) h.update(`${p}\0${x}\n`);
  for (const [id, x] of [...nas].sort()) h.update(`${id}\0${x}\n`);
  h.update(lists);
  return { fp: h.digest('hex'), disk, nas, lists };
}

/** What changed between two snapshots, in a few words. */
function changes(a: Snapshot, b: Snapshot): string {
  const out: string[] = [];
  for (const [p, x] of b.disk) if (a.disk.get(p) !== x) out.push(`disk ${a.disk.has(p) ? 'changed' : 'gained'} "${p}" (${x})`);
  for (const p of a.disk.keys()) if (!b.disk.has(p)) out.push(`disk lost "${p}"`);
  for (const [id, x] of b.nas) if (a.nas.get(id) !== x) out.push(`NAS ${id} now ${x}`);
  for (const id of a.nas.keys()) if (!b.nas.has(id)) out.push(`NAS lost ${id}`);
  if (a.lists !== b.lists) out.push(`engine lists ${a.lists} -> ${b.lists}`);
  return out.slice(0, 8).join('; ') + (out.length > 8 ? `; and ${out.length - 8} more` : '');
}

/** A failure as the test prints it: seed, round, replay command, violations, the round's action log. */
export function formatFailure(f: Failure): string {
  return [
    `convergence: seed ${f.seed}${f.quirks ? ` (quirks: ${f.quirks})` : ''}, round ${f.round} (${f.flavor}) FAILED; engine status at the end: ${f.status}`,
    `replay: ${f.replay}`,
    'violations:',
    ...f.violations.map((x) => `  - ${x}`),
    `action log of round ${f.round}:`,
    ...f.log.map((l) => `  ${l}`),
  ].join('\n');
}
