/**
 * `npm run bench:scale`: the whole product end to end at each size of SCALE_SIZES (default
 * 100000,1000000): `nas-service demo` served in its own process, `nas-mirror run --ui` as a
 * child into fresh folders, with the floors in the same run (walk alone, `cp -r` of the
 * placeholder tree, `find`). Measures first run to ready, peak RSS, inotify watches, the UI
 * server's stalls during the first walk, idle CPU, restart (SIGTERM and kill -9), local
 * rename -> NAS (idle and during a re-walk), and browser mode's UI-server process stall during
 * a first walk with the engine in its own process (bench/host-probe.ts). Env: SCALE_SIZES, SCALE_IDLE_SEC (70),
 * SCALE_RENAMES (10), SCALE_TMP (temp base), SCALE_STEP_TIMEOUT_SEC (overrides every step's
 * timeout), SCALE_BEFORE (a git ref: that version's engine is measured first at each size, in a
 * worktree, then this one, in the same run; the floors and browser mode once, with this one).
 * After the first run's ready and the restart's, the engine's CPU and resident set over the
 * next SCALE_STEADY_SEC (60). SCALE_FORM: `bundle` (default) runs each version's engine as the app
 * ships it, its esbuild bundle (dist/main/cli/nas-mirror.mjs, built first by that version's
 * build/bundle.mjs: the desktop app's engine is such a bundle, with no tsx); `tsx` runs
 * bin/nas-mirror.js, the TypeScript through tsx's loader, as the repository's command line does. Prints a markdown table with the targets (issue 24's for memory,
 * restart and the minute after ready; issue 8's for the rest); writes bench/results/scale.json.
 */
import { cpus, tmpdir, totalmem } from 'node:os';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ensureRenderer } from '../main/ui-server/assets.js';
import { engineEnv } from '../main/host/engine-env.js';
import { measureHost, type HostRun } from './host-probe.js';
import { spawnServiceProcess, type ServiceProcess } from '../server/testing.js';
import { removeWorktrees, worktree, type Checkout } from './worktree.js';
import {
  afterReady,
  CLK_TCK,
  cpuTicks,
  inotifyWatches,
  killAll,
  machineLoad,
  track,
  nasApi,
  startControlServer,
  pickFiles,
  pollLatency,
  renames,
  ROOT,
  runOk,
  say,
  sleep,
  startEngine,
  uiCall,
  withTimeout,
  type EngineChild,
  type RenameStats,
  type Stalls,
  type Status,
} from './scale-probe.js';

const SIZES = (process.env['SCALE_SIZES'] ?? '100000,1000000')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => n > 0);
// 70 s: the engine re-walks every 60 s, so one periodic round falls inside the window.
const IDLE_SEC = Number(process.env['SCALE_IDLE_SEC'] ?? 70);
const RENAMES = Number(process.env['SCALE_RENAMES'] ?? 10);
const TMP = process.env['SCALE_TMP'] ?? tmpdir();
const FIXED_TIMEOUT = process.env['SCALE_STEP_TIMEOUT_SEC'] ? Number(process.env['SCALE_STEP_TIMEOUT_SEC']) * 1000 : undefined;
const BEFORE = process.env['SCALE_BEFORE'] ?? '';
/** The minute after ready: what the engine uses then (CPU) and keeps (its resident set at its end). */
const STEADY_SEC = Number(process.env['SCALE_STEADY_SEC'] ?? 60);
const FORM = process.env['SCALE_FORM'] === 'tsx' ? 'tsx' : 'bundle';
/** The script that runs a version's `nas-mirror` in the chosen form (its bundle built by `prepare`). */
const entryOf = (root: string): string => join(root, FORM === 'bundle' ? 'dist/main/cli/nas-mirror.mjs' : 'bin/nas-mirror.js');
const NODE = process.execPath;
const r1 = (x: number): number => Math.round(x * 10) / 10;
const sec = (ms: number): number => Math.round(ms / 10) / 100;

export interface SizeResult {
  objects: number;
  /** Which code ran the engine: 'now' (this checkout) or 'before' (SCALE_BEFORE), and its commit. */
  version: 'now' | 'before';
  commit: string;
  nasFolders?: number;
  mirrorFolders?: number;
  demoSec?: number;
  floorRuns?: { cpSec: number[]; findSec: number[] };
  walkAloneSec?: number;
  walkAloneInternalSec?: number;
  cpSec?: number;
  findSec?: number;
  findEntries?: number;
  first?: {
    readySec: number;
    windowSec?: number;
    peakRssMb: number;
    watches: number;
    stallsMs?: Stalls;
    controlMs?: Stalls;
    benchLagMaxMs: number;
    processTree: string;
    /** The STEADY_SEC after ready: CPU (% of a core) and VmRSS at its end. */
    after?: AfterReady;
  };
  idle?: {
    windowSec: number;
    engineCpuPct: number;
    serviceCpuPct: number;
    rewalk: 'completed' | 'running at the end' | 'none';
    settleSec: number;
  };
  renameIdle?: RenameStats;
  renameRewalk?: RenameStats;
  stopSec?: number;
  stopClean?: boolean;
  restart?: { readySec: number; watches: number; peakRssMb: number; stallsMs?: Stalls; controlMs?: Stalls; after?: AfterReady };
  restartAfterKill9?: { readySec: number; watches: number; peakRssMb: number };
  /** Browser mode (`nas-mirror ui`, `npm start` without Electron): this process as the UI server's, the engine forked. */
  browserMode?: HostRun;
  /** Load average and CPU/IO pressure (some, avg10) as each step began: how busy the shared machine was. */
  load: Record<string, string>;
  errors: string[];
}

type AfterReady = Awaited<ReturnType<typeof afterReady>>;

/** A step's timeout: `minSec`, or `perMillionSec` scaled to the size, whichever is larger. */
const budget = (n: number, minSec: number, perMillionSec: number): number =>
  FIXED_TIMEOUT ?? Math.max(minSec, (n / 1e6) * perMillionSec) * 1000;

async function measureSize(
  n: number,
  base: string,
  code: Checkout & { version: SizeResult['version'] },
  floors: boolean,
): Promise<SizeResult> {
  const res: SizeResult = { objects: n, version: code.version, commit: code.commit, load: {}, errors: [] };
  const mirrorCli = entryOf(code.root);
  const part = async (what: string, fn: () => Promise<void>): Promise<boolean> => {
    say(`${n}: ${what}...`);
    res.load[what] = machineLoad();
    try {
      await fn();
      return true;
    } catch (e) {
      const msg = `${what}: ${e instanceof Error ? e.message : String(e)}`;
      say(`${n}: FAILED ${msg}`);
      res.errors.push(msg);
      return false;
    }
  };
  const nasDir = join(base, 'nas'),
    mirror = join(base, 'mirror'),
    state = join(base, 'state');
  let svc: ServiceProcess | undefined;
  let token = '';
  // the CLI's engine with the environment the app gives its engine process (main/host/engine-env.ts)
  const env = (): NodeJS.ProcessEnv => engineEnv({ ...process.env, NAS_TOKEN: token });
  try {
    if (
      !(await part('demo library', async () => {
        const r = await runOk(NODE, ['bin/nas-service.js', 'demo', '--data', nasDir, '--objects', String(n)], {
          timeoutMs: budget(n, 60, 900),
          what: 'nas-service demo',
        });
        res.demoSec = sec(r.ms);
        token = (
          await runOk(NODE, ['bin/nas-service.js', 'token', 'demo', '--scope', 'nas_read_write', '--data', nasDir], {
            timeoutMs: budget(n, 60, 600),
            what: 'nas-service token',
          })
        ).stdout.trim();
        svc = await spawnServiceProcess(nasDir, 0, budget(n, 60, 600));
        track(svc.child); // killed with the others on Ctrl-C
      }))
    )
      return res;
    const url = svc!.baseUrl;
    const control = await startControlServer();
    const nas = nasApi(url, token);

    await part('walk alone (sync --once)', async () => {
      const r = await runOk(
        NODE,
        [mirrorCli, 'sync', '--device', url, '--state', join(base, 'walk-state'), '--token-env', 'NAS_TOKEN', '--once'],
        { env: env(), timeoutMs: budget(n, 120, 1200), what: 'nas-mirror sync --once' },
      );
      res.walkAloneSec = sec(r.ms);
      const m = /(\d+) objects in (\d+) folders.* in ([\d.]+) s/.exec(r.stdout);
      if (m) {
        res.nasFolders = Number(m[2]);
        res.walkAloneInternalSec = Number(m[3]);
      }
    });

    if (floors)
      await part('browser mode: UI-server process stall during a first walk (engine in its own process)', async () => {
        res.browserMode = await withTimeout(
          measureHost('own-process', url, token, join(base, 'browser-mode')),
          budget(n, 180, 1800),
          'browser mode first walk',
        );
      });

    const runArgs = (extra: string[] = []): string[] => [
      'run',
      '--device',
      url,
      '--state',
      state,
      '--dir',
      mirror,
      '--token-env',
      'NAS_TOKEN',
      '--ui',
      '--ui-port',
      '0',
      ...extra,
    ];
    /** Starts the engine; the window's GET is polled every 20 ms from its URL to `watching`. */
    const start = async (
      what: string,
      timeoutMs: number,
    ): Promise<{ eng: EngineChild; stalls?: Stalls; control?: Stalls; benchLagMaxMs: number }> => {
      let poller: ReturnType<typeof pollLatency> | undefined, controlPoller: ReturnType<typeof pollLatency> | undefined;
      const lag = monitorEventLoopDelay({ resolution: 10 });
      lag.enable();
      try {
        const eng = await startEngine(
          runArgs(),
          env(),
          timeoutMs,
          (u) => {
            poller = pollLatency(u, 20);
            controlPoller = pollLatency(control.url, 20);
          },
          { root: code.root, entry: mirrorCli },
        );
        const stalls = await poller?.stop();
        const ctl = await controlPoller?.stop();
        say(`${n}: ${what} ready in ${sec(eng.readyMs)} s`);
        return { eng, stalls, control: ctl, benchLagMaxMs: r1(lag.max / 1e6) };
      } finally {
        await poller?.stop();
        await controlPoller?.stop();
        lag.disable();
      }
    };

    let eng: EngineChild | undefined;
    if (
      (await part('first run to ready', async () => {
        const s = await start('first run', budget(n, 180, 1800));
        eng = s.eng;
        res.first = {
          readySec: sec(eng.readyMs),
          windowSec: eng.windowMs === undefined ? undefined : sec(eng.windowMs),
          peakRssMb: 0,
          watches: inotifyWatches(eng.pid),
          stallsMs: s.stalls,
          controlMs: s.control,
          benchLagMaxMs: s.benchLagMaxMs,
          processTree: eng.tree,
        };
        if (!eng.windowUrl) res.errors.push('the window URL was not printed: no stall figure');
      })) &&
      eng
    ) {
      const e = eng;
      await part(`the ${STEADY_SEC} s after ready`, async () => {
        res.first!.after = await afterReady(e.pid, STEADY_SEC);
      });
      await part(`idle CPU over ${IDLE_SEC} s`, async () => {
        // The first run's own tail (the index catching up with the walk in its worker) is not
        // "between rounds": the window opens once the engine used under 5 % of a core over 5 s
        // (at most 3 min; how long that took is reported).
        const s0t = performance.now();
        for (;;) {
          const a = cpuTicks(e.pid);
          await sleep(5000);
          if ((cpuTicks(e.pid) - a) / CLK_TCK / 5 < 0.05 || performance.now() - s0t > 180_000) break;
        }
        const settleSec = sec(performance.now() - s0t);
        const before = await uiCall<Status>(e.windowUrl!, 'status');
        const [c0, s0, t0] = [cpuTicks(e.pid), cpuTicks(svc!.child.pid!), performance.now()];
        await sleep(IDLE_SEC * 1000);
        const [c1, s1, wall] = [cpuTicks(e.pid), cpuTicks(svc!.child.pid!), (performance.now() - t0) / 1000];
        const after = await uiCall<Status>(e.windowUrl!, 'status');
        res.idle = {
          windowSec: r1(wall),
          engineCpuPct: r1(((c1 - c0) / CLK_TCK / wall) * 100),
          serviceCpuPct: r1(((s1 - s0) / CLK_TCK / wall) * 100),
          rewalk: before.lastCompleteWalk !== after.lastCompleteWalk ? 'completed' : after.walk.running ? 'running at the end' : 'none',
          settleSec,
        };
      });
      const files = pickFiles(mirror, RENAMES * 2);
      await part(`${RENAMES} local renames -> NAS`, async () => {
        res.renameIdle = await withTimeout(renames(mirror, nas, files.slice(0, RENAMES), 'r'), 40_000 * RENAMES, 'renames');
      });
      await part(`${RENAMES} local renames -> NAS during a re-walk (syncNow)`, async () => {
        const running = async (): Promise<boolean> => (await uiCall<Status>(e.windowUrl!, 'status')).walk.running;
        const start = async (): Promise<boolean> => {
          await uiCall(e.windowUrl!, 'syncNow');
          const t = performance.now();
          while (performance.now() - t < 10_000) {
            if (await running()) return true;
            await sleep(10);
          }
          return false;
        };
        res.renameRewalk = await withTimeout(
          renames(mirror, nas, files.slice(RENAMES), 'w', { start, running }),
          60_000 * RENAMES,
          'renames during a re-walk',
        );
      });
      res.first!.peakRssMb = Math.round(e.peakKb() / 1024);
      await part('stop (SIGTERM)', async () => {
        const s = await e.stop(budget(n, 30, 300));
        res.stopSec = sec(s.ms);
        res.stopClean = s.clean;
      });
    }
    eng = undefined;

    if (!floors) await runOk('sync', [], { timeoutMs: budget(n, 60, 600), what: 'sync' });
    else if (!res.first) res.errors.push('no finished placeholder tree: the cp -r and find floors were skipped');
    else
      await part('folders, cp -r and find of the placeholder tree', async () => {
        const ex = (
          await runOk('sh', ['-c', 'find "$1" -path "$1/.nas-mirror" -prune -o -type d -print | wc -l', 'sh', mirror], {
            timeoutMs: budget(n, 60, 600),
            what: 'find -type d',
          })
        ).stdout.trim();
        res.mirrorFolders = Number(ex);
        const entries = readdirSync(mirror)
          .filter((x) => x !== '.nas-mirror')
          .map((x) => join(mirror, x));
        // a copy per rep, removed with the rest at the end (see `bases`: nothing big is deleted mid-run)
        const dest = (rep: number): string => join(base, `cp-${rep}`);
        // best of two each: the machine is shared, a floor should not carry someone else's load
        // (a second rep that fails or times out keeps the first one's figure; the error is listed)
        const cps: number[] = [],
          finds: number[] = [];
        const keep = (): void => {
          res.cpSec = cps.length ? sec(Math.min(...cps)) : undefined;
          res.findSec = finds.length ? sec(Math.min(...finds)) : undefined;
          res.floorRuns = { cpSec: cps.map(sec), findSec: finds.map(sec) };
        };
        try {
          for (let rep = 0; rep < 2; rep++) {
            mkdirSync(dest(rep));
            cps.push((await runOk('cp', ['-r', ...entries, dest(rep)], { timeoutMs: budget(n, 120, 1800), what: 'cp -r' })).ms);
            keep();
            const f = await runOk('sh', ['-c', 'find "$1" | wc -l', 'sh', mirror], { timeoutMs: budget(n, 60, 600), what: 'find | wc -l' });
            finds.push(f.ms);
            res.findEntries = Number(f.stdout.trim());
            keep();
          }
        } finally {
          // the copies' writeback is flushed here, not during the restart timed next
          await runOk('sync', [], { timeoutMs: budget(n, 60, 600), what: 'sync' });
        }
      });

    if (res.first) {
      await part('restart to ready (after SIGTERM)', async () => {
        const s = await start('restart', budget(n, 60, 900));
        eng = s.eng;
        res.restart = {
          readySec: sec(s.eng.readyMs),
          watches: inotifyWatches(s.eng.pid),
          peakRssMb: Math.round(s.eng.peakKb() / 1024),
          stallsMs: s.stalls,
          controlMs: s.control,
        };
        const url = s.eng.windowUrl;
        res.restart.after = await afterReady(
          s.eng.pid,
          STEADY_SEC,
          url ? async () => (await uiCall<Status>(url, 'status')).walk.running : undefined,
        );
        res.restart.peakRssMb = Math.round(s.eng.peakKb() / 1024);
        await s.eng.kill9();
      });
      await part('restart to ready (after kill -9)', async () => {
        const s = await start('restart after kill -9', budget(n, 60, 900));
        eng = s.eng;
        res.restartAfterKill9 = {
          readySec: sec(s.eng.readyMs),
          watches: inotifyWatches(s.eng.pid),
          peakRssMb: Math.round(s.eng.peakKb() / 1024),
        };
        await s.eng.stop(budget(n, 30, 300));
      });
    }
    return res;
  } finally {
    await killAll();
    if (svc) await svc.kill9().catch(() => undefined);
  }
}

/**
 * Targets: issue 24's for memory (peak at any moment of a first run or a restart; steady, a
 * minute after ready), the restart and the minute after a restart's ready; issue 8's for the
 * first run's time. The 100k column up to 100k objects, the 1M column above.
 */
function targets(n: number) {
  const big = n > 100_000;
  return {
    peakMb: big ? 600 : 150,
    steadyMb: big ? 300 : 80,
    restartSec: big ? 2 : 0.5,
    idlePct: big ? 2 : 1,
    readyCapSec: big ? 180 : Infinity,
  };
}
const mark = (ok: boolean | undefined): string => (ok === undefined ? '' : ok ? ' ✓' : ' ✗');
const fmt = (x: number | undefined, unit: string): string => (x === undefined || Number.isNaN(x) ? '-' : `${x}${unit}`);

function renderTable(rs: readonly SizeResult[], cliStartSec: number): string {
  // the floors are measured once per size (with this checkout): the other version's column uses them too
  const floorOf = (r: SizeResult): SizeResult =>
    r.cpSec !== undefined ? r : (rs.find((x) => x.objects === r.objects && x.cpSec !== undefined) ?? r);
  const rows: [string, (r: SizeResult) => string][] = [
    [
      'objects / NAS folders / mirror folders (find -type d)',
      (r) => `${r.objects} / ${fmt(r.nasFolders, '')} / ${fmt(r.mirrorFolders, '')}`,
    ],
    ['floor: walk alone (`sync --once`, wall)', (r) => `${fmt(r.walkAloneSec, ' s')} (${fmt(r.walkAloneInternalSec, ' s')} inside)`],
    ['floor: `cp -r` of the placeholder tree (best of 2)', (r) => fmt(r.cpSec, ' s')],
    ['floor: `find DIR \\| wc -l` (best of 2)', (r) => `${fmt(r.findSec, ' s')} (${fmt(r.findEntries, '')} entries)`],
    [
      'first run to ready (`watching`)',
      (r) => {
        if (!r.first) return '✗ not ready';
        const f = floorOf(r);
        const floor = f.walkAloneSec !== undefined && f.cpSec !== undefined ? 1.5 * (f.walkAloneSec + f.cpSec) : undefined;
        const cap = Math.min(floor ?? Infinity, targets(r.objects).readyCapSec);
        return `${r.first.readySec} s${mark(cap === Infinity ? undefined : r.first.readySec <= cap)} (≤ ${floor === undefined ? '?' : r1(floor)} s = 1.5×(walk + cp)${targets(r.objects).readyCapSec < Infinity ? ', ≤ 180 s' : ''})`;
      },
    ],
    [
      'engine peak RSS (VmHWM, first run)',
      (r) =>
        r.first ? `${r.first.peakRssMb} MB${mark(r.first.peakRssMb <= targets(r.objects).peakMb)} (≤ ${targets(r.objects).peakMb})` : '-',
    ],
    [
      `first run, the ${STEADY_SEC} s after ready: engine RSS at the end; its CPU meanwhile (the index catching up: status says so)`,
      (r) => {
        const a = r.first?.after;
        return a ? `${a.rssMb} MB${mark(a.rssMb <= targets(r.objects).steadyMb)} (≤ ${targets(r.objects).steadyMb}); ${a.cpuPct} %` : '-';
      },
    ],
    [
      'inotify watches at ready',
      (r) =>
        r.first
          ? `${r.first.watches}${mark(r.mirrorFolders === undefined ? undefined : r.first.watches <= r.mirrorFolders + 64)} (≤ folders + 64)`
          : '-',
    ],
    [
      'UI server GET during the first walk: max (p99, n)',
      (r) =>
        r.first?.stallsMs
          ? `${r.first.stallsMs.max} ms${mark(r.first.stallsMs.max <= 50)} (${r.first.stallsMs.p99} ms, ${r.first.stallsMs.n}) (≤ 50)`
          : '-',
    ],
    [
      'same GET of an idle control process meanwhile: max (p99)',
      (r) => (r.first?.controlMs ? `${r.first.controlMs.max} ms (${r.first.controlMs.p99} ms)` : '-'),
    ],
    [
      'browser mode (engine in its own process): UI-server process event-loop delay during a first walk: max (p99); idle control meanwhile',
      (r) =>
        r.browserMode
          ? `${r.browserMode.walkLoopMaxMs} ms${mark(r.browserMode.walkLoopMaxMs <= 50)} (${r.browserMode.walkLoopP99Ms} ms); control ${r.browserMode.controlMaxMs} ms (${r.browserMode.controlP99Ms} ms) (≤ 50)`
          : '-',
    ],
    [
      'idle CPU of the engine (window, re-walk in it?)',
      (r) =>
        r.idle
          ? `${r.idle.engineCpuPct} %${mark(r.idle.engineCpuPct <= targets(r.objects).idlePct)} (≤ ${targets(r.objects).idlePct}; ${r.idle.windowSec} s from ${r.idle.settleSec} s after ready, re-walk: ${r.idle.rewalk})`
          : '-',
    ],
    [
      'restart to ready, nothing changed (SIGTERM)',
      (r) =>
        r.restart
          ? `${r.restart.readySec} s${mark(r.restart.readySec <= targets(r.objects).restartSec)} (≤ ${targets(r.objects).restartSec})`
          : '-',
    ],
    [
      'restart: engine peak RSS (VmHWM, to a minute after ready)',
      (r) =>
        r.restart
          ? `${r.restart.peakRssMb} MB${mark(r.restart.peakRssMb <= targets(r.objects).peakMb)} (≤ ${targets(r.objects).peakMb})`
          : '-',
    ],
    [
      `restart, the ${STEADY_SEC} s after ready: engine RSS at the end; its CPU meanwhile (the catch-up walk in it)`,
      (r) => {
        const a = r.restart?.after;
        if (!a) return '-';
        const walk =
          a.walkEndSec === undefined
            ? ''
            : a.walkSeen === false
              ? '; no catch-up walk seen running (ended within its first second)'
              : a.walkEndSec === null
                ? '; the catch-up walk still running at its end'
                : `; the catch-up walk ended at ${a.walkEndSec} s (RSS then ${a.rssAtWalkEndMb} MB)`;
        return `${a.rssMb} MB${mark(a.rssMb <= targets(r.objects).steadyMb)} (≤ ${targets(r.objects).steadyMb}); ${a.cpuPct} %${mark(a.cpuPct <= targets(r.objects).idlePct)} (≤ ${targets(r.objects).idlePct})${walk}`;
      },
    ],
    [
      'restart to ready after kill -9',
      (r) =>
        r.restartAfterKill9
          ? `${r.restartAfterKill9.readySec} s${mark(r.restartAfterKill9.readySec <= targets(r.objects).restartSec)} (≤ ${targets(r.objects).restartSec})`
          : '-',
    ],
    [
      'local rename -> NAS: p50 (max, n)',
      (r) =>
        r.renameIdle
          ? `${r.renameIdle.p50} s${mark(r.renameIdle.p50 <= 0.5)} (${r.renameIdle.max} s, ${r.renameIdle.n}${r.renameIdle.failed ? `, ${r.renameIdle.failed} failed` : ''}) (≤ 0.5)`
          : '-',
    ],
    [
      'same, during a re-walk: p50 (max, n, walk running at rename / at NAS confirm)',
      (r) =>
        r.renameRewalk
          ? `${r.renameRewalk.p50} s${mark(r.renameRewalk.p50 <= 0.5)} (${r.renameRewalk.max} s, ${r.renameRewalk.n}, ${r.renameRewalk.duringWalk} / ${r.renameRewalk.walkStillRunning}${r.renameRewalk.failed ? `, ${r.renameRewalk.failed} failed` : ''}) (≤ 0.5)`
          : '-',
    ],
  ];
  const head = `| figure | ${rs.map((r) => `${r.objects}${BEFORE ? ` ${r.version}` : ''}`).join(' | ')} |\n|---|${rs.map(() => '---|').join('')}`;
  const body = rows.map(([label, f]) => `| ${label} | ${rs.map(f).join(' | ')} |`).join('\n');
  const errors = rs.flatMap((r) => r.errors.map((e) => `- ${r.objects}: ${e}`)).join('\n');
  const load = rs
    .map(
      (r) =>
        `- ${r.objects}: at the first run ${r.load['first run to ready'] ?? '?'}; at cp -r ${r.load['folders, cp -r and find of the placeholder tree'] ?? '?'}`,
    )
    .join('\n');
  const form =
    FORM === 'bundle'
      ? "each version's bundle (dist/main/cli/nas-mirror.mjs), as the app ships its engine"
      : 'bin/nas-mirror.js through tsx';
  return `${head}\n${body}\n\nThe engine ran as ${form}. Every CLI time includes the CLI's own start (${cliStartSec} s for \`nas-mirror --help\`). The machine meanwhile (2 cores shared):\n${load}${errors ? `\n\nErrors:\n${errors}` : ''}`;
}

/**
 * The filesystem the temp folders are on, and whether it keeps a journal (ext4: a
 * `/proc/fs/jbd2/<device>-<n>` entry). Without one, creates after mass deletes are slow in the
 * kernel (see `bases`), and the figures are not what a user's disk shows: say so.
 */
function tempFilesystem(dir: string): { mount: string; device: string; type: string; journal: boolean | null } {
  const real = realpathSync(dir);
  let best = { mount: '/', device: '?', type: '?' };
  try {
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [device, mount, type] = line.split(' ');
      if (!device || !mount || !type) continue;
      const m = mount.replace(/\\040/g, ' ');
      if ((real === m || real.startsWith(m.endsWith('/') ? m : `${m}/`)) && m.length >= best.mount.length)
        best = { mount: m, device, type };
    }
  } catch {
    /* not Linux */
  }
  let journal: boolean | null = null;
  if (best.type === 'ext4') {
    const dev = best.device.split('/').pop() ?? '';
    try {
      journal = readdirSync('/proc/fs/jbd2').some((j) => j.startsWith(`${dev}-`));
    } catch {
      journal = false;
    }
  }
  return { ...best, journal };
}

/**
 * Every size's temp folder, removed only when the whole run is over: on ext4 without a
 * journal (this workplace's disk) the kernel skips each recently deleted inode one by one
 * when it creates a file, so creating files within minutes of deleting many is quadratic
 * (100k empty files: 2 s of kernel time on a quiet disk, 72 s right after a delete). A step
 * that created a tree no longer removes it before the next step creates one.
 */
const bases: string[] = [];
const removeBases = (): void => {
  for (const b of bases.splice(0)) {
    say(`removing ${b}`);
    rmSync(b, { recursive: true, force: true, maxRetries: 5 });
  }
};

async function main(): Promise<void> {
  say(`sizes ${SIZES.join(', ')}; idle window ${IDLE_SEC} s; ${RENAMES} renames each; temp under ${TMP}`);
  const fs = tempFilesystem(TMP);
  say(
    `temp filesystem: ${fs.type} on ${fs.device} at ${fs.mount}${fs.journal === null ? '' : fs.journal ? ', with a journal' : ', WITHOUT a journal'}`,
  );
  if (fs.journal === false)
    say(
      'WARNING: ext4 without a journal makes every create after a mass delete scan the recently deleted inodes (quadratic; a desktop\'s ext4 has a journal). Put SCALE_TMP on a journaled filesystem: bench/README.md, "bench:scale".',
    );
  await ensureRenderer(); // a stale window bundle would otherwise be rebuilt inside the first run's time
  const results: SizeResult[] = [];
  const now = { ...worktree('.', ''), version: 'now' as const };
  const codes = BEFORE
    ? [{ ...worktree(BEFORE, join(mkdtempSync(join(TMP, 'nm-scale-code-')), 'before')), version: 'before' as const }, now]
    : [now];
  if (BEFORE) say(`before: ${codes[0]!.commit}; now: ${now.commit}`);
  for (const code of codes) await prepare(code.root);
  const cliStart = await runOk(NODE, [entryOf(ROOT), '--help'], { timeoutMs: 60_000, what: 'nas-mirror --help' });
  for (const n of SIZES) {
    for (const code of codes) {
      const base = mkdtempSync(join(TMP, `nm-scale-${n}-${code.version}-`));
      bases.push(base);
      try {
        results.push(await measureSize(n, base, code, code.version === 'now'));
      } finally {
        await killAll(); // nothing of this size writes into its folder while the next size runs
      }
    }
  }
  removeWorktrees();
  removeBases();
  const out = {
    date: new Date().toISOString(),
    tempFilesystem: fs,
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model ?? '',
      memGb: Math.round(totalmem() / 2 ** 30),
      inotifyMaxUserWatches: Number(readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8').trim()),
    },
    cliStartSec: sec(cliStart.ms),
    idleWindowSec: IDLE_SEC,
    ...(BEFORE ? { before: codes[0]!.commit } : {}),
    form: FORM,
    sizes: results,
  };
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'scale.json'), JSON.stringify(out, null, 2) + '\n');
  process.stdout.write(renderTable(results, out.cliStartSec) + '\n');
}

/** A version's engine in the chosen form: its own build/bundle.mjs makes its bundle. */
async function prepare(root: string): Promise<void> {
  if (FORM !== 'bundle') return;
  await runOk(NODE, [join(root, 'build/bundle.mjs'), 'app'], { timeoutMs: 300_000, what: `bundle of ${root}` });
  if (!existsSync(entryOf(root)))
    throw new Error(`${root}'s build/bundle.mjs makes no ${entryOf(root)} (older than s30): use SCALE_FORM=tsx, or a later SCALE_BEFORE`);
}

const cleanup = (sig: NodeJS.Signals): void => {
  say(`${sig}: killing the children, removing the temp folders`);
  void killAll().then(() => {
    removeWorktrees();
    removeBases();
    process.exit(130);
  });
};
process.once('SIGINT', cleanup);
process.once('SIGTERM', cleanup);
try {
  await main();
} finally {
  await killAll();
  removeWorktrees();
}
