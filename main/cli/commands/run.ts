/**
 * `nas-mirror run --device FILE|URL [--state DIR] --dir MIRROR [--token-env VAR] [--once]`:
 * the background engine of the local folder (walk, placeholders, watch, replay, periodic
 * re-walk), with the offline index following every change. SIGTERM/SIGINT stop it cleanly;
 * `--once` does one full round (walk, placeholders, rescan, replay) and exits. Both folders
 * are said back in full first (a relative one is taken from the current folder); the state
 * folder defaults to the app's own; a new mirror's folder must be empty or new, as in the
 * window. The log is lines for people, JSON lines with --log-json.
 */
import { resolve } from 'node:path';
import { createEngine, openMirrorState, type MirrorState } from '../../api/compose.js';
import { ServiceClient } from '../../client/service-client.js';
import { HttpTransport } from '../../client/transport.js';
import { connect, type Connection } from '../../connection/connect.js';
import { FailoverTransport } from '../../connection/failover.js';
import { loadDevice } from '../../connection/device.js';
import { tightenHeapGrowth } from '../../host/engine-env.js';
import { serveEngineUi } from '../../host/run-ui.js';
import { DEFAULT_THRESHOLD } from '../../local/plan.js';
import type { Engine } from '../../engine/engine.js';
import type { EngineStatus } from '../../engine/status.js';
import { humanSink } from '../../log/human-format.js';
import { createLogger, type LogSink } from '../../log/logger.js';
import { LocalStore } from '../../local/local-store.js';
import type { CliIO, CommandOf } from '../io.js';
import type { run as spec } from '../specs.js';
import { isFreeFolder, prepareFolders } from '../../settings/folders.js';
import { resolveAuth, stateDirOf } from '../state.js';

/** The parsed options of `nas-mirror run`. */
type RunArgs = Parameters<CommandOf<typeof spec>>[0];

export const run: CommandOf<typeof spec> = async (args, io) => {
  // this process is the engine's (engine-env.ts)
  tightenHeapGrowth();
  const rewalk = args.int('rewalk-sec');
  const holdMs = args.int('hold-ms');
  const uiPort = args.int('ui-port');
  const threshold = {
    count: args.int('delete-limit') ?? DEFAULT_THRESHOLD.count,
    percent: args.int('delete-percent') ?? DEFAULT_THRESHOLD.percent,
  };
  const stateDir = stateDirOf(args.str('state'), io.env);
  const mirrorDir = resolve(args.need('dir'));
  prepareFolders(stateDir, mirrorDir);
  io.stderr.write(`mirror folder ${mirrorDir} (state in ${stateDir}${args.has('state') ? '' : ", the app's data folder"})\n`);
  const { conn, failover, client } = await connectNas(args, io);
  const state = await openMirrorState(stateDir);
  const { store, opened } = state;
  const local = new LocalStore(state.db);
  const refusal = folderRefusal(local.meta('mirrorDir'), mirrorDir);
  if (refusal !== undefined) {
    state.close();
    failover.close();
    io.stderr.write(`nas-mirror run: ${refusal}\n`);
    return 1;
  }
  local.setMeta('mirrorDir', mirrorDir);
  const stderr: LogSink = { write: (l) => io.stderr.write(l) };
  const verbose = args.flag('verbose');
  const log = createLogger('engine', args.flag('log-json') ? stderr : humanSink(stderr, { details: verbose }), verbose ? 'debug' : 'info');
  const engine = createEngine(state, {
    mirrorDir,
    client,
    log,
    endpoint: conn.baseUrl,
    rewalkMs: rewalk === undefined ? 60_000 : rewalk * 1000,
    // --once compares a still folder with the stored state: no event is in flight, nothing to wait for.
    holdMs: holdMs ?? (args.flag('once') ? 0 : 1000),
    threshold,
  });
  // --ui: the window in a browser on 127.0.0.1 (main/host/run-ui.ts)
  const ui =
    args.flag('ui') && !args.flag('once')
      ? await serveEngineUi({
          engine,
          index: () => opened.index,
          store,
          log,
          port: uiPort,
          location: args.need('device'),
          tokenPlace: args.has('token-env') ? 'memory' : 'keychain',
          rewalkSec: rewalk ?? 60,
          threshold,
        })
      : undefined;
  if (ui) io.stdout.write(`window: ${ui.url}\n`);
  const running: Running = { engine, ui, state, failover };
  if (args.flag('once')) return runOnce(running, args.has('token-env'), io);
  return runUntilStopped(running, mirrorDir, io);
};

/** What a run holds open, closed in this order by `shutdown`. */
interface Running {
  engine: Engine;
  ui: Awaited<ReturnType<typeof serveEngineUi>> | undefined;
  state: MirrorState;
  failover: FailoverTransport;
}

/**
 * The NAS of --device: signed in, connected (LAN first, said on stderr), the address checked
 * again on errors and periodically (LAN down, proxy up, and back); the client over it.
 */
async function connectNas(args: RunArgs, io: CliIO): Promise<{ conn: Connection; failover: FailoverTransport; client: ServiceClient }> {
  const transport = new HttpTransport();
  const candidates = await loadDevice(args.need('device'), transport);
  const { token, transport: authed, signedIn } = await resolveAuth(io.env, args.str('token-env'), candidates, transport);
  const conn = await connect(candidates, authed, token);
  io.stderr.write(`${conn.description}\n`);
  const failover = new FailoverTransport(authed, conn.baseUrl, conn, candidates[0]!.via, {
    recheck: () => connect(candidates, authed, token),
    onSwitch: (c) => io.stderr.write(`now ${c.description}\n`),
  });
  const client = new ServiceClient({
    baseUrl: conn.baseUrl,
    token,
    transport: failover,
    ...(signedIn ? { secrets: () => signedIn.secrets() } : {}),
    onWarning: (m) => io.stderr.write(`warning: ${m}\n`),
  });
  return { conn, failover, client };
}

/** Why this state folder may not mirror `mirrorDir` (it mirrors another, or the new mirror's folder holds files), or undefined. */
function folderRefusal(known: string | undefined, mirrorDir: string): string | undefined {
  if (known !== undefined && known !== mirrorDir)
    return `this state folder mirrors ${known}, not ${mirrorDir}; use another --state for another folder`;
  // a new mirror goes into an empty or new folder, as the window asks (placeholders never go among existing files)
  if (known === undefined && !isFreeFolder(mirrorDir))
    return `the folder ${mirrorDir} already holds files: choose an empty or new folder for the mirror`;
  return undefined;
}

/** Closes what a run holds: the window's server, the engine, the offline index (saved), the state, the connection. */
async function shutdown(r: Running): Promise<void> {
  await r.ui?.close();
  await r.engine.stop();
  await r.state.opened.save();
  r.state.close();
  r.failover.close();
}

/** `--once`: one full round, its outcome on stdout; exit 1 when it did not finish its job. */
async function runOnce(r: Running, tokenFromEnv: boolean, io: CliIO): Promise<number> {
  const { engine } = r;
  try {
    await engine.runOnce();
    const s = engine.status();
    io.stdout.write(
      `${s.state}: ${s.objects} objects, outbox ${s.outbox.pending} pending, ${s.conflicts} conflicts, ` +
        `${s.heldDeletes} held deletes, ${s.localOnly} local only\n`,
    );
    const problem = onceProblem(s, tokenFromEnv);
    if (problem !== undefined) io.stderr.write(`nas-mirror run: ${problem}\n`);
    return problem === undefined ? 0 : 1;
  } finally {
    await shutdown(r);
  }
}

/** The engine until SIGTERM or SIGINT (or a failed start, thrown after the clean stop). */
async function runUntilStopped(r: Running, mirrorDir: string, io: CliIO): Promise<number> {
  const { engine } = r;
  // Signals are taken before starting, so a SIGTERM during the first round also stops cleanly.
  let stopRequested!: () => void;
  let stopping = false;
  const stopped = new Promise<void>((res) => {
    stopRequested = () => {
      stopping = true;
      res();
    };
  });
  const onSignal = (): void => stopRequested();
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  let startError: unknown;
  // Ready = watched and matching the model; the first round goes on after it (catch-up walk, replay).
  let announced = false;
  const announce = (): void => {
    if (announced || stopping) return;
    announced = true;
    io.stderr.write(`watching ${mirrorDir}\n`);
  };
  engine.events.on('ready', announce);
  const starting = engine.start().then(announce, (e: unknown) => {
    startError = e;
    stopRequested();
  });
  try {
    await stopped;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await engine.stop(); // aborts a walk in progress
    await starting;
    await shutdown(r);
  }
  if (startError !== undefined) throw startError;
  io.stderr.write('stopped\n');
  exitSoonIfHeldOpen(io);
  return 0;
}

/**
 * Everything is saved once "stopped" is printed. A handle a library leaves open (the
 * convergence test saw an fs.watch of a folder renamed just before the stop, in chokidar's
 * close, when the app still used chokidar) must not keep a stopped engine alive: after 3 s the process says what was still
 * open and exits. The timer is unref'd, so a clean stop exits at once, as before.
 */
function exitSoonIfHeldOpen(io: Pick<CliIO, 'stderr'>): void {
  // only as the process's own command (never inside another program that called main())
  if (!/nas-mirror(\.m?js)?$/.test(process.argv[1] ?? '')) return;
  setTimeout(() => {
    io.stderr.write(
      `nas-mirror run: still held open after stopping (${
        process
          .getActiveResourcesInfo()
          .filter((r) => r !== 'Timeout')
          .join(', ') || 'nothing named'
      }); exiting\n`,
    );
    process.exit(process.exitCode ?? 0);
  }, 3000).unref();
}

/** Why a `--once` round did not finish its job (exit 1), or undefined when it did. */
export function onceProblem(s: EngineStatus, tokenFromEnv: boolean): string | undefined {
  const queued =
    s.outbox.pending > 0
      ? `; ${s.outbox.pending === 1 ? '1 change stays' : `${s.outbox.pending} changes stay`} queued for the next run`
      : '; nothing was lost';
  if (s.mirrorMissing) return `${s.mirrorMissing}; sync is paused, nothing was deleted`;
  if (s.state === 'auth-error')
    return (
      `the NAS refused the token${s.error ? ` (${s.error.message})` : ''}: ` +
      `${tokenFromEnv ? 'pass a valid token with --token-env' : 'run "nas-mirror login" again'}${queued}`
    );
  if (s.state === 'offline' || s.connection === 'offline')
    return `the NAS is not reachable${s.error ? ` (${s.error.message})` : ''}${queued}`;
  if (s.error?.code === 'BadResponse') return `the walk is incomplete, nothing was inferred deleted: ${s.error.message}${queued}`;
  if (s.error?.code === 'DiskError') return `the mirror folder could not be read or written: ${s.error.message}${queued}`;
  if (s.conflicts > 0 || s.heldDeletes > 0) {
    const parts = [
      s.conflicts > 0 ? `${s.conflicts === 1 ? '1 change' : `${s.conflicts} changes`} the NAS did not take (nas-mirror conflicts)` : '',
      s.heldDeletes > 0
        ? `${s.heldDeletes === 1 ? '1 delete' : `${s.heldDeletes} deletes`} held for your confirmation (nas-mirror held)`
        : '',
    ].filter(Boolean);
    return `needs attention: ${parts.join(', ')}`;
  }
  return undefined;
}
