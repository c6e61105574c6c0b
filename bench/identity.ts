/**
 * `npm run bench:identity`: what it costs that inodes are evidence, never identity (commit
 * 8635ecb: main/local/volume.ts, main/local/pair-by-place.ts). The engine probes the mirror's
 * disk at each start; where the file ids cannot be trusted (exFAT/FAT, a changed mount key,
 * the first start after the upgrade) it reads every folder and recognises entries by place.
 *
 * For each size of IDENTITY_SIZES (default 100000,1000000), side by side in one run:
 * `nas-service demo` served in its own process; a journaled ext4 loop image (state folders,
 * the NAS data and the ext4 mirror) and an exFAT FUSE loop image per size (the exFAT mirror);
 * `nas-mirror run` as a child (bench/scale-probe.ts), ready = its `watching` line.
 * - ext4: the code before (IDENTITY_BEFORE, 2954e12, a git worktree) makes the first run and
 *   restarts; then the code now (IDENTITY_NOW, default HEAD as a worktree; `.` = this working
 *   tree) restarts on the same state and mirror: its first start after the upgrade (the
 *   state schema migrated, every folder read by place once), then normal restarts.
 * - exFAT: the code now: first run, restarts (every start reads by place), then one
 *   placeholder renamed while stopped, unmount + mount (new inode numbers) and a restart
 *   through a counting proxy: exactly one change must reach the NAS (the proxy's write
 *   requests, the NAS tree before/after, the engine's status), else the bench fails (exit 1).
 * - floors: `find DIR -printf '%i %s %T@\n' | wc -l` of each mirror (warm, best of 2; exFAT
 *   also right after a remount).
 * Each engine run: time to ready, peak RSS (VmHWM) at ready and over the run, then the run is
 * left to settle (the engine under 5 % of a core over 5 s, at most IDENTITY_SETTLE_SEC) and
 * stopped with SIGTERM. Env: IDENTITY_RESTARTS (2 per contender), IDENTITY_TMP (/var/tmp:
 * images, mounts, worktrees), IDENTITY_EXFAT_GB (4), IDENTITY_STEP_TIMEOUT_SEC. Needs root
 * (losetup, mount), mkfs.ext4, mkfs.exfat, mount.exfat-fuse. Every mount, loop device,
 * worktree and image is removed at the end, also on failure and on Ctrl-C.
 * Table to stdout, JSON to bench/results/identity.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, Agent as HttpAgent, type Server } from 'node:http';
import { cpus, totalmem } from 'node:os';
import { join, parse } from 'node:path';
import Database from 'better-sqlite3';
import { engineEnv } from '../main/host/engine-env.js';
import { probeDiskIdentity, type DiskIdentity } from '../main/local/volume.js';
import { markerPath } from '../main/engine/mirror-root.js';
import { spawnServiceProcess, type ServiceProcess } from '../server/testing.js';
import {
  CLK_TCK,
  cpuTicks,
  killAll,
  machineLoad,
  nasApi,
  pickFiles,
  ROOT,
  runOk,
  runTimed,
  sleep,
  startEngine,
  track,
  withTimeout,
} from './scale-probe.js';
import { removeWorktrees, worktree } from './worktree.js';

const SIZES = (process.env['IDENTITY_SIZES'] ?? '100000,1000000')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => n > 0);
const RESTARTS = Math.max(1, Number(process.env['IDENTITY_RESTARTS'] ?? 2));
const BEFORE_REF = process.env['IDENTITY_BEFORE'] ?? '2954e12';
const NOW_REF = process.env['IDENTITY_NOW'] ?? 'HEAD';
const TMP = process.env['IDENTITY_TMP'] ?? '/var/tmp';
const EXFAT_GB = Number(process.env['IDENTITY_EXFAT_GB'] ?? 4);
const SETTLE_MAX_MS = Number(process.env['IDENTITY_SETTLE_SEC'] ?? 180) * 1000;
const FIXED_TIMEOUT = process.env['IDENTITY_STEP_TIMEOUT_SEC'] ? Number(process.env['IDENTITY_STEP_TIMEOUT_SEC']) * 1000 : undefined;
const NODE = process.execPath;
const sec = (ms: number): number => Math.round(ms / 10) / 100;
const mb = (kb: number): number => Math.round(kb / 1024);
const say = (msg: string): void => {
  process.stderr.write(`[identity ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
};
/** A step's timeout: `minSec`, or `perMillionSec` scaled to the size, whichever is larger. */
const budget = (n: number, minSec: number, perMillionSec: number): number =>
  FIXED_TIMEOUT ?? Math.max(minSec, (n / 1e6) * perMillionSec) * 1000;

// ---- disks, worktrees: everything made here is undone by `cleanup` ----

const sh = (cmd: string, args: readonly string[], timeoutMs = 300_000): string =>
  execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
const isMounted = (dir: string): boolean =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .some((l) => l.split(' ')[4] === dir);

interface LoopDisk {
  kind: 'ext4' | 'exfat';
  image: string;
  dir: string;
  dev: string;
}
const disks: LoopDisk[] = [];

function mountDisk(d: LoopDisk): void {
  if (d.kind === 'exfat') sh('mount.exfat-fuse', [d.dev, d.dir]);
  // noinit_itable: no background inode-table writes (ext4lazyinit) during the timed runs
  else sh('mount', ['-t', 'ext4', '-o', 'noinit_itable', d.dev, d.dir]);
}
async function unmountDisk(d: LoopDisk): Promise<void> {
  sh('sync', []);
  for (let i = 0; ; i++) {
    try {
      sh('umount', [d.dir]);
      break;
    } catch (e) {
      if (i >= 10) throw e;
      await sleep(1000);
    }
  }
  for (let i = 0; i < 50 && isMounted(d.dir); i++) await sleep(100); // a FUSE daemon goes on its own
}
/** A sparse image, formatted, on a loop device of its own, mounted at a fresh folder. */
function makeDisk(kind: LoopDisk['kind'], base: string, name: string, size: string): LoopDisk {
  const image = join(base, `${name}.img`),
    dir = join(base, name);
  mkdirSync(dir, { recursive: true });
  sh('truncate', ['-s', size, image]);
  const d: LoopDisk = { kind, image, dir, dev: '' };
  disks.push(d);
  // 8M inodes: the ext4 mirror, the NAS data and the state folders of every size fit
  if (kind === 'ext4') sh('mkfs.ext4', ['-q', '-F', '-N', '8000000', image]);
  else sh('mkfs.exfat', [image]);
  d.dev = sh('losetup', ['-f', '--show', image]).trim();
  mountDisk(d);
  return d;
}
function destroyDisks(): void {
  for (const d of disks.splice(0).reverse()) {
    try {
      if (isMounted(d.dir)) {
        try {
          sh('umount', [d.dir], 120_000);
        } catch {
          sh('umount', ['-l', d.dir], 60_000);
        }
      }
      if (d.dev) sh('losetup', ['-d', d.dev]);
      rmSync(d.image, { force: true });
      rmSync(d.dir, { recursive: true, force: true });
      say(`removed ${d.kind} disk ${d.dev} (${d.image})`);
    } catch (e) {
      say(`WARNING: could not remove ${d.kind} disk ${d.dev} at ${d.dir}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
/** The FUSE daemon serving an exFAT disk (`mount.exfat-fuse DEV DIR`): its CPU is part of every read there. */
function fusePid(d: LoopDisk): number | undefined {
  if (d.kind !== 'exfat') return undefined;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      if (argv[0]?.endsWith('mount.exfat-fuse') && argv.includes(d.dev) && argv.includes(d.dir)) return Number(p);
    } catch {
      /* exited */
    }
  }
  return undefined;
}
const cpuSecOf = (pid: number | undefined): number | undefined => {
  if (pid === undefined) return undefined;
  try {
    return cpuTicks(pid) / CLK_TCK;
  } catch {
    return undefined;
  }
};
const r2 = (x: number): number => Math.round(x * 100) / 100;

// ---- a counting proxy in front of the NAS ----

interface Write {
  method: string;
  path: string;
  ifMatch?: string;
  status?: number;
}
/**
 * The client's If-Match probe (main/client/service-client.ts, `probeIfMatch`): once per
 * process, before its first conditional write, an empty patch (it changes nothing) with an
 * If-Match no object has, which the NAS must refuse with 412. Not one of the user's changes.
 */
const isIfMatchProbe = (w: Write): boolean => w.ifMatch === '"nas-mirror-if-match-probe"' && w.status === 412;
/** Forwards every request to `target`; remembers each one that is not a GET or HEAD. */
async function countingProxy(
  target: string,
): Promise<{ url: string; writes: Write[]; requests: () => number; close: () => Promise<void> }> {
  const t = new URL(target);
  const agent = new HttpAgent({ keepAlive: true });
  const writes: Write[] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    n++;
    const ifMatch = req.headers['if-match'];
    const w: Write | undefined =
      req.method === 'GET' || req.method === 'HEAD'
        ? undefined
        : { method: req.method ?? '?', path: (req.url ?? '').split('?')[0]!, ...(typeof ifMatch === 'string' ? { ifMatch } : {}) };
    if (w) writes.push(w);
    const up = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers, agent }, (ur) => {
      if (w) w.status = ur.statusCode;
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    writes,
    requests: () => n,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      agent.destroy();
    },
  };
}

/** The NAS tree as the service holds it: id -> parent row, name (from its database, read only). */
function nasTree(dataDir: string): Map<string, string> {
  const db = new Database(join(dataDir, 'service.db'), { readonly: true, fileMustExist: true });
  try {
    const m = new Map<string, string>();
    for (const r of db.prepare('SELECT id, parent, name, deleting FROM objects').iterate() as Iterable<{
      id: string;
      parent: number;
      name: string;
      deleting: number;
    }>)
      m.set(r.id, `${r.parent}/${r.name}${r.deleting ? ' (deleting)' : ''}`);
    return m;
  } finally {
    db.close();
  }
}
function treeDiff(a: Map<string, string>, b: Map<string, string>): { id: string; before?: string; after?: string }[] {
  const out: { id: string; before?: string; after?: string }[] = [];
  for (const [id, v] of a) if (b.get(id) !== v) out.push({ id, before: v, after: b.get(id) });
  for (const [id, v] of b) if (!a.has(id)) out.push({ id, after: v });
  return out;
}

// ---- figures ----

export interface EngineRun {
  code: 'before' | 'now';
  what: string;
  readySec: number;
  peakRssMbAtReady: number;
  /** Peak RSS over the whole run (ready, then the catch-up walk and the settling). */
  peakRssMb: number;
  /** CPU time (user + system) of the engine from spawn to ready, and of the FUSE daemon meanwhile (exFAT). */
  cpuSecToReady: number;
  fuseCpuSecToReady?: number;
  settleSec: number;
  stopSec: number;
  stopClean: boolean;
  /** The engine's activity lines of interest (recognised by place, held, renamed...), their summary. */
  activity: string[];
  /** Entries recognised by place whose inode had changed (the engine's activity line; none when no inode changed). */
  recognised?: number;
  load: string;
}
interface Floor {
  runsSec: number[];
  bestSec: number;
  entries: number;
  load: string;
}
interface RemountCheck {
  renamed: { from: string; to: string; nasId: string };
  readySec: number;
  peakRssMbAtReady: number;
  peakRssMb: number;
  cpuSecToReady: number;
  fuseCpuSecToReady?: number;
  /** From the restart's spawn until the NAS answered with the new name. */
  nasConfirmedSec?: number;
  settleSec: number;
  /** Write requests (not GET/HEAD) that went through the proxy during the restart, the If-Match probe included. */
  writes: Write[];
  /** Of those, the ones that are not the client's If-Match probe (a refused no-op): must be exactly the one rename. */
  changes: Write[];
  requests: number;
  nasChanged: { id: string; before?: string; after?: string }[];
  status: { state: string; outboxPending: number; conflicts: number; heldDeletes: number } | undefined;
  inodes: { sampled: number; renumbered: number };
  recognised?: number;
  activity: string[];
  ok: boolean;
  problems: string[];
  load: string;
}
export interface SizeResult {
  objects: number;
  demoSec?: number;
  disks: Record<string, DiskIdentity | undefined>;
  ext4: { floor?: Floor; firstRunBefore?: EngineRun; restartsBefore: EngineRun[]; upgradeRestart?: EngineRun; restartsNow: EngineRun[] };
  exfat: { floor?: Floor; floorAfterRemount?: Floor; firstRunNow?: EngineRun; restartsNow: EngineRun[]; remount?: RemountCheck };
  errors: string[];
}

/** Waits until the engine used under 5 % of a core over 5 s (at most SETTLE_MAX_MS); seconds waited. */
async function settle(pid: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    let a: number;
    try {
      a = cpuTicks(pid);
    } catch {
      break;
    }
    await sleep(5000);
    let b: number;
    try {
      b = cpuTicks(pid);
    } catch {
      break;
    }
    if ((b - a) / CLK_TCK / 5 < 0.05 || performance.now() - t0 > SETTLE_MAX_MS) break;
  }
  return sec(performance.now() - t0);
}

const activityOf = (line: string): string | undefined => {
  if (!line.startsWith('{')) return undefined;
  try {
    const j = JSON.parse(line) as { msg?: string; summary?: string; reason?: string };
    if (!['recognised', 'held', 'renamed', 'moved', 'deleted', 'conflict', 'restored'].includes(j.msg ?? '')) return undefined;
    return `${j.msg}: ${j.summary ?? ''}${j.msg === 'recognised' || j.msg === 'held' ? ` (${j.reason ?? ''})` : ''}`.slice(0, 400);
  } catch {
    return undefined;
  }
};

async function floor(dir: string, n: number): Promise<Floor> {
  const runs: number[] = [];
  let entries = 0;
  const load = machineLoad();
  for (let i = 0; i < 2; i++) {
    const r = await runOk('sh', ['-c', 'find "$1" -printf \'%i %s %T@\\n\' | wc -l', 'sh', dir], {
      timeoutMs: budget(n, 120, 1200),
      what: 'find -printf | wc -l',
    });
    runs.push(r.ms);
    entries = Number(r.stdout.trim());
  }
  return { runsSec: runs.map(sec), bestSec: sec(Math.min(...runs)), entries, load };
}

/** Up to `count` entries (files and folders) of the mirror, breadth first, outside `.nas-mirror`. */
function sampleEntries(mirror: string, count: number): string[] {
  const out: string[] = [];
  const queue = [''];
  while (queue.length && out.length < count) {
    const rel = queue.shift()!;
    for (const e of readdirSync(join(mirror, rel), { withFileTypes: true })) {
      if (rel === '' && e.name === '.nas-mirror') continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) queue.push(r);
      out.push(r);
      if (out.length >= count) break;
    }
  }
  return out;
}
const inoOf = (p: string): string | undefined => {
  try {
    return lstatSync(p, { bigint: true }).ino.toString();
  } catch {
    return undefined;
  }
};

async function measureSize(n: number, ext4: LoopDisk, exfat: LoopDisk, before: string, now: string): Promise<SizeResult> {
  const res: SizeResult = { objects: n, disks: {}, ext4: { restartsBefore: [], restartsNow: [] }, exfat: { restartsNow: [] }, errors: [] };
  const part = async (what: string, fn: () => Promise<void>): Promise<boolean> => {
    say(`${n}: ${what}... (${machineLoad()})`);
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
  const base = join(ext4.dir, `n${n}`);
  const nasDir = join(base, 'nas');
  const mirrorE = join(base, 'mirror'),
    stateE = join(base, 'state');
  const mirrorX = join(exfat.dir, 'mirror'),
    stateX = join(base, 'state-exfat');
  mkdirSync(base, { recursive: true });
  let svc: ServiceProcess | undefined;
  let token = '';
  const env = (): NodeJS.ProcessEnv => engineEnv({ ...process.env, NAS_TOKEN: token });
  const args = (url: string, state: string, mirror: string): string[] => [
    'run',
    '--device',
    url,
    '--state',
    state,
    '--dir',
    mirror,
    '--token-env',
    'NAS_TOKEN',
  ];

  /** One engine run: spawn to ready, settle, SIGTERM. */
  const engineRun = async (
    code: EngineRun['code'],
    what: string,
    url: string,
    state: string,
    mirror: string,
    disk: LoopDisk,
    readyBudget: number,
  ): Promise<EngineRun> => {
    const load = machineLoad();
    const activity: string[] = [];
    const fuse = fusePid(disk),
      fuse0 = cpuSecOf(fuse);
    const eng = await startEngine(args(url, state, mirror), env(), readyBudget, undefined, {
      root: code === 'before' ? before : now,
      onLine: (l) => {
        const a = activityOf(l);
        if (a && activity.length < 20) activity.push(a);
      },
    });
    const cpu = cpuSecOf(eng.pid) ?? NaN,
      fuse1 = cpuSecOf(fuse);
    const atReady = eng.peakKb();
    say(`${n}: ${what} (${code}): ready in ${sec(eng.readyMs)} s, ${mb(atReady)} MB`);
    const settleSec = await settle(eng.pid);
    const peak = eng.peakKb();
    const stop = await eng.stop(budget(n, 60, 300));
    const rec = activity.map((a) => /^recognised: recognised (\d+) entr/.exec(a)).find(Boolean);
    return {
      code,
      what,
      readySec: sec(eng.readyMs),
      peakRssMbAtReady: mb(atReady),
      peakRssMb: mb(peak),
      cpuSecToReady: r2(cpu),
      ...(fuse0 !== undefined && fuse1 !== undefined ? { fuseCpuSecToReady: r2(fuse1 - fuse0) } : {}),
      settleSec,
      stopSec: sec(stop.ms),
      stopClean: stop.clean,
      activity,
      ...(rec ? { recognised: Number(rec[1]) } : {}),
      load,
    };
  };
  const firstBudget = budget(n, 300, 3600),
    restartBudget = budget(n, 120, 1200);

  try {
    if (
      !(await part('demo library, token, service', async () => {
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
        track(svc.child);
      }))
    )
      return res;
    const url = svc!.baseUrl;

    // ---- ext4: the code before makes the mirror; before's restarts; now's upgrade restart and restarts
    if (
      await part('ext4: first run, code before', async () => {
        res.ext4.firstRunBefore = await engineRun('before', 'first run', url, stateE, mirrorE, ext4, firstBudget);
      })
    ) {
      for (let i = 0; i < RESTARTS; i++)
        await part(`ext4: restart ${i + 1}, code before`, async () => {
          res.ext4.restartsBefore.push(await engineRun('before', `restart ${i + 1}`, url, stateE, mirrorE, ext4, restartBudget));
        });
      if (
        await part('ext4: first restart after the upgrade, code now', async () => {
          res.ext4.upgradeRestart = await engineRun('now', 'first restart after the upgrade', url, stateE, mirrorE, ext4, restartBudget);
        })
      ) {
        for (let i = 0; i < RESTARTS; i++)
          await part(`ext4: restart ${i + 1}, code now`, async () => {
            res.ext4.restartsNow.push(await engineRun('now', `restart ${i + 1}`, url, stateE, mirrorE, ext4, restartBudget));
          });
      }
      await part('ext4: floor find', async () => {
        res.ext4.floor = await floor(mirrorE, n);
      });
      try {
        res.disks['ext4'] = probeDiskIdentity(mirrorE, markerPath(mirrorE));
      } catch {
        /* reported as missing */
      }
    }

    // ---- exFAT: the code now only (first run, restarts by place, remount + one rename)
    if (
      await part('exFAT: first run, code now', async () => {
        res.exfat.firstRunNow = await engineRun('now', 'first run', url, stateX, mirrorX, exfat, firstBudget);
      })
    ) {
      for (let i = 0; i < RESTARTS; i++)
        await part(`exFAT: restart ${i + 1}, code now`, async () => {
          res.exfat.restartsNow.push(await engineRun('now', `restart ${i + 1}`, url, stateX, mirrorX, exfat, restartBudget));
        });
      await part('exFAT: floor find', async () => {
        res.exfat.floor = await floor(mirrorX, n);
      });
      try {
        res.disks['exfat'] = probeDiskIdentity(mirrorX, markerPath(mirrorX));
      } catch {
        /* reported as missing */
      }
      await part('exFAT: one placeholder renamed while stopped, unmount + mount, restart: exactly one change to the NAS', async () => {
        const load = machineLoad();
        const nas = nasApi(url, token);
        const rel = pickFiles(mirrorX, 1)[0];
        if (!rel) throw new Error('no placeholder in the exFAT mirror');
        const nasId = await nas.idOf(rel);
        if (!nasId) throw new Error(`no NAS object for ${rel}`);
        const p = parse(rel);
        const to = join(p.dir, `${p.name} renamed by bench${p.ext}`);
        const newName = parse(to).base;
        const sample = sampleEntries(mirrorX, 2000).filter((s) => s !== rel);
        const inosBefore = sample.map((s) => inoOf(join(mirrorX, s)));
        renameSync(join(mirrorX, rel), join(mirrorX, to));
        await unmountDisk(exfat);
        mountDisk(exfat);
        const treeBefore = nasTree(nasDir);
        const proxy = await countingProxy(url);
        const problems: string[] = [];
        const activity: string[] = [];
        try {
          const fuse = fusePid(exfat),
            fuse0 = cpuSecOf(fuse);
          const t0 = performance.now();
          const eng = await startEngine(args(proxy.url, stateX, mirrorX), env(), restartBudget, undefined, {
            root: now,
            onLine: (l) => {
              const a = activityOf(l);
              if (a && activity.length < 20) activity.push(a);
            },
          });
          const cpu = cpuSecOf(eng.pid) ?? NaN,
            fuse1 = cpuSecOf(fuse);
          const atReady = eng.peakKb();
          say(`${n}: exFAT restart after remount: ready in ${sec(eng.readyMs)} s`);
          let nasConfirmedSec: number | undefined;
          const deadline = performance.now() + budget(n, 120, 600);
          while (performance.now() < deadline) {
            if ((await nas.getJson(`/files/${encodeURIComponent(nasId)}`)).body?.name === newName) {
              nasConfirmedSec = sec(performance.now() - t0);
              break;
            }
            await sleep(50);
          }
          if (nasConfirmedSec === undefined) problems.push(`the NAS never showed the new name "${newName}"`);
          const settleSec = await settle(eng.pid);
          const peak = eng.peakKb();
          await eng.stop(budget(n, 60, 300));
          const st = await runTimed(NODE, [join(now, 'bin/nas-mirror.js'), 'status', '--state', stateX, '--json'], {
            timeoutMs: 120_000,
            what: 'nas-mirror status',
          });
          let status: RemountCheck['status'];
          try {
            const j = JSON.parse(st.stdout) as { state: string; outbox: { pending: number }; conflicts: number; heldDeletes: number };
            status = { state: j.state, outboxPending: j.outbox.pending, conflicts: j.conflicts, heldDeletes: j.heldDeletes };
          } catch {
            problems.push(`nas-mirror status --json did not answer: ${st.stderr.slice(-300)}`);
          }
          const nasChanged = treeDiff(treeBefore, nasTree(nasDir));
          const inosAfter = sample.map((s) => inoOf(join(mirrorX, s)));
          const renumbered = inosAfter.filter((x, i) => x !== undefined && inosBefore[i] !== undefined && x !== inosBefore[i]).length;
          // the check: one PATCH of that object, nothing else written, the NAS tree changed by that one name
          const writes = proxy.writes.map((w) => ({ ...w }));
          const changes = writes.filter((w) => !isIfMatchProbe(w));
          const isPatchOf = (w: Write): boolean =>
            (w.method === 'PATCH' && w.path.endsWith(`/files/${encodeURIComponent(nasId)}`)) ||
            (w.method === 'POST' && w.path.endsWith(`/files/${encodeURIComponent(nasId)}/patch`));
          const show = (ws: readonly Write[]): string => ws.map((w) => `${w.method} ${w.path} ${w.status ?? '?'}`).join(', ') || 'none';
          if (writes.length - changes.length > 1)
            problems.push(`the If-Match probe was sent ${writes.length - changes.length} times (once per process expected)`);
          if (changes.length !== 1) problems.push(`${changes.length} changes reached the NAS (expected exactly 1): ${show(changes)}`);
          else if (!isPatchOf(changes[0]!)) problems.push(`the one change was not a patch of ${nasId}: ${show(changes)}`);
          else if (!(changes[0]!.status! >= 200 && changes[0]!.status! < 300)) problems.push(`the patch answered ${changes[0]!.status}`);
          const renamedOnNas =
            nasChanged.length === 1 && nasChanged[0]!.id === nasId && nasChanged[0]!.after?.endsWith(`/${newName}`) === true;
          if (!renamedOnNas)
            problems.push(
              `the NAS tree changed in ${nasChanged.length} object(s) (expected only ${nasId} renamed to "${newName}"): ${nasChanged
                .slice(0, 5)
                .map((c) => `${c.id}: ${c.before ?? '-'} -> ${c.after ?? '-'}`)
                .join('; ')}`,
            );
          if (status && (status.outboxPending !== 0 || status.conflicts !== 0 || status.heldDeletes !== 0))
            problems.push(`status after: ${JSON.stringify(status)}`);
          const rec = activity.map((a) => /^recognised: recognised (\d+) entr/.exec(a)).find(Boolean);
          res.exfat.remount = {
            renamed: { from: rel, to, nasId },
            readySec: sec(eng.readyMs),
            peakRssMbAtReady: mb(atReady),
            peakRssMb: mb(peak),
            cpuSecToReady: r2(cpu),
            ...(fuse0 !== undefined && fuse1 !== undefined ? { fuseCpuSecToReady: r2(fuse1 - fuse0) } : {}),
            ...(nasConfirmedSec !== undefined ? { nasConfirmedSec } : {}),
            settleSec,
            writes,
            changes,
            requests: proxy.requests(),
            nasChanged: nasChanged.slice(0, 20),
            status,
            inodes: { sampled: sample.length, renumbered },
            ...(rec ? { recognised: Number(rec[1]) } : {}),
            activity,
            ok: problems.length === 0,
            problems,
            load,
          };
        } finally {
          await proxy.close();
        }
        if (problems.length) throw new Error(`NOT exactly one change: ${problems.join(' | ')}`);
        say(
          `${n}: exactly one change reached the NAS: ${res.exfat.remount.changes[0]!.method} ${res.exfat.remount.changes[0]!.path} ${res.exfat.remount.changes[0]!.status}`,
        );
      });
      await part('exFAT: floor find right after a remount', async () => {
        await unmountDisk(exfat);
        mountDisk(exfat);
        const load = machineLoad();
        const r = await runOk('sh', ['-c', 'find "$1" -printf \'%i %s %T@\\n\' | wc -l', 'sh', mirrorX], {
          timeoutMs: budget(n, 120, 1200),
          what: 'find after remount',
        });
        res.exfat.floorAfterRemount = { runsSec: [sec(r.ms)], bestSec: sec(r.ms), entries: Number(r.stdout.trim()), load };
      });
    }
    return res;
  } finally {
    await killAll();
    if (svc) await svc.kill9().catch(() => undefined);
  }
}

// ---- the table ----

const fmtN = (n: number): string => n.toLocaleString('en-US');
const runs = (rs: readonly EngineRun[] | undefined): string => {
  if (!rs || rs.length === 0) return '-';
  const fuse = rs.every((r) => r.fuseCpuSecToReady !== undefined) ? `, FUSE ${rs.map((r) => r.fuseCpuSecToReady).join(' / ')} s` : '';
  return `${rs.map((r) => `${r.readySec}`).join(' / ')} s; ${rs.map((r) => r.peakRssMbAtReady).join(' / ')} MB (${Math.max(...rs.map((r) => r.peakRssMb))} MB); CPU engine ${rs.map((r) => r.cpuSecToReady).join(' / ')} s${fuse}`;
};
const one = (r: EngineRun | undefined): string =>
  r ? runs([r]) + (r.recognised !== undefined ? `; ${fmtN(r.recognised)} recognised by place` : '') : '-';
const fl = (f: Floor | undefined): string => (f ? `${f.bestSec} s (${fmtN(f.entries)} entries)` : '-');
const loadOf = (l: string | undefined): string => (l ? (/load ([\d.]+)/.exec(l)?.[1] ?? '?') : '?');

function renderTable(rs: readonly SizeResult[]): string {
  const rows: [string, (r: SizeResult) => string][] = [
    ["ext4 (journaled loop image): floor `find -printf '%i %s %T@' \\| wc -l` (warm, best of 2)", (r) => fl(r.ext4.floor)],
    ['ext4: first run to ready, code before (2954e12)', (r) => one(r.ext4.firstRunBefore)],
    ['ext4: restart to ready, nothing changed, code before', (r) => runs(r.ext4.restartsBefore)],
    [
      'ext4: first restart after the upgrade, code now (state schema migrated, every folder read by place once)',
      (r) => one(r.ext4.upgradeRestart),
    ],
    ['ext4: restart to ready, nothing changed, code now', (r) => runs(r.ext4.restartsNow)],
    [
      'exFAT (FUSE loop image): floor `find` (warm, best of 2; cold right after a remount)',
      (r) => `${fl(r.exfat.floor)}; cold ${r.exfat.floorAfterRemount ? `${r.exfat.floorAfterRemount.bestSec} s` : '-'}`,
    ],
    ['exFAT: first run to ready, code now', (r) => one(r.exfat.firstRunNow)],
    [
      'exFAT: restart to ready, nothing changed, code now (every start reads by place)',
      (r) =>
        runs(r.exfat.restartsNow) +
        (r.exfat.restartsNow[0]?.recognised !== undefined ? `; ${fmtN(r.exfat.restartsNow[0].recognised)} recognised by place` : ''),
    ],
    [
      'exFAT: restart after unmount + mount, one placeholder renamed while stopped',
      (r) => {
        const m = r.exfat.remount;
        if (!m) return '✗ not measured';
        const c =
          m.changes.map((x) => `${x.method} ${x.path.includes('/patch') ? '…/patch' : '…'} ${x.status ?? '?'}`).join(', ') || 'none';
        const probes = m.writes.length - m.changes.length;
        return `${m.readySec} s; ${m.peakRssMbAtReady} MB (${m.peakRssMb} MB); CPU engine ${m.cpuSecToReady} s${m.fuseCpuSecToReady !== undefined ? `, FUSE ${m.fuseCpuSecToReady} s` : ''}; renamed on the NAS at ${m.nasConfirmedSec ?? '-'} s; **changes sent: ${m.changes.length}** (${c})${m.ok ? ' ✓' : ' ✗'}${probes ? ` + ${probes} If-Match probe (412, a no-op)` : ''}; NAS objects changed: ${m.nasChanged.length}; inode numbers changed: ${m.inodes.renumbered} of ${m.inodes.sampled} sampled${m.recognised !== undefined ? `; ${fmtN(m.recognised)} recognised by place` : ''}`;
      },
    ],
    [
      'load average (1 min) at the first runs / at the remount restart',
      (r) => `${loadOf(r.ext4.firstRunBefore?.load)}, ${loadOf(r.exfat.firstRunNow?.load)} / ${loadOf(r.exfat.remount?.load)}`,
    ],
  ];
  const head = `| figure | ${rs.map((r) => `${fmtN(r.objects)} objects`).join(' | ')} |\n|---|${rs.map(() => '---|').join('')}`;
  const body = rows.map(([label, f]) => `| ${label} | ${rs.map(f).join(' | ')} |`).join('\n');
  const errors = rs.flatMap((r) => r.errors.map((e) => `- ${fmtN(r.objects)}: ${e}`)).join('\n');
  return `${head}\n${body}\n\nEngine runs: spawn of \`nas-mirror run\` to its \`watching\` line, each run of a row in turn (a / b s); peak RSS (VmHWM) at ready, and in brackets over the run until it had settled (catch-up walk included); CPU time (user + system) from spawn to ready of the engine and, on exFAT, of the FUSE daemon (mount.exfat-fuse, single-threaded) meanwhile.${errors ? `\n\nFAILED:\n${errors}` : ''}`;
}

// ---- main ----

let workDir: string | undefined;
const cleanup = (): void => {
  destroyDisks();
  removeWorktrees();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  workDir = undefined;
};

async function main(): Promise<void> {
  say(`sizes ${SIZES.join(', ')}; ${RESTARTS} restarts per contender; before ${BEFORE_REF}, now ${NOW_REF}; temp under ${TMP}`);
  workDir = mkdtempSync(join(TMP, 'nm-identity-'));
  const before = worktree(BEFORE_REF, join(workDir, 'before'));
  const now = worktree(NOW_REF, join(workDir, 'now'));
  // tsx compiles each file once and caches it: the first timed start of each version must not pay it
  for (const [name, w] of [
    ['before', before],
    ['now', now],
  ] as const) {
    const r = await runTimed(
      NODE,
      [
        join(w.root, 'bin/nas-mirror.js'),
        'run',
        '--device',
        join(workDir, 'no-such-device.json'),
        '--state',
        join(workDir, `warm-${name}`),
        '--dir',
        join(workDir, `warm-${name}-mirror`),
      ],
      { timeoutMs: 300_000, what: `warm-up of ${name}` },
    );
    say(`${name} (${w.commit.slice(0, 12)}): compiled in ${sec(r.ms)} s (exit ${r.code}, as expected without a device)`);
  }
  const ext4 = makeDisk('ext4', workDir, 'ext4', '30G');
  say(
    `ext4 on ${ext4.dev} at ${ext4.dir}; journal: ${existsSync('/proc/fs/jbd2') && readdirSync('/proc/fs/jbd2').some((j) => j.startsWith(`${ext4.dev.split('/').pop()}-`))}`,
  );
  const results: SizeResult[] = [];
  for (const n of SIZES) {
    const exfat = makeDisk('exfat', workDir, `exfat-${n}`, `${EXFAT_GB}G`);
    say(`${n}: exFAT on ${exfat.dev} at ${exfat.dir}`);
    try {
      results.push(await measureSize(n, ext4, exfat, before.root, now.root));
    } finally {
      await killAll();
    }
  }
  const out = {
    date: new Date().toISOString(),
    code: { before: before.commit, now: now.commit },
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '', memGb: Math.round(totalmem() / 2 ** 30), loadAtEnd: machineLoad() },
    restartsPerContender: RESTARTS,
    settleMaxSec: SETTLE_MAX_MS / 1000,
    sizes: results,
  };
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'identity.json'), JSON.stringify(out, null, 2) + '\n');
  process.stdout.write(renderTable(results) + '\n');
  const failed = results.some((r) => r.errors.length > 0);
  if (failed) {
    say('FAILED: see the errors under the table (bench/results/identity.json)');
    process.exitCode = 1;
  }
}

const onSignal = (sig: NodeJS.Signals): void => {
  say(`${sig}: killing the children, unmounting, removing the images and worktrees`);
  void withTimeout(killAll(), 10_000, 'kill')
    .catch(() => undefined)
    .then(() => {
      cleanup();
      process.exit(130);
    });
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
try {
  await main();
} finally {
  await killAll();
  cleanup();
}
