/**
 * The probe of `npm run bench:host` (and of a row of `bench:scale`): starts the app's engine
 * from this process on a fresh state folder pointed at a NAS, either in this process
 * (`startCore`, as before) or in its own process (`hostEngine` over a forked port, as
 * browser mode and the desktop app run it), and measures this process's event-loop delay
 * (`monitorEventLoopDelay`, max and p99), a 20 ms timer's worst lateness and an idle
 * control process's delay, from the start until the first walk is complete and placed.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { AppStatus } from '../app/contract/shapes.js';
import { startCore } from '../main/api/core.js';
import type { Core } from '../main/api/core-types.js';
import { hostEngine } from '../main/host/engine-client.js';
import { forkEngine } from '../main/host/node-port.js';
import type { Keychain } from '../main/keychain/keychain.js';
import { silentLogger } from '../main/log/logger.js';
import { noLoginItem } from '../main/settings/autostart.js';
import { DEFAULT_SETTINGS, SettingsStore } from '../main/settings/settings-store.js';
import { openStateDb } from '../main/state/db.js';
import { say } from './scale-probe.js';

const r1 = (x: number): number => Math.round(x * 10) / 10;

export interface HostRun {
  mode: 'in-process' | 'own-process';
  walkSec: number;
  objects: number;
  load: string;
  /** This process (the parent): the whole run, and the walk alone (after the engine answered ready). */
  loopMaxMs: number;
  loopP99Ms: number;
  timerLateMaxMs: number;
  walkLoopMaxMs: number;
  walkLoopP99Ms: number;
  /** An idle Node process meanwhile: how much of a stall is the shared machine's, not ours. */
  controlMaxMs: number;
  controlP99Ms: number;
}

/** An idle child measuring its own event-loop delay until asked (the machine's share of a stall). */
function startControl(): { stop(): Promise<{ max: number; p99: number }> } {
  const code =
    "const h=require('node:perf_hooks').monitorEventLoopDelay({resolution:5});h.enable();process.on('message',()=>{h.disable();process.send({max:h.max/1e6,p99:h.percentile(99)/1e6},()=>process.exit(0));});";
  const c = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    stop: () =>
      new Promise((resolve) => {
        c.once('message', (m) => resolve(m as { max: number; p99: number }));
        c.send('stop');
      }),
  };
}

export async function measureHost(mode: 'in-process' | 'own-process', baseUrl: string, token: string, base: string): Promise<HostRun> {
  const dataDir = join(base, `state-${mode}`);
  const mirror = join(base, `mirror-${mode}`);
  const db = openStateDb(dataDir);
  new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: mirror }).update({ source: 'url', location: baseUrl, mirrorFolder: mirror });
  db.close();
  const tokens = new Map([[baseUrl, token]]);
  const keychain: Keychain = {
    kind: 'os',
    get: async (a) => tokens.get(a),
    set: async (a, t) => {
      tokens.set(a, t);
    },
    delete: async (a) => tokens.delete(a),
  };
  const desktop = { open: async () => undefined, reveal: async () => undefined };
  const load = `load ${loadavg()[0]!.toFixed(2)}`;
  const control = startControl();
  const lag = monitorEventLoopDelay({ resolution: 5 });
  const walkLag = monitorEventLoopDelay({ resolution: 5 });
  let late = 0;
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    late = Math.max(late, now - last - 20);
    last = now;
  }, 20);
  lag.enable();
  const t0 = performance.now();
  let core: Core | undefined;
  try {
    core =
      mode === 'in-process'
        ? await startCore({ dataDir, log: silentLogger, keychain, desktop, loginItem: noLoginItem })
        : await hostEngine({
            spawn: forkEngine(),
            start: { dataDir, logLevel: 'none' },
            keychain,
            desktop,
            loginItem: noLoginItem,
            log: silentLogger,
          });
    const c = core;
    walkLag.enable();
    const done = (s: AppStatus): boolean => s.lastCompleteWalk !== null && !s.walk.running && s.walk.placed >= s.indexed && s.indexed > 0;
    await new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error('the first walk did not finish in 20 min')), 20 * 60_000);
      const check = setInterval(() => {
        if (done(c.status())) {
          clearInterval(check);
          clearTimeout(deadline);
          resolve();
        }
      }, 100);
    });
    const walkSec = r1((performance.now() - t0) / 1000);
    lag.disable();
    walkLag.disable();
    clearInterval(tick);
    const ctl = await control.stop();
    const run: HostRun = {
      mode,
      walkSec,
      objects: c.status().indexed,
      load,
      loopMaxMs: r1(lag.max / 1e6),
      loopP99Ms: r1(lag.percentile(99) / 1e6),
      timerLateMaxMs: r1(late),
      walkLoopMaxMs: r1(walkLag.max / 1e6),
      walkLoopP99Ms: r1(walkLag.percentile(99) / 1e6),
      controlMaxMs: r1(ctl.max),
      controlP99Ms: r1(ctl.p99),
    };
    say(`${mode}: ${JSON.stringify(run)}`);
    return run;
  } finally {
    lag.disable();
    walkLag.disable();
    clearInterval(tick);
    await core?.close();
  }
}
