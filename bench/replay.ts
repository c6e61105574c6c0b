/**
 * `npm run bench:replay`: the local folder replaying to the reference service on loopback.
 * (1) a local rename until the NAS answered 204 (p50/p99, including watcher batching and
 * pairing); (2) 1,000 renames made offline, replayed after reconnect; (3) a folder with
 * 10,000 descendants renamed: requests sent (must be 1) and time. Prints a table, writes
 * bench/results/replay.json. REPLAY_BEFORE=REF: that version runs first (its own bench, in a
 * git worktree, as a child process), then this one, in the same run; the table shows both.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from '../server/testing.js';
import { ServiceClient } from '../main/client/service-client.js';
import { FaultTransport } from '../main/client/fault-transport.js';
import { HttpTransport } from '../main/client/transport.js';
import { Engine } from '../main/engine/engine.js';
import { silentLogger } from '../main/log/logger.js';
import { removeWorktrees, worktree } from './worktree.js';

const RENAMES = Number(process.env['BENCH_RENAMES'] ?? 50);
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const until = async (c: () => boolean, ms = 120_000): Promise<void> => {
  const t0 = performance.now();
  while (!c()) {
    if (performance.now() - t0 > ms) throw new Error('bench condition timed out');
    await new Promise((r) => setTimeout(r, 1));
  }
};

interface Setup {
  svc: TestService;
  engine: Engine;
  mirror: string;
  base: string;
  net: { offline: boolean };
  client: ServiceClient;
}

async function setup(seed: (svc: TestService, root: string) => void): Promise<Setup> {
  const svc = await startTestService();
  seed(svc, svc.admin.rootId());
  const base = mkdtempSync(join(tmpdir(), 'bench-replay-'));
  const mirror = join(base, 'mirror');
  const net = { offline: false };
  const transport = new FaultTransport(new HttpTransport(), () => (net.offline ? { kind: 'reset-before' } : undefined));
  const client = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token(), transport, retries: 0 });
  const engine = new Engine({
    stateDir: join(base, 'state'),
    mirrorDir: mirror,
    client,
    log: silentLogger,
    rewalkMs: 0,
    rescanMs: 0,
    threshold: { count: 50, percent: 10 },
  });
  await engine.start();
  return { svc, engine, mirror, base, net, client };
}

async function teardown(s: Setup): Promise<void> {
  await s.engine.stop();
  s.client.close();
  await s.svc.stop();
  rmSync(s.base, { recursive: true, force: true });
}

/** The REPLAY_BEFORE version's own bench, run as a child in a worktree: its results. */
function runBefore(ref: string): { commit: string; results: Record<string, unknown> } {
  const dir = join(mkdtempSync(join(tmpdir(), 'nm-replay-code-')), 'before');
  try {
    const code = worktree(ref, dir);
    console.log(`before: ${code.commit}`);
    execFileSync(process.execPath, ['--import', 'tsx', 'bench/replay.ts'], {
      cwd: code.root,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, REPLAY_BEFORE: '' },
    });
    const r = JSON.parse(readFileSync(join(code.root, 'bench/results/replay.json'), 'utf8')) as Record<string, unknown>;
    return { commit: code.commit, results: r };
  } finally {
    removeWorktrees();
  }
}

async function main(): Promise<void> {
  const ref = process.env['REPLAY_BEFORE'] ?? '';
  const before = ref ? runBefore(ref) : undefined;
  const results: Record<string, unknown> = {};
  // 1. Single renames, one at a time.
  {
    const ids: string[] = [];
    const s = await setup((svc, root) => {
      for (let i = 0; i < RENAMES; i++) ids.push(svc.admin.createFile(root, `f${i}`).id);
    });
    const lat: number[] = [];
    for (let i = 0; i < RENAMES; i++) {
      const t0 = performance.now();
      renameSync(join(s.mirror, `f${i}`), join(s.mirror, `g${i}`));
      await until(() => s.svc.admin.get(ids[i]!)!.name === `g${i}`);
      lat.push(performance.now() - t0);
    }
    results['renameToNas204'] = {
      n: RENAMES,
      p50Ms: Math.round(pct(lat, 50)),
      p99Ms: Math.round(pct(lat, 99)),
      maxMs: Math.round(Math.max(...lat)),
      targetP50Ms: 1000,
    };
    await teardown(s);
  }
  // 2. 1,000 offline renames, replayed after reconnect.
  {
    const ids: string[] = [];
    const s = await setup((svc, root) => {
      const f = svc.admin.createFolder(root, 'F');
      for (let i = 0; i < 1000; i++) ids.push(svc.admin.createFile(f.id, `o${i}`).id);
    });
    s.net.offline = true;
    for (let i = 0; i < 1000; i++) renameSync(join(s.mirror, 'F', `o${i}`), join(s.mirror, 'F', `r${i}`));
    await until(() => s.engine.status().outbox.pending === 1000);
    const before = s.svc.requests().length;
    const t0 = performance.now();
    s.net.offline = false;
    s.engine.kickOutbox();
    await until(() => s.engine.status().outbox.pending === 0);
    const ms = performance.now() - t0;
    const ok = ids.every((id, i) => s.svc.admin.get(id)!.name === `r${i}`);
    const posts = s.svc
      .requests()
      .slice(before)
      .filter((r) => r.method === 'POST').length;
    results['offlineRenamesReplay'] = { renames: 1000, seconds: +(ms / 1000).toFixed(2), patches: posts, allApplied: ok, targetSeconds: 5 };
    await teardown(s);
  }
  // 3. A folder with 10,000 descendants renamed.
  {
    let big = '';
    let warm = '';
    const s = await setup((svc, root) => {
      warm = svc.admin.createFile(root, 'warm-up.txt').id;
      big = svc.admin.createFolder(root, 'Big').id;
      for (let d = 0; d < 100; d++) {
        const sub = svc.admin.createFolder(big, `sub${d}`).id;
        for (let f = 0; f < 99; f++) svc.admin.createFile(sub, `file${f}`);
      }
    });
    // the client checks once per process that the NAS honours If-Match (an empty patch, before
    // its first change): made here by a first rename, so it is not counted as the folder's
    renameSync(join(s.mirror, 'warm-up.txt'), join(s.mirror, 'warmed-up.txt'));
    await until(() => s.svc.admin.get(warm)!.name === 'warmed-up.txt');
    await s.engine.drainOutbox();
    const before = s.svc.requests().length;
    const t0 = performance.now();
    renameSync(join(s.mirror, 'Big'), join(s.mirror, 'Huge'));
    await until(() => s.svc.admin.get(big)!.name === 'Huge');
    const ms = performance.now() - t0;
    await s.engine.fullRescan();
    await s.engine.drainOutbox();
    const writes = s.svc
      .requests()
      .slice(before)
      .filter((r) => r.method !== 'GET').length;
    results['folderRename10k'] = { descendants: 10_000, requestsSent: writes, seconds: +(ms / 1000).toFixed(2), mustBe: 1 };
    await teardown(s);
  }
  const cells = (r: Record<string, unknown>): string[] => {
    const r1 = r['renameToNas204'] as { p50Ms: number; p99Ms: number; n: number };
    const r2 = r['offlineRenamesReplay'] as { seconds: number; patches: number };
    const r3 = r['folderRename10k'] as { requestsSent: number; seconds: number };
    return [
      `p50 ${r1.p50Ms} ms, p99 ${r1.p99Ms} ms`,
      `${r2.seconds} s (${r2.patches} patches)`,
      `${r3.requestsSent} request(s), ${r3.seconds} s`,
    ];
  };
  const rows = ['local rename -> NAS 204', '1,000 offline renames replayed after reconnect', 'folder with 10,000 descendants renamed'];
  const targets = ['p50 <= 1000 ms', '<= 5 s', '1 request'];
  const now = cells(results);
  const was = before ? cells(before.results) : undefined;
  console.log(
    `| measure | ${was ? `before (${before!.commit.slice(0, 7)}) | now` : 'result'} | target |\n|---|${was ? '---|' : ''}---|---|`,
  );
  rows.forEach((m, i) => console.log(`| ${m} | ${was ? `${was[i]} | ` : ''}${now[i]} | ${targets[i]} |`));
  const out = {
    at: new Date().toISOString(),
    node: process.version,
    cpus: (await import('node:os')).cpus().length,
    ...results,
    ...(before ? { before: { commit: before.commit, ...before.results } } : {}),
  };
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/replay.json', JSON.stringify(out, null, 2) + '\n');
  console.log(JSON.stringify(out));
}

await main();
