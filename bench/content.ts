/**
 * `npm run bench:content`: content transfer over loopback, the engine beside its floors in one
 * run. The real service in its own process (`nas-service serve`); the engine in THIS process
 * (its RSS is this process's). Download: one big file by Open (`Engine.download`) and many
 * small files by Keep on this device (a pin on their folder), against `curl` of the same
 * content URLs and `cp` of the same bytes. Upload: the same big file and small files moved into
 * the mirror folder (one rename, from a folder beside it, written over 2 s before) until the
 * creates journal is empty and the NAS lists them all, finished, at their sizes; against `curl`
 * through the resumable interface (POST, then one PUT) as another user (the engine does not
 * see those) and `cp`. Env: CONTENT_BIG_MB (1024), CONTENT_SMALL (10000), CONTENT_TMP (default
 * /dev/shm when it and free memory have room, else the temp folder), CONTENT_LOG=1 (the
 * engine's log on stderr), CONTENT_PROFILE=DIR (a CPU profile of this process per engine row),
 * CONTENT_ONLY=download|upload|window (one part: its table to stdout, the results file untouched),
 * CONTENT_ROUNDS (3: rounds of the big file, curl and the engine each, which goes first in turn; the median shown),
 * CONTENT_REWALK_MS (the engine's re-walk period: 60 s, as the app's), CONTENT_WALK_DURING=MS
 * (a walk that long into each upload's move),
 * CONTENT_TRACE=browse|search (with CONTENT_PROFILE: a Chromium trace of that window per phase),
 * CONTENT_NICE=0 (the window part with the engine and the NAS at the window's CPU priority).
 * Then the window while content moves (bench/content-window.ts): the app with a window in
 * Chromium opening, keeping and uploading the same files, its event loops measured.
 * Tables to stdout, bench/results/content.json.
 */
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { cpus, freemem, setPriority, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { ServiceClient } from '../main/client/service-client.js';
import { Engine } from '../main/engine/engine.js';
import { CREATE_CONCURRENCY, STABLE_MS } from '../main/engine/creates.js';
import { KEEP_CONCURRENCY } from '../main/engine/keep.js';
import { DEFAULT_THRESHOLD } from '../main/local/plan.js';
import { createLogger, silentLogger } from '../main/log/logger.js';
import { spawnServiceProcess, type ServiceProcess } from '../server/testing.js';
import {
  cpTimed,
  curlDownload,
  curlUpload,
  GaugeTransport,
  listAll,
  makeFolder,
  meterRss,
  MiB,
  nasJson,
  profiled,
  writeBigFile,
  writeSmallFiles,
  type Nas,
  type NasFile,
  type RssGrowth,
} from './content-probe.js';
import { measureWindow, renderWindowTable, type WindowPhase } from './content-window.js';
import { ENGINE_NICE } from '../main/host/engine-env.js';
import { killAll, machineLoad, ROOT, runOk, sleep, track, withTimeout } from './scale-probe.js';

const num = (name: string, dflt: number): number => {
  const v = Number(process.env[name] ?? dflt);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be a positive number`);
  return v;
};
const BIG_BYTES = Math.round(num('CONTENT_BIG_MB', 1024) * MiB);
const SMALL = Math.round(num('CONTENT_SMALL', 10_000));
const ONLY = process.env['CONTENT_ONLY'] || undefined;
/**
 * Rounds of the big file's rows, curl and the engine one after the other each round; each
 * row is the median (the service's CPU for the same 1 GiB moved 0.7-1.7 s between runs a
 * minute apart on this shared machine: one round could put either side 1.5x off).
 */
const ROUNDS = Math.round(num('CONTENT_ROUNDS', 3));
if (ONLY !== undefined && ONLY !== 'download' && ONLY !== 'upload' && ONLY !== 'window')
  throw new Error('CONTENT_ONLY must be download, upload or window');
const say = (msg: string): void => {
  process.stderr.write(`[content ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
};
/** Targets of the issue: the engine's time over curl's, and RSS growth while moving the big file. */
const TARGET = { bigRatio: 1.3, smallRatio: 2, bigRssMb: 50 } as const;
const r2 = (x: number): number => Math.round(x * 100) / 100;

export interface Row {
  direction: 'download' | 'upload';
  item: 'big' | 'small';
  contender: 'cp' | 'curl' | 'engine';
  files: number;
  bytes: number;
  sec: number;
  mibPerSec: number;
  /** HTTP requests to the NAS meanwhile, by method and path (ids as `:id`); curl: what it sends per file. */
  requests: Record<string, number>;
  /** The engine: the most requests in flight at once meanwhile; curl: its parallel limit. */
  mostInFlight?: number;
  /** The engine: its requests' time, summed per kind (ms; concurrent ones overlap). */
  requestMs?: Record<string, number>;
  /** The engine's RSS while it moved these bytes (in this process). */
  rss?: RssGrowth;
  /** Uploads: from the drop until the creates journal first had an open row (the watcher and the local batch). */
  noticedSec?: number;
  /** CPU time meanwhile (s): the client's (the engine: this process; curl: its process) and the service's process. */
  cpu?: { clientSec: number; serviceSec: number };
  /** The engine: status snapshots it built meanwhile (`status` events), and what one costs right after (ms, best of 5). */
  statusBuilt?: { events: number; ms: number };
  load: string;
  /** The big file's rows: each round's seconds (curl and the engine alternate; the row is the median round). */
  trials?: number[];
}

/** The median round of a contender's rows (its seconds in `trials`, in the order run). */
/**
 * A round of the big file: curl and the engine one after the other, which goes first in turn
 * (what the first leaves to the kernel and the NAS, the page cache to fill, memory to reclaim,
 * falls on each in turn, not always on the engine).
 */
async function inTurn(round: number, curl: () => Promise<void>, engine: () => Promise<void>): Promise<void> {
  if (round % 2 === 0) {
    await curl();
    await engine();
  } else {
    await engine();
    await curl();
  }
}

function medianRow(rounds: readonly Row[]): Row {
  const mid = [...rounds].sort((a, b) => a.sec - b.sec)[Math.floor((rounds.length - 1) / 2)]!;
  return { ...mid, trials: rounds.map((x) => x.sec) };
}

/** Where the temp folders go: /dev/shm when it and free memory hold ~8 copies of the data (+2 GB), else the temp folder. */
function pickTmp(dataBytes: number): string {
  const set = process.env['CONTENT_TMP'];
  if (set) return set;
  const need = 8 * dataBytes + 2 * 1024 * MiB;
  try {
    const s = statfsSync('/dev/shm');
    if (s.bavail * s.bsize > need && freemem() > need) return '/dev/shm';
  } catch {
    /* no /dev/shm */
  }
  return tmpdir();
}

/** The filesystem a folder is on (longest mount prefix in /proc/mounts). */
function fsOf(dir: string): string {
  let best = { mount: '', type: '?' };
  try {
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [, mount, type] = line.split(' ');
      if (mount && type && (dir === mount || dir.startsWith(mount.endsWith('/') ? mount : `${mount}/`)) && mount.length > best.mount.length)
        best = { mount, type };
    }
  } catch {
    /* not Linux */
  }
  return `${best.type} at ${best.mount || '?'}`;
}

let clockTicks: number | undefined;
/**
 * CPU time (s) of process `pid` so far (utime + stime of /proc/<pid>/stat), or with
 * `children`, of its children it waited for (cutime + cstime: curl, once it exited); NaN
 * where unreadable.
 */
function cpuSecOf(pid: number | 'self' | undefined, children = false): number {
  try {
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const at = children ? 13 : 11;
    return (Number(fields[at]) + Number(fields[at + 1])) / clockTicks;
  } catch {
    return NaN;
  }
}

/** `fn`, and the CPU it cost (s): the client (this process for the engine, its children for curl) and the service's process. */
async function withCpu<T>(r: Pick<Rig, 'svc'>, engine: boolean, fn: () => Promise<T>): Promise<{ value: T; cpu: NonNullable<Row['cpu']> }> {
  const own = process.cpuUsage();
  const children0 = cpuSecOf('self', true);
  const svc0 = cpuSecOf(r.svc.child.pid);
  const value = await fn();
  const u = process.cpuUsage(own);
  const serviceSec = r2(cpuSecOf(r.svc.child.pid) - svc0);
  const clientSec = r2(engine ? (u.user + u.system) / 1e6 : cpuSecOf('self', true) - children0);
  return { value, cpu: { clientSec, serviceSec } };
}

/** Polls `done` every `everyMs` until it is true; the time it first was, from `t0`. */
async function until(t0: number, done: () => Promise<boolean> | boolean, timeoutMs: number, what: string, everyMs = 20): Promise<number> {
  for (;;) {
    const at = performance.now();
    if (await done()) return at - t0;
    if (at - t0 > timeoutMs) throw new Error(`${what}: not done after ${Math.round(timeoutMs / 1000)} s`);
    await sleep(everyMs);
  }
}

/** A step's timeout: at least 2 min, or the bytes at 5 MiB/s, or 60 ms a file. */
const budget = (bytes: number, files: number): number => Math.max(120_000, (bytes / (5 * MiB)) * 1000, files * 60);

/** Every file of `dir` has the size `sizes` gives it (and there are no others). */
function sameSizes(dir: string, sizes: ReadonlyMap<string, number>): boolean {
  if (!existsSync(dir)) return false;
  const names = readdirSync(dir);
  return names.length === sizes.size && names.every((n) => statSync(join(dir, n)).size === sizes.get(n));
}

/** Two files have the same size, and the same bytes in their first and last MiB. */
function sameEnds(a: string, b: string): boolean {
  const size = statSync(a).size;
  if (size !== statSync(b).size) return false;
  const slice = (p: string, at: number): Buffer => {
    const fd = openSync(p, 'r');
    try {
      const buf = Buffer.alloc(Math.min(MiB, size));
      readSync(fd, buf, 0, buf.length, at);
      return buf;
    } finally {
      closeSync(fd);
    }
  };
  const last = Math.max(0, size - MiB);
  return slice(a, 0).equals(slice(b, 0)) && slice(a, last).equals(slice(b, last));
}

/** The NAS lists every wanted name as a finished file (not an unfinished upload) of its size. */
const finished = (fs: readonly NasFile[], want: ReadonlyMap<string, number>): boolean =>
  fs.filter((f) => want.has(f.name) && f.resumable !== true && f.size === want.get(f.name)).length === want.size;

/** Everything a measurement needs: the folders, the data, the NAS (as the engine's user and as curl's), the engine. */
interface Rig {
  dir: { src: string; nas: string; stage: string; floor: string; mirror: string; state: string };
  bigSrc: string;
  smallSrc: string;
  sizes: Map<string, number>;
  smallBytes: number;
  svc: ServiceProcess;
  nas: Nas;
  root: string;
  floorNas: Nas;
  floorRoot: string;
  bigId: string;
  smallId: string;
  smallFiles: { id: string; name: string }[];
  client: ServiceClient;
  gauge: GaugeTransport;
  engine: Engine;
  /** curl's config file (it holds a token: mode 0600). */
  cfg: string;
  rows: Row[];
}

const rowOf = (
  direction: Row['direction'],
  item: Row['item'],
  contender: Row['contender'],
  files: number,
  bytes: number,
  ms: number,
): Row => ({
  direction,
  item,
  contender,
  files,
  bytes,
  sec: r2(ms / 1000),
  mibPerSec: Math.round(bytes / MiB / (ms / 1000)),
  load: machineLoad(),
  requests:
    contender !== 'curl'
      ? {}
      : direction === 'download'
        ? { 'GET /files/:id/content': files }
        : { 'POST /files/resumable': files, 'PUT /files/:id/resumable/content': files },
  ...(contender === 'curl' ? { mostInFlight: files === 1 ? 1 : direction === 'download' ? KEEP_CONCURRENCY : CREATE_CONCURRENCY } : {}),
});

/**
 * The engine's row: `run` (resolving with its time in ms) with the RSS meter on and the
 * engine's requests counted.
 */
async function engineRow(
  r: Rig,
  direction: Row['direction'],
  item: Row['item'],
  run: () => Promise<{ ms: number; noticedMs?: number | undefined }>,
): Promise<Row> {
  const [files, bytes] = item === 'big' ? [1, BIG_BYTES] : [SMALL, r.smallBytes];
  r.gauge.reset();
  let events = 0;
  const off = r.engine.events.on('status', () => {
    events++;
  });
  const {
    value: { value, cpu },
    rss,
  } = await meterRss(() => withCpu(r, true, () => profiled(process.env['CONTENT_PROFILE'], `${direction}-${item}`, run))).finally(off);
  const ks = Object.entries(r.gauge.kinds);
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    r.engine.status();
    best = Math.min(best, performance.now() - t);
  }
  return {
    ...rowOf(direction, item, 'engine', files, bytes, value.ms),
    rss,
    cpu,
    mostInFlight: r.gauge.most,
    statusBuilt: { events, ms: r2(best) },
    requests: Object.fromEntries(ks.map(([k, v]) => [k, v.n])),
    requestMs: Object.fromEntries(ks.map(([k, v]) => [k, Math.round(v.ms)])),
    ...(value.noticedMs === undefined ? {} : { noticedSec: r2(value.noticedMs / 1000) }),
  };
}

/** Writes the data, imports the download library into the NAS, serves it, starts the engine (first walk done). */
async function setUp(base: string): Promise<Rig> {
  const dir = {
    src: join(base, 'src'),
    nas: join(base, 'nas'),
    stage: join(base, 'stage'),
    floor: join(base, 'floor'),
    mirror: join(base, 'mirror'),
    state: join(base, 'state'),
  };
  for (const p of [dir.src, dir.stage, dir.floor]) mkdirSync(p, { recursive: true });
  const bigSrc = join(dir.src, 'big.bin'),
    smallSrc = join(dir.src, 'small');
  writeBigFile(bigSrc, BIG_BYTES);
  const sizes = writeSmallFiles(smallSrc, SMALL);
  const nasCli = (...args: string[]): Promise<{ stdout: string }> =>
    runOk(process.execPath, ['bin/nas-service.js', ...args], { timeoutMs: 600_000, what: `nas-service ${args[0]}` });
  // user demo: the engine's, with the download library; user floor: curl's uploads, unseen by the engine
  for (const u of ['demo', 'floor']) await nasCli('user', 'add', u, '--data', dir.nas);
  await nasCli('import', dir.src, '--user', 'demo', '--data', dir.nas);
  const token = async (u: string): Promise<string> =>
    (await nasCli('token', u, '--scope', 'nas_read_write', '--data', dir.nas)).stdout.trim();
  // a session of its own: the window part sets its CPU priority apart from this process's
  const svc = await spawnServiceProcess(dir.nas, 0, 60_000, { ownSession: true });
  track(svc.child);
  const nas: Nas = { baseUrl: svc.baseUrl, token: await token('demo') };
  const floorNas: Nas = { baseUrl: svc.baseUrl, token: await token('floor') };
  const rootOf = async (n: Nas): Promise<string> => (await nasJson<{ id: string }>(n, 'GET', '/files/root')).body!.id;
  const [root, floorRoot] = [await rootOf(nas), await rootOf(floorNas)];
  const top = await listAll(nas, root);
  const bigId = top.find((f) => f.name === 'big.bin')!.id,
    smallId = top.find((f) => f.name === 'small')!.id;
  const smallFiles = (await listAll(nas, smallId)).map((f) => ({ id: f.id, name: f.name }));
  say(`NAS at ${svc.baseUrl}: big.bin, small/ with ${smallFiles.length} files; ${machineLoad()}`);
  // the engine as the app makes it, but in this process; the mass-upload guard above this run's counts (else it waits for the user's word)
  const gauge = new GaugeTransport();
  const client = new ServiceClient({ baseUrl: svc.baseUrl, token: nas.token, transport: gauge });
  const engine = new Engine({
    stateDir: dir.state,
    mirrorDir: dir.mirror,
    client,
    log: process.env['CONTENT_LOG'] ? createLogger('engine') : silentLogger,
    threshold: { ...DEFAULT_THRESHOLD, count: Math.max(DEFAULT_THRESHOLD.count, 2 * SMALL + 100) },
    ...(process.env['CONTENT_REWALK_MS'] ? { rewalkMs: Number(process.env['CONTENT_REWALK_MS']) } : {}),
  });
  const rig: Rig = {
    dir,
    bigSrc,
    smallSrc,
    sizes,
    smallBytes: [...sizes.values()].reduce((a, b) => a + b, 0),
    svc,
    nas,
    root,
    floorNas,
    floorRoot,
    bigId,
    smallId,
    smallFiles,
    client,
    gauge,
    engine,
    cfg: join(base, 'curl.cfg'),
    rows: [],
  };
  const t0 = performance.now();
  try {
    await engine.start();
    if (!existsSync(join(dir.mirror, 'big.bin')) || !sameSizes(join(dir.mirror, 'small'), new Map([...sizes.keys()].map((n) => [n, 0])))) {
      throw new Error('the first walk did not place every placeholder');
    }
  } catch (e) {
    await engine.stop().catch(() => undefined);
    client.close();
    throw e;
  }
  say(`engine ready (first walk, placeholders) in ${r2((performance.now() - t0) / 1000)} s`);
  return rig;
}

type Step = (what: string, fn: () => Promise<void>) => Promise<void>;
const fresh = (p: string): void => {
  rmSync(p, { recursive: true, force: true });
};

/** Open of the big file, Keep on the small files' folder; each after its cp and curl. */
async function measureDownloads(r: Rig, step: Step): Promise<void> {
  const { dir, engine: e, rows } = r;
  await step('download big: cp', async () => {
    rows.push(rowOf('download', 'big', 'cp', 1, BIG_BYTES, await cpTimed(r.bigSrc, join(dir.floor, 'big.bin'), budget(BIG_BYTES, 1))));
    fresh(join(dir.floor, 'big.bin'));
  });
  await step(`download big: curl and the engine (Open), ${ROUNDS} rounds`, async () => {
    const curls: Row[] = [];
    const engines: Row[] = [];
    for (let k = 0; k < ROUNDS; k++) {
      const curlRound = async (): Promise<void> => {
        const { value: ms, cpu } = await withCpu(r, false, () =>
          curlDownload(r.nas, [{ id: r.bigId, name: 'big.bin' }], dir.floor, 1, r.cfg, budget(BIG_BYTES, 1)),
        );
        if (!sameEnds(join(dir.floor, 'big.bin'), r.bigSrc)) throw new Error('curl got other bytes');
        curls.push({ ...rowOf('download', 'big', 'curl', 1, BIG_BYTES, ms), cpu });
        fresh(join(dir.floor, 'big.bin'));
      };
      const engineRound = async (): Promise<void> => {
        // the round before downloaded it: Free up space makes it a placeholder again
        if (k > 0 && (await e.free(r.bigId)).freed !== 1) throw new Error('Free up space did not make big.bin a placeholder again');
        if (statSync(join(dir.mirror, 'big.bin')).size !== 0) throw new Error('big.bin is not a placeholder before the Open');
        const row = await engineRow(r, 'download', 'big', async () => {
          const s = performance.now();
          await withTimeout(e.download(r.bigId), budget(BIG_BYTES, 1), 'Engine.download');
          return { ms: performance.now() - s };
        });
        if (!sameEnds(join(dir.mirror, 'big.bin'), r.bigSrc)) throw new Error('the downloaded file differs from the source');
        engines.push(row);
      };
      await inTurn(k, curlRound, engineRound);
    }
    rows.push(medianRow(curls), medianRow(engines));
  });
  await step('download small: cp -r', async () => {
    rows.push(
      rowOf(
        'download',
        'small',
        'cp',
        SMALL,
        r.smallBytes,
        await cpTimed(r.smallSrc, join(dir.floor, 'small'), budget(r.smallBytes, SMALL)),
      ),
    );
    fresh(join(dir.floor, 'small'));
  });
  await step('download small: curl', async () => {
    const { value: ms, cpu } = await withCpu(r, false, () =>
      curlDownload(r.nas, r.smallFiles, join(dir.floor, 'small'), KEEP_CONCURRENCY, r.cfg, budget(r.smallBytes, SMALL)),
    );
    if (!sameSizes(join(dir.floor, 'small'), r.sizes)) throw new Error('curl did not get every file at its size');
    rows.push({ ...rowOf('download', 'small', 'curl', SMALL, r.smallBytes, ms), cpu });
    fresh(join(dir.floor, 'small'));
  });
  await step('download small: engine (Keep on the folder)', async () => {
    // done when every file's download said so (counting events costs the engine nothing; deviceSpace walks every downloaded file)
    let done = 0;
    const off = e.events.on('download', (p) => {
      if (p.state === 'done') done++;
    });
    const row = await engineRow(r, 'download', 'small', async () => {
      const s = performance.now();
      await e.pin(r.smallId);
      return {
        ms: await until(
          s,
          () => done >= SMALL && e.deviceSpace(r.smallId).files === SMALL,
          budget(r.smallBytes, SMALL),
          'Keep on this device',
        ),
      };
    }).finally(off);
    await e.pins.idle();
    if (!sameSizes(join(dir.mirror, 'small'), r.sizes)) throw new Error('the kept folder does not hold every file at its size');
    rows.push(row);
  });
}

/**
 * From the move of `from` into the mirror (at `to`) until the creates journal has nothing
 * open and `nasHas` is true; when the journal first had an open row.
 */
async function uploaded(r: Rig, from: string, to: string, item: Row['item'], nasHas: () => Promise<boolean>): Promise<Row> {
  const e = r.engine;
  const refused = e.core.creates.counts().refused;
  // a file written less than STABLE_MS ago waits for it: what is timed here is moved in, written before
  const newest = item === 'big' ? from : join(from, [...r.sizes.keys()].at(-1)!);
  await sleep(Math.max(0, statSync(newest).mtimeMs + STABLE_MS + 200 - Date.now()));
  return engineRow(r, 'upload', item, async () => {
    let noticedMs: number | undefined;
    const s = performance.now();
    renameSync(from, to);
    // CONTENT_WALK_DURING=MS: a re-walk that many ms into the move (as the engine's own, due every minute, can land)
    const walkAt = Number(process.env['CONTENT_WALK_DURING'] ?? NaN);
    if (Number.isFinite(walkAt)) setTimeout(() => void e.walkOnce(), walkAt);
    const ms = await until(
      s,
      async () => {
        const c = e.core.creates.counts();
        if (c.held > 0 || c.refused > refused)
          throw new Error(`the creates journal holds ${c.held} row(s) for the user's word, ${c.refused - refused} refused`);
        if (noticedMs === undefined && c.open > 0) noticedMs = performance.now() - s;
        return c.open === 0 && (await nasHas());
        // counts() reads every row of the journal: for the small files, polled every 200 ms (its cost is the engine's too)
      },
      item === 'big' ? budget(BIG_BYTES, 1) : budget(r.smallBytes, SMALL),
      'uploads',
      item === 'big' ? 20 : 200,
    );
    return { ms, noticedMs };
  });
}

/** New files: the big file, then the small files' folder, each moved into the mirror after its cp (which stages it) and curl. */
async function measureUploads(r: Rig, step: Step): Promise<void> {
  const { dir, rows } = r;
  await step('upload big: cp (stages the file)', async () => {
    rows.push(rowOf('upload', 'big', 'cp', 1, BIG_BYTES, await cpTimed(r.bigSrc, join(dir.stage, 'big-up.bin'), budget(BIG_BYTES, 1))));
  });
  await step(`upload big: curl and the engine (file moved into the mirror folder), ${ROUNDS} rounds`, async () => {
    const curls: Row[] = [];
    const engines: Row[] = [];
    for (let k = 0; k < ROUNDS; k++) {
      // the engine's copy is staged before either runs (a GiB written just before one of them is
      // the kernel's work in that one's time)
      const name = `big-up-${k}.bin`;
      if (k > 0) cpSync(r.bigSrc, join(dir.stage, name));
      else renameSync(join(dir.stage, 'big-up.bin'), join(dir.stage, name));
      const curlRound = async (): Promise<void> => {
        const folder = await makeFolder(r.floorNas, r.floorRoot, `big-up-${k}`);
        const { value: ms, cpu } = await withCpu(r, false, () =>
          curlUpload(r.floorNas, folder, [{ path: r.bigSrc, name: 'big-up.bin' }], 1, r.cfg, budget(BIG_BYTES, 1)),
        );
        if (!finished(await listAll(r.floorNas, folder), new Map([['big-up.bin', BIG_BYTES]])))
          throw new Error("the NAS does not hold curl's upload");
        curls.push({ ...rowOf('upload', 'big', 'curl', 1, BIG_BYTES, ms), cpu });
        // (the other user's folder goes: the NAS's disk is this machine's memory)
        if ((await nasJson(r.floorNas, 'DELETE', `/files/${encodeURIComponent(folder)}`)).status >= 300)
          throw new Error('could not delete big-up');
      };
      const want = new Map([[name, BIG_BYTES]]);
      const engineRound = async (): Promise<void> => {
        engines.push(
          await uploaded(r, join(dir.stage, name), join(dir.mirror, name), 'big', async () => finished(await listAll(r.nas, r.root), want)),
        );
      };
      await inTurn(k, curlRound, engineRound);
    }
    rows.push(medianRow(curls), medianRow(engines));
  });
  await step('upload small: cp -r (stages the folder)', async () => {
    rows.push(
      rowOf(
        'upload',
        'small',
        'cp',
        SMALL,
        r.smallBytes,
        await cpTimed(r.smallSrc, join(dir.stage, 'small-up'), budget(r.smallBytes, SMALL)),
      ),
    );
  });
  await step('upload small: curl', async () => {
    const folder = await makeFolder(r.floorNas, r.floorRoot, 'small-up');
    const files = [...r.sizes.keys()].map((name) => ({ name, path: join(r.smallSrc, name) }));
    const { value: ms, cpu } = await withCpu(r, false, () =>
      curlUpload(r.floorNas, folder, files, CREATE_CONCURRENCY, r.cfg, budget(r.smallBytes, SMALL)),
    );
    if (!finished(await listAll(r.floorNas, folder), r.sizes)) throw new Error("the NAS does not hold every one of curl's uploads");
    rows.push({ ...rowOf('upload', 'small', 'curl', SMALL, r.smallBytes, ms), cpu });
  });
  await step('upload small: engine (folder moved into the mirror folder)', async () => {
    rows.push(
      await uploaded(r, join(dir.stage, 'small-up'), join(dir.mirror, 'small-up'), 'small', async () => {
        const folder = (await listAll(r.nas, r.root)).find((f) => f.name === 'small-up');
        return folder !== undefined && finished(await listAll(r.nas, folder.id), r.sizes);
      }),
    );
  });
}

const mark = (ok: boolean): string => (ok ? ' ✓' : ' ✗');

function renderTable(rows: readonly Row[], errors: readonly string[], temp: string): string {
  const what = (r: Row): string =>
    `${r.direction}: ${r.item === 'big' ? `1 file of ${Math.round(r.bytes / MiB)} MiB` : `${r.files.toLocaleString('en')} files, ${Math.round(r.bytes / MiB)} MiB`}`;
  const contender = (r: Row): string =>
    r.contender === 'cp'
      ? r.item === 'big'
        ? '`cp`'
        : '`cp -r`'
      : r.contender === 'curl'
        ? r.direction === 'download'
          ? '`curl` (floor)'
          : '`curl` POST + PUT (floor)'
        : r.direction === 'download'
          ? r.item === 'big'
            ? 'engine: Open (`Engine.download`)'
            : 'engine: Keep on the folder'
          : `engine: ${r.item === 'big' ? 'file' : 'folder'} moved into the mirror -> journal empty, NAS has all`;
  const lines = [
    '| transfer | contender | s | MiB/s | × curl (target) | requests per file (most at once) | RSS growth: sampled (kernel peak) | CPU s: client, NAS |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const curl = rows.find((x) => x.direction === r.direction && x.item === r.item && x.contender === 'curl');
    const target = r.item === 'big' ? TARGET.bigRatio : TARGET.smallRatio;
    const ratio = curl ? r2(r.sec / curl.sec) : undefined;
    const x = ratio === undefined ? '-' : r.contender === 'engine' ? `${ratio}${mark(ratio <= target)} (≤ ${target})` : String(ratio);
    const rss = !r.rss
      ? ''
      : `+${r.rss.sampledMb} MB (+${r.rss.peakMb})${r.item === 'big' ? `${mark(Math.max(r.rss.sampledMb, r.rss.peakMb) <= TARGET.bigRssMb)} (≤ ${TARGET.bigRssMb})` : ''}`;
    const rounds = r.trials && r.trials.length > 1 ? ` (median of ${r.trials.join(', ')})` : '';
    const sec = (r.noticedSec === undefined ? String(r.sec) : `${r.sec} (in the journal at ${r.noticedSec})`) + rounds;
    const reqs = Object.values(r.requests).reduce((a, b) => a + b, 0);
    const perFile = r.contender === 'cp' ? '' : `${r2(reqs / r.files)}${r.mostInFlight === undefined ? '' : ` (${r.mostInFlight})`}`;
    const cpu = !r.cpu ? '' : `${r.cpu.clientSec}, ${r.cpu.serviceSec}`;
    lines.push(`| ${what(r)} | ${contender(r)} | ${sec} | ${r.mibPerSec} | ${x} | ${perFile} | ${rss} | ${cpu} |`);
  }
  const note = `Temp folders on ${temp}. The big file: ${ROUNDS} rounds, curl and the engine each round (which goes first in turn), the median round shown. The engine runs in the bench's process: RSS growth is that process's, from a full collection before the move (kernel peak: VmHWM after a reset). CPU: the client's (the engine: this process, every thread; curl: its process) and the service's process, from /proc.`;
  return `${lines.join('\n')}\n\n${note}${errors.length ? `\n\nErrors:\n${errors.map((e) => `- ${e}`).join('\n')}` : ''}`;
}

/** The temp folder of this run, removed at the end, on failure and on Ctrl-C. */
let base: string | undefined;
const removeBase = (): void => {
  if (base) rmSync(base, { recursive: true, force: true, maxRetries: 5 });
  base = undefined;
};

async function main(): Promise<void> {
  const smallMean = 4096 + 30 * 1024;
  const at = mkdtempSync(join(pickTmp(BIG_BYTES + SMALL * smallMean), 'nm-content-'));
  base = at;
  const temp = fsOf(base);
  say(`big file ${BIG_BYTES / MiB} MiB, ${SMALL} small files (4-64 KiB); temp ${base} (${temp}); ${machineLoad()}`);
  const errors: string[] = [];
  const step: Step = async (what, fn) => {
    say(`${what}...`);
    try {
      await fn();
    } catch (e) {
      const msg = `${what}: ${e instanceof Error ? e.message : String(e)}`;
      say(`FAILED ${msg}`);
      errors.push(msg);
    }
  };
  let rig: Rig | undefined;
  try {
    rig = await setUp(base);
    if (ONLY === undefined || ONLY === 'download') await measureDownloads(rig, step);
    if (ONLY === undefined || ONLY === 'upload') await measureUploads(rig, step);
    // the bench's engine stops first: it would mirror the window app's uploads meanwhile
    await rig.engine.stop();
    const r = rig;
    let window: WindowPhase[] = [];
    if (ONLY === undefined || ONLY === 'window')
      await step('the window while content moves', async () => {
        // the NAS stands for another machine (or the app's embedded demo NAS, a child of the
        // engine's process): its CPU on these two shared cores comes after the window's, at the
        // engine's lower priority (engine-env.ts), every thread of it
        // (CONTENT_NICE=0: both at the window's priority, to compare)
        const svcPid = r.svc.child.pid;
        if (process.env['CONTENT_NICE'] === '0') process.env['NAS_MIRROR_ENGINE_PRIORITY'] = 'normal';
        else if (svcPid !== undefined) {
          for (const tid of readdirSync(`/proc/${svcPid}/task`)) setPriority(Number(tid), ENGINE_NICE);
          // and its session's, where Linux shares the cores between sessions first (autogroups:
          // a nice counts only inside its session), as the engine does for its own (engine-env.ts)
          if (existsSync(`/proc/${svcPid}/autogroup`)) writeFileSync(`/proc/${svcPid}/autogroup`, String(ENGINE_NICE));
        }
        window = await measureWindow({
          base: at,
          nas: r.nas,
          smallSrc: r.smallSrc,
          sizes: r.sizes,
          budgetMs: budget(BIG_BYTES + r.smallBytes, 2 * SMALL),
          say,
        });
      });
    const out = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '', memGb: Math.round(totalmem() / 2 ** 30) },
      temp,
      engine:
        "transfers: in the bench process (its RSS is this process's); the window part: in its own process at nice 10, the UI server in this one, the service at nice 10 (it stands for another machine)",
      bigBytes: BIG_BYTES,
      smallFiles: SMALL,
      smallBytes: rig.smallBytes,
      concurrency: { keep: KEEP_CONCURRENCY, creates: CREATE_CONCURRENCY },
      targets: TARGET,
      rows: rig.rows,
      window,
      errors,
    };
    // a run of one direction only is a look, not a result: the file keeps the last full run
    if (ONLY === undefined) {
      mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
      writeFileSync(join(ROOT, 'bench', 'results', 'content.json'), JSON.stringify(out, null, 2) + '\n');
    }
    process.stdout.write(renderTable(rig.rows, errors, temp) + '\n');
    if (window.length) process.stdout.write(renderWindowTable(window) + '\n');
  } finally {
    await rig?.engine.stop().catch(() => undefined);
    rig?.client.close();
    await rig?.svc.stop().catch(() => undefined);
    await killAll();
    removeBase();
  }
}

const cleanup = (sig: NodeJS.Signals): void => {
  say(`${sig}: killing the service, removing the temp folder`);
  void killAll().then(() => {
    removeBase();
    process.exit(130);
  });
};
process.once('SIGINT', cleanup);
process.once('SIGTERM', cleanup);
await main();
