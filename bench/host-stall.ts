/**
 * `npm run bench:host`: how long the process holding the window (Electron's main process, or
 * browser mode's UI server) stalls while the engine does a first walk, with the engine in the
 * same process (before: `startCore`) and in its own process (after: `hostEngine` over a
 * forked port, as browser mode and the desktop app run it). The real service runs in its own
 * process on a demo library of HOST_BENCH_SIZE objects (default 100000; never run 1M here);
 * HOST_BENCH_MODES picks the modes. The probe is bench/host-probe.ts. Writes
 * bench/results/host-stall.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServiceProcess } from '../server/testing.js';
import { measureHost, type HostRun } from './host-probe.js';
import { ROOT, runOk, say } from './scale-probe.js';

const N = Number(process.env['HOST_BENCH_SIZE'] ?? 100_000);
const MODES = (process.env['HOST_BENCH_MODES'] ?? 'in-process,own-process')
  .split(',')
  .filter((m): m is HostRun['mode'] => m === 'in-process' || m === 'own-process');

const base = mkdtempSync(join(tmpdir(), 'nm-host-bench-'));
try {
  const nas = join(base, 'nas');
  say(`demo library of ${N} objects...`);
  await runOk(process.execPath, ['bin/nas-service.js', 'demo', '--data', nas, '--objects', String(N)], {
    timeoutMs: 30 * 60_000,
    what: 'nas-service demo',
  });
  const token = (
    await runOk(process.execPath, ['bin/nas-service.js', 'token', 'demo', '--scope', 'nas_read_write', '--data', nas], {
      timeoutMs: 120_000,
      what: 'nas-service token',
    })
  ).stdout.trim();
  const svc = await spawnServiceProcess(nas, 0, 300_000);
  const runs: HostRun[] = [];
  try {
    for (const mode of MODES) runs.push(await measureHost(mode, svc.baseUrl, token, base));
  } finally {
    await svc.stop();
  }
  const out = { date: new Date().toISOString(), objects: N, cpus: cpus().length, runs };
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'host-stall.json'), JSON.stringify(out, null, 2) + '\n');
  process.stdout.write(
    `| engine | start + first walk to placed | parent event-loop delay, whole run: max (p99) | same, the walk only | 20 ms timer worst lateness | idle control process meanwhile: max (p99) |\n|---|---|---|---|---|---|\n${runs.map((r) => `| ${r.mode} | ${r.walkSec} s | ${r.loopMaxMs} ms (${r.loopP99Ms} ms) | ${r.walkLoopMaxMs} ms (${r.walkLoopP99Ms} ms) | ${r.timerLateMaxMs} ms | ${r.controlMaxMs} ms (${r.controlP99Ms} ms) |`).join('\n')}\n`,
  );
} finally {
  rmSync(base, { recursive: true, force: true, maxRetries: 5 });
}
