/**
 * THE background engine of the local folder: walk the NAS into the mirror store, keep the
 * placeholders in line (remote -> disk), watch the folder and replay the user's renames,
 * moves and deletes through the persistent outbox (disk -> NAS), re-walk periodically.
 * Its public methods take and return plain JSON-able data (for the window, the headless
 * UI and the command line); events are typed. One lock serialises every change to the
 * local model; network requests run outside it.
 */
import { toAppError } from '../../app/errors.js';
import type { AttemptEvent, ServiceClient } from '../client/service-client.js';
import type { Logger } from '../log/logger.js';
import { ChangeApplier } from '../mirror/apply.js';
import { MirrorStore } from '../mirror/store.js';
import { openStateDb, type Db } from '../state/db.js';
import type { Disk } from '../local/disk.js';
import { probeFsTraits, type FsTraits } from '../local/fs-traits.js';
import { LocalStore } from '../local/local-store.js';
import { LocalModel } from '../local/model.js';
import { DEFAULT_THRESHOLD, type DeleteThreshold } from '../local/plan.js';
import type { WatcherOptions } from '../local/watch.js';
import { OutboxStore } from '../outbox/outbox-store.js';
import { Lock, type ActivityInput, type Core } from './core.js';
import { canSend, initialState, reduce, retryDelayMs, type Connection, type EngineEvent, type EngineState } from './engine-state.js';
import { EngineEvents } from './events.js';
import { checkRoot, initRoot } from './mirror-root.js';
import { lockStateDir } from './instance-lock.js';
import { EngineActions } from './actions.js';
import { LocalRounds } from './local-rounds.js';
import { PlanQueue } from './plan-queue.js';
import { OutboxPump } from './outbox-pump.js';
import { RemoteRounds } from './remote-rounds.js';
import { buildStatus, type EngineStatus } from './status.js';

export interface EngineOptions {
  stateDir: string;
  mirrorDir: string;
  client: ServiceClient;
  log: Logger;
  /** Share a db/store/applier with other components (offline index); created when absent. */
  db?: Db;
  store?: MirrorStore;
  applier?: ChangeApplier;
  traits?: FsTraits;
  /** The disk seam (tests: a FaultDisk); default node:fs. */
  disk?: Disk;
  threshold?: DeleteThreshold;
  /** How long a disappearance waits for its twin (default 1000 ms). */
  holdMs?: number;
  /** Re-walk period (default 60 s); 0 = never. */
  rewalkMs?: number;
  /** Local check period (default 10 min): the watcher's self-test, then every folder's stamp; 0 = never. */
  rescanMs?: number;
  /** Full local rescan period, every file (default 6 h; a running watcher sees changes as they happen); 0 = never. */
  fullRescanMs?: number;
  /** How often the command line's queued requests are read (default 500 ms). */
  requestPollMs?: number;
  watcher?: WatcherOptions;
  /** Where the NAS is reached, for status. */
  endpoint?: string;
}

/** Periodic re-walks use at most this share of one core (see startTimers). */
const REWALK_CPU_SHARE = 0.01;

export class Engine {
  readonly events = new EngineEvents();
  readonly core: Core;
  readonly actions: EngineActions;
  private readonly lock = new Lock();
  private timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private readonly pump: OutboxPump;
  private readonly remote: RemoteRounds;
  private readonly localSide: LocalRounds;
  private readonly offApplier: () => void;
  private readonly offClient: () => void;
  private st: EngineState;
  /** The connection last written to the log and the state db (undefined before the first). */
  private announced: Connection | undefined;
  private timersStarted = false;
  /** Aborts a walk in progress when the engine stops. */
  private readonly abort = new AbortController();
  private release: (() => void) | undefined;
  /** Set once the folder is watched and matches the model: what `run` calls ready. */
  ready = false;

  constructor(private readonly opts: EngineOptions) {
    const db = opts.db ?? openStateDb(opts.stateDir);
    const store = opts.store ?? new MirrorStore(db);
    const applier = opts.applier ?? new ChangeApplier(store);
    const local = new LocalStore(db);
    const rootId = store.root()?.id ?? '';
    this.core = {
      root: opts.mirrorDir, db, store, applier, local, outbox: new OutboxStore(db),
      model: rootId ? local.loadModel(rootId) : new LocalModel(''),
      traits: opts.traits ?? { caseInsensitive: false, windowsNames: false, maxNameBytes: 255 },
      disk: opts.disk,
      threshold: opts.threshold ?? DEFAULT_THRESHOLD,
      holdMs: opts.holdMs ?? 1000,
      log: opts.log,
      activity: (a: ActivityInput) => this.recordActivity(a),
    };
    this.st = initialState(local.meta('paused') === '1');
    const plans = new PlanQueue(local, store);
    const report = (ev: EngineEvent): void => this.dispatch(ev);
    const failed = (step: string, e: unknown): void => this.failed(step, e);
    const healthy = (): Promise<boolean> => this.checkHealth();
    const stopped = (): boolean => this.stopped;
    const schedule = (fn: () => void, ms: number): void => this.schedule(fn, ms);
    this.remote = new RemoteRounds({
      core: this.core, lock: this.lock, client: opts.client, plans, signal: this.abort.signal,
      stopped, state: () => this.st, report, healthy, failed,
      indexChanged: () => this.events.emit('changed', { what: 'index' }),
    });
    this.localSide = new LocalRounds({
      core: this.core, lock: this.lock, watcherOptions: opts.watcher, stopped, report, healthy, schedule, failed,
      recheckHealth: () => this.schedule(() => void this.healthTick(), 2000),
      notice: (n) => this.events.emit('notice', n),
      queued: () => { this.events.emit('changed', { what: 'conflicts' }); this.emitStatus(); },
      kickOutbox: () => this.kickOutbox(),
    });
    this.offApplier = applier.onChanges((cs) => {
      plans.note(cs.map((c) => (c.kind === 'removed' ? c.before.id : c.after.id)));
      this.remote.storeChanged();
    });
    // Every request's attempt is evidence of the link: a NAS that stops answering is "offline"
    // at its first failed attempt, not after the client's retries (issue 11, point 8).
    this.offClient = opts.client.observe((a) => {
      if (this.stopped) return;
      const ev = attemptEvent(a);
      if (ev) this.dispatch(ev);
    });
    this.pump = new OutboxPump({
      settle: this.core, lock: this.lock, client: opts.client, report, failed, schedule,
      canSend: () => !this.stopped && canSend(this.st),
      retryDelay: () => retryDelayMs(this.st, Math.random()),
      settled: (id) => this.remote.settled(id),
      ranThrough: async ({ follow, sent }) => {
        if (follow) await this.remote.reconcileNow();
        if (sent) { this.emitStatus(); this.events.emit('changed', { what: 'activity' }); }
      },
    });
    this.actions = new EngineActions(this.core, this.lock, {
      afterChange: () => { this.kickOutbox(); this.events.emit('changed', { what: 'conflicts' }); },
      reconcile: () => this.remote.reconcileEverything(),
      setPaused: (p) => this.setPaused(p),
      syncNow: () => this.syncNow(),
    });
  }

  /** The engine's state (engine-state.ts), read-only: change it with events. */
  get state(): EngineState {
    return this.st;
  }

  /** Feeds one event to the state machine; a transition's effects (log, state db, status event) follow here only. */
  private dispatch(ev: EngineEvent): void {
    const prev = this.st;
    const next = reduce(prev, ev);
    if (next === prev) return;
    this.st = next;
    if (next.connection !== this.announced) this.announce(next);
    // a walk's progress is read with the status, not pushed (it changes per page)
    if (!QUIET.has(ev.type) || next.connection !== prev.connection || next.linkError !== prev.linkError) this.emitStatus();
  }

  /**
   * The link changed: logged once per change and kept in the state db, so `nas-mirror status`
   * in another process says "offline", not "syncing".
   */
  private announce(s: EngineState): void {
    const was = this.announced;
    this.announced = s.connection;
    const e = s.linkError;
    if (s.connection === 'online') {
      if (was !== 'online') this.opts.log.info('online', { summary: 'the NAS answers again; queued changes are being sent' });
      this.core.local.setMeta('connection', undefined);
      return;
    }
    const auth = s.connection === 'auth-error';
    this.opts.log.warn(s.connection, { summary: auth ? `the NAS refused the token (${e?.message ?? ''})` : `the NAS is not reachable (${e?.message ?? ''}); changes wait in the outbox`, reason: e?.code ?? '' });
    this.core.local.setMeta('connection', JSON.stringify({ state: s.connection, message: e?.message ?? '' }));
  }

  private recordActivity(a: ActivityInput): void {
    const seq = this.core.local.addActivity(a);
    this.opts.log.info(a.kind, { path: a.path, summary: a.summary, reason: a.reason });
    this.events.emit('activity', { id: String(seq), at: new Date().toISOString(), kind: a.kind, path: a.path, summary: a.summary, reason: a.reason, undoable: a.outboxSeq !== undefined && (a.kind === 'renamed' || a.kind === 'moved') });
  }

  /**
   * Starts. A first start walks the NAS (placeholders follow batch by batch). A restart does
   * not wait for the NAS: it places what the store has that the disk does not show yet, reads
   * only the folders whose stamp moved while stopped, watches, and is READY; then one
   * catch-up walk (one conditional listing per folder: 304 for what did not change) and the
   * outbox replay. Resolves when that first round is done.
   */
  async start(): Promise<void> {
    const t0 = Date.now();
    if (!(await this.prepare())) {
      this.schedule(() => void this.healthTick(), 2000);
      return;
    }
    await this.actions.processRequests();
    const restart = this.core.store.lastWalk() !== undefined && this.core.model.rootId !== '';
    if (!restart && !this.st.paused) await this.walkOnce();
    else await this.remote.catchUp();
    // What changed on disk while stopped, then what changed while chokidar read the tree.
    await this.checkDirs();
    await this.localSide.startWatching();
    await this.checkDirs();
    if (this.stopped) return;
    this.ready = true;
    this.events.emit('ready', { restart, ms: Date.now() - t0 });
    this.kickOutbox();
    if (restart && !this.st.paused) await this.walkOnce();
    await this.drainOutbox();
    if (!this.stopped) this.startTimers();
  }

  /** One round without watching (`run --once`): disk and NAS compared once, outbox replayed. */
  async runOnce(): Promise<void> {
    if (await this.prepare()) await this.round();
  }

  private async prepare(): Promise<boolean> {
    this.release ??= lockStateDir(this.opts.stateDir);
    const c = this.core;
    if (c.model.size === 0) initRoot(c.root);
    if (!this.opts.traits) c.traits = probeFsTraits(c.root);
    return this.checkHealth();
  }

  /** One round: walk (placeholders follow), the folders whose stamp moved, replay the outbox. */
  async round(): Promise<void> {
    await this.actions.processRequests();
    if (!this.st.paused) await this.walkOnce();
    else await this.remote.catchUp();
    await this.checkDirs();
    if (!this.st.paused) await this.drainOutbox();
  }

  /** Reads the folders whose stamp moved (one lstat per folder, none per file). */
  async checkDirs(): Promise<void> {
    await this.localSide.checkDirs();
  }

  /** Reads the whole mirror folder and compares it with the stored state. */
  async fullRescan(): Promise<void> {
    await this.localSide.fullRescan();
  }

  /** Walks the NAS once (not while paused); true when the walk was complete. */
  async walkOnce(): Promise<boolean> {
    return this.remote.walkOnce();
  }

  private startTimers(): void {
    this.timersStarted = true;
    const every = (ms: number | undefined, fn: () => void): void => {
      if (!ms) return;
      // Not unref'd: a running engine keeps its process alive until stop().
      const t = setInterval(fn, ms);
      this.timers.add(t);
    };
    const rewalk = this.opts.rewalkMs ?? 60_000;
    if (rewalk > 0) {
      // The next re-walk comes rewalkMs after the last one ended, or later when the last one
      // cost more CPU than REWALK_CPU_SHARE of the time until the next: an unchanged
      // million-object NAS (15k folders answering 304) is then re-walked every few minutes
      // instead of keeping a core busy. Local changes are sent at once whatever this says.
      const delay = (): number => Math.max(rewalk, this.remote.lastWalkCpuMs / REWALK_CPU_SHARE);
      const next = (): void => this.schedule(() => {
        void this.walkOnce().then(() => this.kickOutbox(), (e: unknown) => this.failed('walk', e)).finally(next);
      }, delay());
      next();
    }
    every(this.opts.rescanMs ?? 600_000, () => void this.localSide.periodicCheck().catch((e: unknown) => this.failed('rescan', e)));
    every(this.opts.fullRescanMs ?? 6 * 3600_000, () => void this.fullRescan().catch((e: unknown) => this.failed('rescan', e)));
    every(this.opts.requestPollMs ?? 500, () => void this.actions.processRequests());
  }

  private schedule(fn: () => void, ms: number): void {
    const t = setTimeout(() => { this.timers.delete(t); if (!this.stopped) fn(); }, ms);
    this.timers.add(t);
  }

  /** Fault injection for tests: the watcher reports this error. */
  simulateWatcherError(e: NodeJS.ErrnoException): void {
    this.localSide.simulateWatcherError(e);
  }

  /** The mirror folder's health: a vanished or emptied folder pauses sync (nothing is deleted). */
  private async checkHealth(): Promise<boolean> {
    const c = this.core;
    const rootId = c.model.rootId;
    const top = rootId ? c.model.children(rootId).filter((id) => { const e = c.model.get(id)!; return e.state === 'ok' && e.ino !== null; }).length : 0;
    const h = checkRoot(c.root, top);
    const was = this.st.mirrorMissing;
    this.dispatch(h.ok ? { type: 'health', ok: true } : { type: 'health', ok: false, reason: h.reason });
    if (h.ok && was !== undefined) c.activity({ kind: 'resumed', path: '', summary: 'mirror folder is back: sync resumed', reason: 'the folder and its marker are present' });
    if (!h.ok && was === undefined) {
      c.activity({ kind: 'paused', path: '', summary: 'sync paused: nothing will be deleted', reason: h.reason });
      this.events.emit('notice', { level: 'error', message: `${h.reason}. Sync is paused and nothing is deleted on the NAS. Restore the folder, or resume to recreate the placeholders.` });
    }
    return h.ok;
  }

  private async healthTick(): Promise<void> {
    try {
      await this.healthTickUnsafe();
    } catch (e) {
      this.failed('health check', e);
      this.schedule(() => void this.healthTick(), 5000);
    }
  }

  private async healthTickUnsafe(): Promise<void> {
    if (this.stopped) return;
    const wasMissing = this.st.mirrorMissing !== undefined;
    const ok = await this.lock.run(() => this.checkHealth());
    if (ok) {
      // The watched folder may be a new one (recreated, remounted): watch it afresh.
      if (wasMissing) await this.localSide.closeWatcher();
      await this.fullRescan();
      await this.localSide.startWatching();
      if (!this.timersStarted) this.startTimers();
      this.kickOutbox();
    } else this.schedule(() => void this.healthTick(), 2000);
  }

  /** An unexpected failure of a background step: logged and shown, never a crash. */
  private failed(step: string, e: unknown): void {
    const err = toAppError(e);
    this.opts.log.error(`${step} failed`, { code: err.code, message: err.message });
    try {
      this.core.activity({ kind: 'error', path: '', summary: `${step} failed`, reason: `${err.code}: ${err.message}` });
    } catch {
      // the state db itself may be the problem
    }
    this.events.emit('notice', { level: 'error', message: `${step} failed: ${err.message}` });
  }

  /** Runs `fn` under the engine's lock (features outside the engine that enqueue changes, e.g. Organize). */
  locked<T>(fn: () => Promise<T> | T): Promise<T> {
    return this.lock.run(fn);
  }

  /** Starts the outbox pump if it is not running. */
  kickOutbox(): void {
    this.pump.kick();
  }

  /** Sends until the outbox is empty or the NAS cannot be reached. */
  async drainOutbox(): Promise<void> {
    await this.pump.drain();
  }

  /** Re-walk now and replay. */
  async syncNow(): Promise<void> {
    await this.walkOnce();
    await this.checkDirs();
    await this.drainOutbox();
  }

  async setPaused(paused: boolean): Promise<void> {
    this.core.local.setMeta('paused', paused ? '1' : '0');
    this.dispatch({ type: 'paused', paused });
    this.core.activity({ kind: paused ? 'paused' : 'resumed', path: '', summary: paused ? 'sync paused by you' : 'sync resumed by you', reason: 'user request' });
    if (!paused && this.st.mirrorMissing !== undefined) {
      await this.localSide.closeWatcher();
      await this.actions.restoreMirror();
    }
    if (!paused) { this.kickOutbox(); void this.healthTick(); }
    this.emitStatus();
  }

  status(): EngineStatus {
    return buildStatus(this.core, this.st, this.localSide.watcherView(), this.opts.endpoint ?? null);
  }

  private emitStatus(): void {
    this.events.emit('status', this.status());
  }

  /** Stops timers and the watcher, waits for the step in progress; closes the db if it owns it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.offApplier();
    this.offClient();
    this.abort.abort();
    for (const t of this.timers) { clearTimeout(t); clearInterval(t); }
    this.timers.clear();
    await this.localSide.closeWatcher();
    await this.pump.idle();
    await this.lock.run(() => undefined);
    if (!this.opts.db) this.core.db.close();
    this.release?.();
    this.release = undefined;
  }
}

/** Events that change only the walk's counters. */
const QUIET: ReadonlySet<EngineEvent['type']> = new Set(['walk-progress', 'walk-placed']);

/** What one request's attempt says of the link: no answer or a 401 -> failed; an answer below 500 -> reachable. */
function attemptEvent(a: AttemptEvent): EngineEvent | undefined {
  if (a.error === 'NetworkError' || a.error === 'Timeout') {
    const what = a.error === 'Timeout' ? 'timed out' : 'no connection';
    return { type: 'link-failed', error: { code: a.error, message: `the NAS does not answer (${what}); retrying` } };
  }
  if (a.status === undefined) return undefined;
  if (a.status === 401) return { type: 'link-failed', error: { code: 'Unauthorized', message: 'the NAS refused the token (401)' } };
  return a.status < 500 && a.status !== 403 ? { type: 'reachable' } : undefined;
}
