/**
 * Probes for `npm run bench:scale` (bench/scale.ts) and `bench:identity` (bench/identity.ts):
 * child processes that are always killed (each in its own process group), commands timed with a per-step timeout, /proc readings of
 * a process (peak RSS, CPU ticks, inotify watches, descendants), a `nas-mirror run` child
 * that reports its window URL and its `watching` line, a GET poller that measures the
 * response latency of a server (its event-loop stalls), and local renames timed until the
 * NAS answers with the new name.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, renameSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { loadavg } from 'node:os';
import { dirname, join, parse, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const say = (msg: string): void => {
  process.stderr.write(`[scale ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
};
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
export const pct = (xs: readonly number[], p: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** Load average and CPU/IO pressure (some, avg10): how busy the shared machine is. */
export const machineLoad = (): string => {
  const some = (kind: string): string => {
    try {
      return /some avg10=([\d.]+)/.exec(readFileSync(`/proc/pressure/${kind}`, 'utf8'))?.[1] ?? '?';
    } catch {
      return '?';
    }
  };
  return `load ${loadavg()[0]!.toFixed(2)}, cpu pressure ${some('cpu')} %, io pressure ${some('io')} %`;
};

/** Every child this bench started; `killAll` sends SIGKILL to each one's process group. */
const children = new Set<ChildProcess>();
export function track(c: ChildProcess): ChildProcess {
  children.add(c);
  c.once('exit', () => children.delete(c));
  return c;
}
/** SIGKILL to every child's process group; resolves when they have exited (at most 5 s). */
export function killAll(): Promise<void> {
  const waits: Promise<void>[] = [];
  for (const c of children) {
    if (c.pid === undefined || c.exitCode !== null || c.signalCode !== null) continue;
    waits.push(new Promise((r) => c.once('exit', () => r())));
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      try {
        c.kill('SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  children.clear();
  return withTimeout(
    Promise.all(waits).then(() => undefined),
    5000,
    'killing the children',
  ).catch(() => undefined);
}

/** Rejects with "<what> timed out after N s" unless `p` settles first. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

export interface Ran {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (own process group, killed on timeout); wall time from spawn to exit. */
export function runTimed(
  cmd: string,
  args: readonly string[],
  o: { env?: NodeJS.ProcessEnv; timeoutMs: number; what: string },
): Promise<Ran> {
  const t0 = performance.now();
  const c = track(spawn(cmd, args, { cwd: ROOT, env: o.env ?? process.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stdout = '',
    stderr = '';
  c.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  c.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-20_000);
  });
  const done = new Promise<Ran>((res, rej) => {
    c.once('error', rej);
    c.once('close', (code) => res({ ms: performance.now() - t0, code, stdout, stderr }));
  });
  return withTimeout(done, o.timeoutMs, o.what).catch((e: unknown) => {
    if (c.pid !== undefined)
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    throw e;
  });
}

/** Same, and throws (with the command's stderr tail) unless it exits 0. */
export async function runOk(
  cmd: string,
  args: readonly string[],
  o: { env?: NodeJS.ProcessEnv; timeoutMs: number; what: string },
): Promise<Ran> {
  const r = await runTimed(cmd, args, o);
  if (r.code !== 0) throw new Error(`${o.what} exited with ${r.code}: ${r.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  return r;
}

// ---- /proc readings (Linux) ----

export const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

const statFields = (pid: number): string[] => {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return s.slice(s.lastIndexOf(')') + 2).split(' '); // [0] = state (field 3)
};
/** utime + stime of the process in clock ticks. */
export const cpuTicks = (pid: number): number => {
  const f = statFields(pid);
  return Number(f[11]) + Number(f[12]);
};
/** Peak resident set (VmHWM) in kB. */
export function peakRssKb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}
/** Resident set now (VmRSS) in kB. */
export function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/**
 * What the engine used in the first `sec` seconds after ready: its CPU (% of one core) and its
 * resident set at the end; with `walking` (asked each second), when its walk ended (seconds
 * after the start of the window; null: still running at its end) and its RSS then.
 */
export async function afterReady(
  pid: number,
  sec: number,
  walking?: () => Promise<boolean>,
): Promise<{ sec: number; cpuPct: number; rssMb: number; walkEndSec?: number | null; walkSeen?: boolean; rssAtWalkEndMb?: number }> {
  const [c0, t0] = [cpuTicks(pid), performance.now()];
  let walkEndSec: number | null | undefined = walking ? null : undefined;
  let rssAtWalkEndMb: number | undefined;
  // (a walk that ended before the first look is not told apart from none: `walkSeen` false)
  let sawRunning = false;
  while (performance.now() - t0 < sec * 1000) {
    await sleep(Math.min(1000, sec * 1000 - (performance.now() - t0)));
    if (!walking || walkEndSec !== null) continue;
    const running = await walking().catch(() => true);
    if (running) sawRunning = true;
    else if (sawRunning) {
      walkEndSec = Math.round((performance.now() - t0) / 100) / 10;
      rssAtWalkEndMb = Math.round(rssKb(pid) / 1024);
    }
  }
  const [c1, wall] = [cpuTicks(pid), (performance.now() - t0) / 1000];
  return {
    sec: Math.round(wall * 10) / 10,
    cpuPct: Math.round(((c1 - c0) / CLK_TCK / wall) * 1000) / 10,
    rssMb: Math.round(rssKb(pid) / 1024),
    ...(walkEndSec !== undefined ? { walkEndSec, walkSeen: sawRunning } : {}),
    ...(rssAtWalkEndMb !== undefined ? { rssAtWalkEndMb } : {}),
  };
}

/** inotify watches the process holds: `inotify wd:` lines over all its fds. */
export function inotifyWatches(pid: number): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fdinfo`)) {
    try {
      n += (readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8').match(/^inotify wd:/gm) ?? []).length;
    } catch {
      /* fd closed meanwhile */
    }
  }
  return n;
}
/** The process tree under `pid` (itself excluded): pid, parent, command name, depth. */
export function descendants(pid: number): { pid: number; ppid: number; comm: string; depth: number }[] {
  const all: { pid: number; ppid: number; comm: string }[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
      all.push({ pid: Number(d), ppid: Number(statFields(Number(d))[1]), comm });
    } catch {
      /* exited */
    }
  }
  const out: { pid: number; ppid: number; comm: string; depth: number }[] = [];
  const walk = (p: number, depth: number): void => {
    for (const c of all)
      if (c.ppid === p) {
        out.push({ ...c, depth });
        walk(c.pid, depth + 1);
      }
  };
  walk(pid, 1);
  return out;
}

// ---- the engine as a child process ----

export interface EngineChild {
  /** The process that runs the engine: the deepest `node` in the tree (bin/nas-mirror.js runs tsx in-process, so today the child itself). */
  readonly pid: number;
  readonly tree: string;
  /** Milliseconds from spawn to the `watching <dir>` line. */
  readonly readyMs: number;
  readonly windowUrl: string | undefined;
  /** Milliseconds from spawn to the window URL on stdout (the stall meter starts there). */
  readonly windowMs: number | undefined;
  /** VmHWM in kB, sampled every 250 ms (kept after the process is gone). */
  peakKb(): number;
  /** SIGTERM, wait for exit (SIGKILL after `timeoutMs`); milliseconds to exit. */
  stop(timeoutMs: number): Promise<{ ms: number; clean: boolean }>;
  kill9(): Promise<void>;
  /** The last lines the engine wrote to stderr. */
  tail(): string;
}

/**
 * Spawns `node bin/nas-mirror.js <args>` and resolves once it printed `watching`; `onWindow`
 * is called as soon as the window URL appears on stdout (before the first walk). `o.root`: the
 * checkout whose `bin/nas-mirror.js` runs (another version's worktree; default this one);
 * `o.onLine`: every line the engine writes to stderr.
 */
export async function startEngine(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  onWindow?: (url: string) => void,
  o: { root?: string; entry?: string; onLine?: (line: string) => void } = {},
): Promise<EngineChild> {
  const t0 = performance.now();
  const root = o.root ?? ROOT;
  const c = track(
    spawn(process.execPath, [o.entry ?? join(root, 'bin/nas-mirror.js'), ...args], {
      cwd: root,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const lines: string[] = [];
  let out = '',
    partial = '',
    windowUrl: string | undefined,
    windowMs: number | undefined,
    peak = 0;
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  const ready = new Promise<number>((res, rej) => {
    c.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = windowUrl === undefined ? /window: (http:\/\/\S+)/.exec(out) : null;
      if (m) {
        windowUrl = m[1]!;
        windowMs = performance.now() - t0;
        onWindow?.(windowUrl);
      }
    });
    c.stderr!.on('data', (d: Buffer) => {
      const parts = (partial + d.toString()).split('\n');
      partial = parts.pop()!;
      for (const l of parts) {
        o.onLine?.(l);
        lines.push(l);
        if (lines.length > 40) lines.shift();
        if (l.startsWith('watching ')) res(performance.now() - t0);
      }
    });
    c.once('exit', (code, sig) =>
      rej(new Error(`nas-mirror run exited (${code ?? sig}) before "watching": ${lines.slice(-5).join(' | ')}`)),
    );
  });
  let enginePid = c.pid!;
  const sample = (): void => {
    try {
      peak = Math.max(peak, peakRssKb(enginePid));
    } catch {
      /* exited */
    }
  };
  const sampler = setInterval(sample, 250);
  void exited.then(() => clearInterval(sampler));
  let readyMs: number;
  try {
    readyMs = await withTimeout(ready, timeoutMs, `nas-mirror run to "watching"`);
  } catch (e) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
    throw new Error(`${e instanceof Error ? e.message : String(e)}; last engine lines: ${lines.slice(-5).join(' | ')}`);
  }
  const tree = descendants(c.pid!);
  const nodes = tree.filter((p) => p.comm === 'node').sort((a, b) => b.depth - a.depth);
  if (nodes[0]) enginePid = nodes[0].pid;
  sample();
  return {
    pid: enginePid,
    tree: `${c.pid} node${tree.map((p) => ` > ${p.pid} ${p.comm} (depth ${p.depth})`).join('')}`,
    readyMs,
    windowUrl,
    windowMs,
    peakKb: () => {
      sample();
      return peak;
    },
    async stop(ms) {
      const t = performance.now();
      sample();
      c.kill('SIGTERM');
      try {
        await withTimeout(exited, ms, 'nas-mirror run stop');
        return { ms: performance.now() - t, clean: c.exitCode === 0 };
      } catch {
        try {
          process.kill(-c.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
        await exited;
        return { ms: performance.now() - t, clean: false };
      }
    },
    async kill9() {
      sample();
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      await exited;
    },
    tail: () => lines.join('\n'),
  };
}

// ---- latency of a server's cheapest GET, as a stall meter ----

export interface Stalls {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * GETs `url` one request at a time, a new one every `everyMs` (at once when the previous took
 * longer), until `stop()`; each response's latency is one sample. A blocked event loop in the
 * server shows as one long response.
 */
export function pollLatency(url: string, everyMs: number): { stop: () => Promise<Stalls> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  let running = true;
  const once = (): Promise<void> =>
    new Promise((res) => {
      const t = performance.now();
      const req = get(url, { agent }, (r) => {
        r.resume();
        r.on('end', () => {
          samples.push(performance.now() - t);
          res();
        });
        r.on('error', () => res());
      });
      req.on('error', () => res()); // the server closing at the end
    });
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      await once();
      const wait = everyMs - (performance.now() - t);
      if (wait > 0) await sleep(wait);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      agent.destroy();
      const r = (x: number): number => Math.round(x * 10) / 10;
      return { n: samples.length, p50: r(pct(samples, 50)), p99: r(pct(samples, 99)), max: r(samples.length ? Math.max(...samples) : NaN) };
    },
  };
}

/**
 * An idle HTTP server in its own process answering "ok": polled next to the engine's window,
 * its latencies are the meter's floor on this machine (scheduler delays, the bench's own lag).
 */
export async function startControlServer(): Promise<{ url: string; stop: () => void }> {
  const code =
    "require('http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () { console.log('port ' + this.address().port); })";
  const c = track(spawn(process.execPath, ['-e', code], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] }));
  const port = await withTimeout(
    new Promise<string>((res) => {
      let out = '';
      c.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /port (\d+)/.exec(out);
        if (m) res(m[1]!);
      });
    }),
    10_000,
    'the control server',
  );
  return {
    url: `http://127.0.0.1:${port}/`,
    stop: () => {
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    },
  };
}

// ---- local rename -> NAS ----

export interface RenameStats {
  n: number;
  p50: number;
  max: number;
  failed: number;
  /** Renames made while `status` said a walk runs, and of those confirmed, how many with the walk still running then. */
  duringWalk?: number;
  walkStillRunning?: number;
}
export type NasApi = ReturnType<typeof nasApi>;

/** A thin client of the NAS for the rename checks. */
export function nasApi(base: string, token: string) {
  const getJson = async (path: string): Promise<{ status: number; body?: { id: string; name: string } }> => {
    const r = await fetch(`${base}/sdk/v2${path}`, { headers: { authorization: `Bearer ${token}` } });
    return {
      status: r.status,
      body: r.status === 200 ? ((await r.json()) as { id: string; name: string }) : (await r.arrayBuffer(), undefined),
    };
  };
  const ids = new Map<string, string>();
  return {
    getJson,
    /** The NAS id of a mirror path, one parentAndName per segment from the root. */
    async idOf(rel: string): Promise<string | undefined> {
      let id = ids.get('') ?? (await getJson('/files/root')).body?.id;
      if (!id) return undefined;
      ids.set('', id);
      const segs = rel.split('/');
      for (let i = 0; i < segs.length; i++) {
        const key = segs.slice(0, i + 1).join('/');
        let next = ids.get(key);
        if (!next) {
          next = (await getJson(`/filesSearch/parentAndName?${new URLSearchParams({ parentID: id, name: segs[i]! })}`)).body?.id;
          if (!next) return undefined;
          ids.set(key, next);
        }
        id = next;
      }
      return id;
    },
  };
}

/** Contract calls to the window's server (`POST <window>/api/<method>`). */
export async function uiCall<T>(windowUrl: string, method: string): Promise<T> {
  const r = await fetch(`${windowUrl}api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const j = (await r.json()) as { ok: boolean; result?: T; error?: { message: string } };
  if (!j.ok) throw new Error(`${method}: ${j.error?.message}`);
  return j.result!;
}
export type Status = { walk: { running: boolean; startedAt: string | null }; lastCompleteWalk: string | null };

/** One file per folder, breadth first, no hidden names, outside `.nas-mirror`. */
export function pickFiles(mirror: string, count: number): string[] {
  const out: string[] = [];
  const queue = [''];
  while (queue.length && out.length < count) {
    const rel = queue.shift()!;
    let took = false;
    for (const e of readdirSync(join(mirror, rel), { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) queue.push(r);
      else if (e.isFile() && !took && out.length < count) {
        out.push(r);
        took = true;
      }
    }
  }
  return out;
}

/**
 * Renames each file in the mirror, one at a time, and times until the NAS answers with the new
 * name (GET every 10 ms). `walk.start` runs ahead of each rename (starts a walk, says whether it
 * runs); `walk.running` after the NAS confirmed.
 */
export async function renames(
  mirror: string,
  nas: NasApi,
  files: string[],
  tag: string,
  walk?: { start: () => Promise<boolean>; running: () => Promise<boolean> },
): Promise<RenameStats> {
  const times: number[] = [];
  let failed = 0,
    during = 0,
    still = 0;
  for (const [i, rel] of files.entries()) {
    const id = await nas.idOf(rel);
    if (!id) {
      failed++;
      continue;
    }
    const p = parse(rel);
    const newName = `${p.name} ${tag}${i}${p.ext}`;
    if (walk && (await walk.start())) during++;
    const t = performance.now();
    renameSync(join(mirror, rel), join(mirror, p.dir, newName));
    let ok = false;
    while (performance.now() - t < 30_000) {
      if ((await nas.getJson(`/files/${encodeURIComponent(id)}`)).body?.name === newName) {
        ok = true;
        break;
      }
      await sleep(10);
    }
    if (ok) times.push(performance.now() - t);
    else failed++;
    if (walk && ok && (await walk.running())) still++;
    files[i] = p.dir ? `${p.dir}/${newName}` : newName;
  }
  const s = (ms: number): number => Math.round(ms) / 1000;
  return {
    n: times.length,
    p50: s(pct(times, 50)),
    max: s(times.length ? Math.max(...times) : NaN),
    failed,
    ...(walk ? { duringWalk: during, walkStillRunning: still } : {}),
  };
}
