/**
 * THE background engine of the local folder: walk the NAS into the mirror store, keep the
 * placeholders in line (remote -> disk), watch the folder and replay the user's renames,
 * moves and deletes through the persistent outbox (disk -> NAS), re-walk periodically.
 * Its public methods take and return plain JSON-able data (for the window, the headless
 * UI and the command line); events are typed. One lock serialises every change to the
 * local model; network requests run outside it.
 */
import { toAppError, type AppError } from '../../app/errors.js';
import type { ServiceClient } from '../client/service-client.js';
import type { Logger } from '../log/logger.js';
import { ChangeApplier } from '../mirror/apply.js';
import { MirrorStore } from '../mirror/store.js';
import { syncOnce } from '../mirror/sync.js';
import { openStateDb, type Db } from '../state/db.js';
import { allDirs } from '../local/analyse.js';
import { probeFsTraits, type FsTraits } from '../local/fs-traits.js';
import { LocalStore } from '../local/local-store.js';
import { LocalModel } from '../local/model.js';
import type { GoneCarry } from '../local/pair-moves.js';
import { DEFAULT_THRESHOLD, type DeleteThreshold } from '../local/plan.js';
import { LocalWatcher, type WatcherOptions } from '../local/watch.js';
import { OutboxStore } from '../outbox/outbox-store.js';
import { Lock, type ActivityInput, type Core } from './core.js';
import { EngineEvents } from './events.js';
import { checkRoot, initRoot } from './mirror-root.js';
import { lockStateDir } from './instance-lock.js';
import { reconcile } from './remote-sync.js';
import { runLocalBatch } from './local-batch.js';
import { EngineActions } from './actions.js';
import { OutboxPump } from './outbox-pump.js';
import type { EngineStatus } from './status.js';
import { buildStatus } from './status.js';

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
  threshold?: DeleteThreshold;
  /** How long a disappearance waits for its twin (default 1000 ms). */
  holdMs?: number;
  /** Re-walk period (default 60 s); 0 = never. */
  rewalkMs?: number;
  /** Full local rescan period (default 10 min); 0 = never. */
  rescanMs?: number;
  /** How often the command line's queued requests are read (default 500 ms). */
  requestPollMs?: number;
  watcher?: WatcherOptions;
  /** Where the NAS is reached, for status. */
  endpoint?: string;
}

export class Engine {
  readonly events = new EngineEvents();
  readonly core: Core;
  readonly actions: EngineActions;
  private readonly lock = new Lock();
  private watcher: LocalWatcher | undefined;
  private carry: GoneCarry[] = [];
  private timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private readonly pump: OutboxPump;
  /** Ids we changed on the NAS, and when (a walk that began before is stale for them). */
  private settledAt = new Map<string, number>();
  readonly state = {
    paused: false,
    mirrorMissing: undefined as string | undefined,
    connection: 'offline' as 'online' | 'offline' | 'auth-error',
    error: undefined as { code: string; message: string } | undefined,
    walking: false,
    walkProgress: { folders: 0, objects: 0, startedAt: null as string | null },
    watcherPolling: false,
    watcherNotice: undefined as string | undefined,
  };

  constructor(private readonly opts: EngineOptions) {
    const db = opts.db ?? openStateDb(opts.stateDir);
    const store = opts.store ?? new MirrorStore(db);
    const applier = opts.applier ?? new ChangeApplier(store);
    const local = new LocalStore(db);
    const outbox = new OutboxStore(db);
    const rootId = store.root()?.id ?? '';
    const log = opts.log;
    this.core = {
      root: opts.mirrorDir, db, store, applier, local, outbox,
      model: rootId ? local.loadModel(rootId) : new LocalModel(''),
      traits: opts.traits ?? { caseInsensitive: false, windowsNames: false, maxNameBytes: 255 },
      threshold: opts.threshold ?? DEFAULT_THRESHOLD,
      holdMs: opts.holdMs ?? 1000,
      log,
      activity: (a: ActivityInput) => this.recordActivity(a),
    };
    this.state.paused = local.meta('paused') === '1';
    this.pump = new OutboxPump({
      core: this.core, lock: this.lock, client: opts.client,
      canSend: () => !this.stopped && !this.state.paused && this.state.mirrorMissing === undefined,
      stopped: () => this.stopped,
      online: () => this.online(),
      noteNetwork: (e) => this.noteNetwork(e),
      failed: (step, e) => this.failed(step, e),
      schedule: (fn, ms) => this.schedule(fn, ms),
      reconcileNow: () => this.reconcileNow(),
      settled: (id) => this.settledAt.set(id, Date.now()),
      afterSent: () => { this.emitStatus(); this.events.emit('changed', { what: 'activity' }); },
    });
    this.actions = new EngineActions(this.core, this.lock, {
      afterChange: () => { this.kickOutbox(); this.events.emit('changed', { what: 'conflicts' }); },
      reconcile: () => this.reconcileNow(),
      setPaused: (p) => this.setPaused(p),
      syncNow: () => this.syncNow(),
    });
  }

  private recordActivity(a: ActivityInput): void {
    const seq = this.core.local.addActivity(a);
    this.opts.log.info(a.kind, { path: a.path, summary: a.summary, reason: a.reason });
    this.events.emit('activity', { id: String(seq), at: new Date().toISOString(), kind: a.kind, path: a.path, summary: a.summary, reason: a.reason, undoable: a.outboxSeq !== undefined && (a.kind === 'renamed' || a.kind === 'moved') });
  }

  /** Starts: first round (walk, placeholders, rescan, replay), then watching and timers. */
  async start(): Promise<void> {
    if (!(await this.prepare())) {
      this.schedule(() => void this.healthTick(), 2000);
      return;
    }
    await this.round();
    await this.startWatching();
    // Changes made while chokidar was reading the tree raised no event: look once more.
    await this.fullRescan();
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

  /** One full round: walk, placeholders, full rescan, replay the outbox. */
  async round(): Promise<void> {
    await this.actions.processRequests();
    if (!this.state.paused) await this.walkOnce();
    await this.fullRescan();
    if (!this.state.paused) await this.drainOutbox();
  }

  private timersStarted = false;
  /** Aborts a walk in progress when the engine stops. */
  private readonly abort = new AbortController();
  private release: (() => void) | undefined;

  private startTimers(): void {
    this.timersStarted = true;
    const every = (ms: number | undefined, fn: () => void): void => {
      if (!ms) return;
      // Not unref'd: a running engine keeps its process alive until stop().
      const t = setInterval(fn, ms);
      this.timers.add(t);
    };
    every(this.opts.rewalkMs ?? 60_000, () => void this.walkOnce().then(() => this.kickOutbox(), (e: unknown) => this.failed('walk', e)));
    every(this.opts.rescanMs ?? 600_000, () => void this.periodicCheck().catch((e: unknown) => this.failed('rescan', e)));
    every(this.opts.requestPollMs ?? 500, () => void this.actions.processRequests());
  }

  /** Periodic: the watcher's self-test again, then a full rescan whatever it says. */
  private async periodicCheck(): Promise<void> {
    const ok = this.watcher ? await this.watcher.selfTest() : true;
    if (!ok) this.core.activity({ kind: 'watcher', path: '', summary: 'watcher self-test FAILED', reason: 'no event for a probe file within 5 s: relying on periodic rescans' });
    await this.fullRescan();
  }

  private schedule(fn: () => void, ms: number): void {
    const t = setTimeout(() => { this.timers.delete(t); if (!this.stopped) fn(); }, ms);
    this.timers.add(t);
  }

  private async startWatching(): Promise<void> {
    if (this.watcher || this.stopped) return;
    const w = new LocalWatcher(this.core.root, (dirs) => void this.onBatch(dirs), this.opts.log.child('watch'), (n) => {
      if (n.kind === 'restarted') { void this.fullRescan(); return; }
      if (n.kind === 'polling') { this.state.watcherPolling = true; this.state.watcherNotice = n.reason; }
      this.core.activity({ kind: 'watcher', path: '', summary: n.kind === 'polling' ? 'watching by polling' : 'watcher error', reason: n.kind === 'polling' ? n.reason : n.message });
      this.events.emit('notice', { level: 'warn', message: n.kind === 'polling' ? n.reason : n.message });
    }, this.opts.watcher);
    this.watcher = w;
    await w.start();
    if (this.stopped || this.watcher !== w) {
      await w.close();
      return;
    }
    const ok = await w.selfTest();
    if (this.stopped) return;
    this.core.activity({ kind: 'watcher', path: '', summary: ok ? 'watcher self-test passed' : 'watcher self-test FAILED', reason: ok ? 'a probe file was seen' : 'no event for a probe file within 5 s: relying on periodic rescans' });
    if (!ok) this.schedule(() => void this.fullRescan(), 10_000);
  }

  /** Fault injection for tests: the watcher reports this error. */
  simulateWatcherError(e: NodeJS.ErrnoException): void {
    this.watcher?.simulateError(e);
  }

  private async checkHealth(): Promise<boolean> {
    const c = this.core;
    const rootId = c.model.rootId;
    const top = rootId ? c.model.children(rootId).filter((id) => { const e = c.model.get(id)!; return e.state === 'ok' && e.ino !== null; }).length : 0;
    const h = checkRoot(c.root, top);
    if (h.ok) {
      if (this.state.mirrorMissing !== undefined) {
        this.state.mirrorMissing = undefined;
        c.activity({ kind: 'resumed', path: '', summary: 'mirror folder is back: sync resumed', reason: 'the folder and its marker are present' });
        this.emitStatus();
      }
      return true;
    }
    if (this.state.mirrorMissing === undefined) {
      this.state.mirrorMissing = h.reason;
      c.activity({ kind: 'paused', path: '', summary: 'sync paused: nothing will be deleted', reason: h.reason });
      this.events.emit('notice', { level: 'error', message: `${h.reason}. Sync is paused and nothing is deleted on the NAS. Restore the folder, or resume to recreate the placeholders.` });
      this.emitStatus();
    }
    return false;
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
    const wasMissing = this.state.mirrorMissing !== undefined;
    const ok = await this.lock.run(() => this.checkHealth());
    if (ok) {
      if (wasMissing && this.watcher) {
        // The watched folder may be a new one (recreated, remounted): watch it afresh.
        await this.watcher.close();
        this.watcher = undefined;
      }
      await this.fullRescan();
      await this.startWatching();
      if (!this.timersStarted) this.startTimers();
      this.kickOutbox();
    } else this.schedule(() => void this.healthTick(), 2000);
  }

  /** A batch of dirty folders from the watcher (or a rescan); never rejects. */
  private async onBatch(dirs: readonly string[]): Promise<void> {
    try {
      await this.onBatchUnsafe(dirs);
    } catch (e) {
      this.failed('local batch', e);
    }
  }

  private async onBatchUnsafe(dirs: readonly string[]): Promise<void> {
    await this.lock.run(async () => {
      if (this.stopped) return;
      if (!(await this.checkHealth())) {
        this.carry = [];
        this.schedule(() => void this.healthTick(), 2000);
        return;
      }
      const c = this.core;
      const extra = this.carry.map((g) => { const e = c.model.get(g.id); return e ? (c.model.pathOf(e.lparent) ?? '') : ''; });
      const t0 = Date.now();
      let r: ReturnType<typeof runLocalBatch>;
      try {
        r = runLocalBatch(c, [...dirs, ...extra], this.carry);
      } catch (e) {
        // Nothing was written (one transaction); the folders are read again by the next rescan.
        this.failed('local batch', e);
        this.schedule(() => void this.fullRescan(), 5000);
        return;
      }
      this.opts.log.debug('local batch', { dirs: dirs.length, ms: Date.now() - t0, enqueued: r.enqueued, carried: r.carry.length });
      this.carry = r.carry;
      if (r.carry.length) {
        const wait = Math.max(50, Math.min(...r.carry.map((g) => g.since + c.holdMs - Date.now())) + 20);
        this.schedule(() => { for (const g of this.carry) { const e = c.model.get(g.id); if (e) this.watcher?.mark(c.model.pathOf(e.lparent) ?? ''); else this.watcher?.mark(''); } if (!this.watcher) void this.onBatch([]); }, wait);
      }
      if (r.held) this.events.emit('notice', { level: 'warn', message: 'Deletes are held for your confirmation (too many at once).' });
      if (r.enqueued || r.held) { this.events.emit('changed', { what: 'conflicts' }); this.emitStatus(); }
    });
    this.kickOutbox();
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

  /** Reads the whole mirror folder and compares it with the stored state. */
  async fullRescan(): Promise<void> {
    if (!this.core.model.rootId) return;
    const dirs = allDirs(this.core.root);
    await this.onBatch(dirs);
  }

  /** Walks the NAS once (not while paused) and reconciles the placeholders. */
  async walkOnce(): Promise<boolean> {
    if (this.state.walking || this.state.paused || this.stopped) return false;
    this.state.walking = true;
    const startedAt = Date.now();
    this.state.walkProgress = { folders: 0, objects: 0, startedAt: new Date(startedAt).toISOString() };
    this.emitStatus();
    let complete = false;
    try {
      const s = await syncOnce(this.opts.client, this.core.store, this.core.applier, {
        signal: this.abort.signal,
        onProgress: (p) => {
          this.state.walkProgress = { folders: p.folders, objects: p.objects, startedAt: this.state.walkProgress.startedAt };
          if (p.pages > 0 && this.state.connection !== 'online') this.online(); // listings arrive: the NAS answers
        },
      });
      complete = s.complete;
      if (s.error) this.noteNetwork(s.error);
      else this.online();
      if (this.core.model.rootId === '' && this.core.store.root()) this.core.model = this.core.local.loadModel(this.core.store.root()!.id);
      const stale = new Set([...this.settledAt].filter(([, t]) => t >= startedAt).map(([id]) => id));
      for (const [id, t] of this.settledAt) if (t < startedAt) this.settledAt.delete(id);
      await this.lock.run(async () => {
        if (this.stopped || !(await this.checkHealth())) return;
        const r = reconcile(this.core, stale);
        if (r.created || r.moved || r.removed) this.events.emit('changed', { what: 'index' });
      });
    } catch (e) {
      this.noteNetwork(toAppError(e));
    } finally {
      this.state.walking = false;
      this.emitStatus();
    }
    return complete;
  }

  private async reconcileNow(): Promise<void> {
    await this.lock.run(async () => {
      // Only a walk in progress can have put an older view of what we changed into the store.
      const since = this.state.walking && this.state.walkProgress.startedAt ? Date.parse(this.state.walkProgress.startedAt) : Infinity;
      const stale = new Set([...this.settledAt].filter(([, t]) => t >= since).map(([id]) => id));
      if (await this.checkHealth()) reconcile(this.core, stale);
    });
  }

  /** The connection state last written to the log and the state db. */
  private announced: 'online' | 'offline' | 'auth-error' | undefined;

  private online(): void {
    if (this.state.connection !== 'online' || this.state.error) {
      if (this.announced !== undefined && this.announced !== 'online') this.opts.log.info('online', { summary: 'the NAS answers again; queued changes are being sent' });
      this.announced = 'online';
      this.state.connection = 'online';
      this.state.error = undefined;
      this.core.local.setMeta('connection', undefined);
      this.emitStatus();
    }
    this.pump.resetBackoff();
  }

  /**
   * The NAS did not answer (or refused the token). Logged once per change and kept in the
   * state db, so `nas-mirror status` in another process says "offline", not "syncing".
   */
  private noteNetwork(e: AppError): void {
    const auth = e.code === 'Unauthorized' || e.code === 'Forbidden';
    const next = auth ? 'auth-error' : 'offline';
    if (this.announced !== next) {
      this.announced = next;
      this.opts.log.warn(next, { summary: auth ? `the NAS refused the token (${e.message})` : `the NAS is not reachable (${e.message}); changes wait in the outbox`, reason: e.code });
      this.core.local.setMeta('connection', JSON.stringify({ state: next, message: e.message }));
    }
    this.state.connection = next;
    this.state.error = { code: e.code, message: e.message };
    this.emitStatus();
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
    await this.fullRescan();
    await this.drainOutbox();
  }

  async setPaused(paused: boolean): Promise<void> {
    this.state.paused = paused;
    this.core.local.setMeta('paused', paused ? '1' : '0');
    this.core.activity({ kind: paused ? 'paused' : 'resumed', path: '', summary: paused ? 'sync paused by you' : 'sync resumed by you', reason: 'user request' });
    if (!paused && this.state.mirrorMissing !== undefined) {
      await this.watcher?.close();
      this.watcher = undefined;
      await this.actions.restoreMirror();
    }
    if (!paused) { this.kickOutbox(); void this.healthTick(); }
    this.emitStatus();
  }

  status(): EngineStatus {
    return buildStatus(this.core, this.state, this.watcher, this.opts.endpoint ?? null);
  }

  private emitStatus(): void {
    this.events.emit('status', this.status());
  }

  /** Stops timers and the watcher, waits for the step in progress; closes the db if it owns it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    for (const t of this.timers) { clearTimeout(t); clearInterval(t); }
    this.timers.clear();
    await this.watcher?.close();
    this.watcher = undefined;
    await this.pump.idle();
    await this.lock.run(() => undefined);
    if (!this.opts.db) this.core.db.close();
    this.release?.();
    this.release = undefined;
  }
}

