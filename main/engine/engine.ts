/**
 * THE background engine of the local folder: walk the NAS into the mirror store, keep the
 * placeholders in line (remote -> disk), watch the folder and replay the user's renames,
 * moves and deletes through the persistent outbox (disk -> NAS), re-walk periodically.
 * Its public methods take and return plain JSON-able data (for the window, the headless
 * UI and the command line); events are typed. One lock serialises every change to the
 * local model; network requests run outside it.
 */
import { AppError, toAppError } from '../../app/errors.js';
import type { ServiceClient } from '../client/service-client.js';
import type { Logger } from '../log/logger.js';
import { ChangeApplier } from '../mirror/apply.js';
import { MirrorStore } from '../mirror/store.js';
import { syncOnce } from '../mirror/sync.js';
import { openStateDb, type Db } from '../state/db.js';
import { allDirs } from '../local/analyse.js';
import { realDisk, type Disk } from '../local/disk.js';
import { changedDirs } from '../local/dir-stamps.js';
import { join } from 'node:path';
import { probeFsTraits, type FsTraits } from '../local/fs-traits.js';
import { recoverStaging } from '../local/staging-recovery.js';
import { LocalStore } from '../local/local-store.js';
import { LocalModel } from '../local/model.js';
import type { GoneCarry } from '../local/pair-moves.js';
import { DEFAULT_THRESHOLD, deleteLimit, type DeleteThreshold } from '../local/plan.js';
import { LocalWatcher, type WatcherOptions } from '../local/watch.js';
import { OutboxStore } from '../outbox/outbox-store.js';
import { Lock, type ActivityInput, type Core } from './core.js';
import { EngineEvents } from './events.js';
import { checkRoot, initRoot } from './mirror-root.js';
import { lockStateDir } from './instance-lock.js';
import { noteAdded, reconcile, type ReconcileResult } from './remote-sync.js';
import { runLocalBatch } from './local-batch.js';
import { EngineActions, holdEmptyNas } from './actions.js';
import { PlanQueue } from './plan-queue.js';
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

/** Ids planned per reconcile while a walk runs: small enough that the window never waits long. */
const RECONCILE_CHUNK = 250;
/** Periodic re-walks use at most this share of one core (see startTimers). */
const REWALK_CPU_SHARE = 0.01;
/** Errors of a walk the client refused (its data, not the network): cleared by the next complete walk. */
const WALK_ERRORS: ReadonlySet<string> = new Set(['BadResponse', 'NasLooksEmpty']);
/** Errors the NAS answering again does not cure (a sent change, a listing that arrives). */
const STICKY_ERRORS: ReadonlySet<string> = new Set([...WALK_ERRORS, 'DiskError']);

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
  /** What the placeholders must follow next (fed by the applier). */
  private readonly plans: PlanQueue;
  private reconcileQueued = false;
  private readonly offApplier: () => void;
  private readonly walkTally = { placed: 0, added: 0 };
  /** CPU (ms, this process) the last walk used: spaces the periodic ones (startTimers). */
  private lastWalkCpuMs = 0;
  /** Set once the folder is watched and matches the model: what `run` calls ready. */
  ready = false;
  readonly state = {
    paused: false,
    mirrorMissing: undefined as string | undefined,
    connection: 'offline' as 'online' | 'offline' | 'auth-error',
    error: undefined as { code: string; message: string } | undefined,
    walking: false,
    walkProgress: { folders: 0, objects: 0, placed: 0, rate: 0, startedAt: null as string | null },
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
      disk: opts.disk ?? realDisk,
      threshold: opts.threshold ?? DEFAULT_THRESHOLD,
      holdMs: opts.holdMs ?? 1000,
      log,
      activity: (a: ActivityInput) => this.recordActivity(a),
    };
    this.state.paused = local.meta('paused') === '1';
    this.plans = new PlanQueue(local, store);
    this.offApplier = this.core.applier.onChanges((cs) => {
      this.plans.note(cs.map((c) => (c.kind === 'removed' ? c.before.id : c.after.id)));
      // a walk in progress: placeholders follow batch by batch, between its requests
      if (this.state.walking) this.reconcileSoon();
    });
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
      reconcile: () => this.reconcileEverything(),
      setPaused: (p) => this.setPaused(p),
      syncNow: () => this.syncNow(),
    });
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
    if (!restart && !this.state.paused) await this.walkOnce();
    else await this.catchUp();
    // What changed on disk while stopped, then what changed while chokidar read the tree.
    await this.checkDirs();
    await this.startWatching();
    await this.checkDirs();
    if (this.stopped) return;
    this.ready = true;
    this.events.emit('ready', { restart, ms: Date.now() - t0 });
    this.kickOutbox();
    if (restart && !this.state.paused) await this.walkOnce();
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
    if (c.model.size === 0) initRoot(c.root, c.disk);
    if (!this.opts.traits) c.traits = probeFsTraits(c.root, process.platform, c.disk);
    const ok = await this.checkHealth();
    if (ok && c.model.rootId) this.recoverStaged();
    return ok;
  }

  /** Entries a killed run left in staging go back where the stored state has them, before any folder is read. */
  private recoverStaged(): void {
    const c = this.core;
    const rep = recoverStaging(c.root, c.model, c.disk);
    if (!rep.moved && !rep.keptLocal.length && !rep.failed.length) return;
    for (const k of rep.keptLocal) c.local.addLocalOnly(k.to, 'moved', k.reason);
    c.local.flush(c.model);
    c.activity({ kind: rep.failed.length ? 'error' : 'restored', path: '', summary: `${rep.moved} placeholder(s) put back after an interrupted run`, reason: [...rep.keptLocal.map((k) => `${k.from}: ${k.reason}`), ...rep.failed.map((f) => f.reason)].join('; ') || 'a run was stopped between moving a placeholder and writing its state; nothing was sent' });
  }

  /** One round: walk (placeholders follow), the folders whose stamp moved, replay the outbox. */
  async round(): Promise<void> {
    await this.actions.processRequests();
    if (!this.state.paused) await this.walkOnce();
    else await this.catchUp();
    await this.checkDirs();
    if (!this.state.paused) await this.drainOutbox();
  }

  /** Places what the store holds that the disk does not show yet (after a crash, or retries). */
  private async catchUp(): Promise<void> {
    if (!this.plans.behind) return;
    await this.lock.run(async () => {
      if (this.stopped || !(await this.checkHealth())) return;
      this.reconcileDirty(new Set(), true);
    });
  }

  /** Reads the folders whose stamp moved (one lstat per folder, none per file). */
  async checkDirs(): Promise<void> {
    if (!this.core.model.rootId || this.stopped) return;
    const dirs = await this.lock.run(() => changedDirs(this.core.root, this.core.model, this.core.disk));
    if (dirs.length) await this.onBatch(dirs);
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
    const rewalk = this.opts.rewalkMs ?? 60_000;
    if (rewalk > 0) {
      // The next re-walk comes rewalkMs after the last one ended, or later when the last one
      // cost more CPU than REWALK_CPU_SHARE of the time until the next: an unchanged
      // million-object NAS (15k folders answering 304) is then re-walked every few minutes
      // instead of keeping a core busy. Local changes are sent at once whatever this says.
      const delay = (): number => Math.max(rewalk, this.lastWalkCpuMs / REWALK_CPU_SHARE);
      const next = (): void => this.schedule(() => {
        void this.walkOnce().then(() => this.kickOutbox(), (e: unknown) => this.failed('walk', e)).finally(next);
      }, delay());
      next();
    }
    every(this.opts.rescanMs ?? 600_000, () => void this.periodicCheck().catch((e: unknown) => this.failed('rescan', e)));
    every(this.opts.fullRescanMs ?? 6 * 3600_000, () => void this.fullRescan().catch((e: unknown) => this.failed('rescan', e)));
    every(this.opts.requestPollMs ?? 500, () => void this.actions.processRequests());
  }

  /** Periodic: the watcher's self-test again, then every folder's stamp whatever it says. */
  private async periodicCheck(): Promise<void> {
    const ok = this.watcher ? await this.watcher.selfTest() : true;
    if (!ok) this.core.activity({ kind: 'watcher', path: '', summary: 'watcher self-test FAILED', reason: 'no event for a probe file within 5 s: relying on periodic checks' });
    await this.checkDirs();
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
    }, { ...this.opts.watcher, disk: this.core.disk });
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
    const h = checkRoot(c.root, top, c.disk);
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
      // Before a disappearance can become a delete, or when a folder we were pointed at is gone
      // (renamed: the watcher still names its old path), read every folder whose stamp moved:
      // the missing entry may sit in a renamed folder no event named yet.
      if (this.carry.length > 0 || dirs.some((d) => !c.disk.exists(d === '' ? c.root : join(c.root, ...d.split('/'))))) extra.push(...changedDirs(c.root, c.model, c.disk));
      const t0 = Date.now();
      let r: ReturnType<typeof runLocalBatch>;
      try {
        r = runLocalBatch(c, [...dirs, ...extra], this.carry);
      } catch (e) {
        // Nothing was written (one transaction); the folders are read again by the next rescan.
        // A disk that cannot be read (EIO, EACCES...) is said in the status until a batch reads it.
        if (e instanceof AppError && e.code === 'DiskError') this.noteDisk('scan', e);
        this.failed('local batch', e);
        this.schedule(() => void this.fullRescan(), 5000);
        return;
      }
      this.noteDisk('scan', undefined);
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
    const dirs = allDirs(this.core.root, this.core.disk);
    await this.onBatch(dirs);
  }

  /**
   * Walks the NAS once (not while paused). Placeholders follow the store batch by batch while
   * the walk runs (`reconcileSoon`), and once more at its end (removals, retries).
   */
  async walkOnce(): Promise<boolean> {
    if (this.state.walking || this.state.paused || this.stopped) return false;
    this.state.walking = true;
    const cpu0 = process.cpuUsage();
    const startedAt = Date.now();
    this.walkTally.placed = this.walkTally.added = 0;
    this.state.walkProgress = { folders: 0, objects: 0, placed: 0, rate: 0, startedAt: new Date(startedAt).toISOString() };
    this.emitStatus();
    let complete = false;
    try {
      // a NAS that suddenly looks empty meets the local mass-delete guard (unless the user approved it)
      const allowEmpty = this.core.local.meta('allowEmptyNas') === '1';
      const s = await syncOnce(this.opts.client, this.core.store, this.core.applier, {
        signal: this.abort.signal,
        ...(allowEmpty ? {} : { holdEmptyAbove: deleteLimit(this.core.store.count(), this.core.threshold) }),
        onProgress: (p) => {
          this.state.walkProgress = { folders: p.folders, objects: p.objects, placed: this.walkTally.placed, rate: p.rate, startedAt: this.state.walkProgress.startedAt };
          if (p.pages > 0 && this.state.connection !== 'online') this.online(); // listings arrive: the NAS answers
        },
        onWarning: (message) => this.opts.log.warn('walk', { summary: message }),
      });
      complete = s.complete;
      if (complete && allowEmpty) this.core.local.setMeta('allowEmptyNas', undefined);
      if (s.error?.code === 'NasLooksEmpty') await this.lock.run(() => holdEmptyNas(this.core, s.error!));
      if (s.error && (s.error.code === 'BadResponse' || s.error.code === 'NasLooksEmpty')) this.walkRefused(s.error);
      else if (s.error) this.noteNetwork(s.error);
      else {
        if (this.state.error && WALK_ERRORS.has(this.state.error.code)) this.state.error = undefined; // a complete walk cures a refused one
        this.online();
      }
      const stale = this.staleSince(startedAt);
      for (const [id, t] of this.settledAt) if (t < startedAt) this.settledAt.delete(id);
      let first = true;
      let any = false;
      while (!this.stopped && (first || this.plans.pending > 0)) {
        const withRetries = first;
        first = false;
        const r = await this.lock.run(async () => (this.stopped || !(await this.checkHealth()) ? 'unhealthy' as const : this.reconcileDirty(stale, withRetries, RECONCILE_CHUNK)));
        if (r === 'unhealthy') break;
        if (r && (r.created || r.moved || r.removed)) any = true;
        await new Promise((res) => setImmediate(res));
      }
      this.state.walkProgress.placed = this.walkTally.placed;
      noteAdded(this.core, this.walkTally.placed, this.walkTally.added);
      if (any || this.walkTally.placed) this.events.emit('changed', { what: 'index' });
    } catch (e) {
      this.noteNetwork(toAppError(e));
    } finally {
      this.state.walking = false;
      const used = process.cpuUsage(cpu0);
      this.lastWalkCpuMs = (used.user + used.system) / 1000;
      this.emitStatus();
    }
    return complete;
  }

  /** Places the store's latest batch soon, between the walk's requests, a chunk at a time. */
  private reconcileSoon(): void {
    if (this.reconcileQueued) return;
    this.reconcileQueued = true;
    setImmediate(() => {
      void this.lock.run(async () => {
        this.reconcileQueued = false;
        if (this.stopped || !this.state.walking || !(await this.checkHealth())) return;
        const since = this.state.walkProgress.startedAt ? Date.parse(this.state.walkProgress.startedAt) : Infinity;
        const stale = this.staleSince(since);
        this.reconcileDirty(stale, false, RECONCILE_CHUNK);
        this.state.walkProgress.placed = this.walkTally.placed;
        if (this.plans.pending > 0) this.reconcileSoon();
      }).catch((e: unknown) => this.failed('placeholders', e));
    });
  }

  /**
   * Brings the placeholders in line with what the store changed (everything, when behind),
   * at most `limit` ids at a time. Under the lock. Nothing is lost on a failure: the ids are
   * planned again next time.
   */
  private reconcileDirty(stale: ReadonlySet<string>, withRetries: boolean, limit = Infinity): ReconcileResult | undefined {
    const c = this.core;
    const root = c.store.root();
    if (c.model.rootId === '' && root) c.model = c.local.loadModel(root.id);
    const slice = this.plans.take(c.model, withRetries, limit);
    if (!slice) return undefined;
    let r: ReconcileResult;
    try {
      r = reconcile(c, stale, slice.all ? undefined : slice.only);
    } catch (e) {
      this.plans.putBack(slice);
      throw e;
    }
    c.model.takeTouched(); // the reconcile's own changes are not news
    this.plans.settle(slice, r.retry, stale, withRetries);
    this.noteDisk('write', r.diskError);
    this.walkTally.placed += r.created;
    this.walkTally.added += r.added;
    return r;
  }

  /** Ids we changed on the NAS at or after `since` (a walk begun before holds an older view of them). */
  private staleSince(since: number): Set<string> {
    return new Set([...this.settledAt].filter(([, t]) => t >= since).map(([id]) => id));
  }

  private async reconcileNow(): Promise<void> {
    await this.lock.run(async () => {
      // Only a walk in progress can have put an older view of what we changed into the store.
      const since = this.state.walking && this.state.walkProgress.startedAt ? Date.parse(this.state.walkProgress.startedAt) : Infinity;
      const stale = this.staleSince(since);
      if (!(await this.checkHealth())) return;
      const r = this.reconcileDirty(stale, true);
      if (r) noteAdded(this.core, r.created, r.added);
    });
  }

  /** Everything planned again (after the user acted on held deletes or conflicts). */
  private async reconcileEverything(): Promise<void> {
    this.plans.planEverything();
    await this.reconcileNow();
  }

  /** The connection state last written to the log and the state db. */
  private announced: 'online' | 'offline' | 'auth-error' | undefined;

  private online(): void {
    // what the NAS answering does not cure (a refused walk, a failing disk) stays until its own cure
    const keep = this.state.error !== undefined && STICKY_ERRORS.has(this.state.error.code);
    if (this.state.connection !== 'online' || (this.state.error && !keep)) {
      if (this.announced !== undefined && this.announced !== 'online') this.opts.log.info('online', { summary: 'the NAS answers again; queued changes are being sent' });
      this.announced = 'online';
      this.state.connection = 'online';
      if (!keep) this.state.error = undefined;
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

  /** Which step the disk error in the status comes from: only that step getting through clears it. */
  private diskErrorOf: 'scan' | 'write' | undefined;

  /** A disk error of a local scan or a placeholder write, in the status until that step gets through. */
  private noteDisk(step: 'scan' | 'write', e: AppError | undefined): void {
    if (e) {
      this.state.error = { code: e.code, message: e.message };
      this.diskErrorOf = step;
    } else if (this.state.error?.code === 'DiskError' && this.diskErrorOf === step) this.state.error = undefined;
    else return;
    this.emitStatus();
  }

  /** The NAS answered, but with data the client refuses (invalid objects, a page-token cycle): said as such, never as "offline". */
  private walkRefused(e: AppError): void {
    this.online();
    this.opts.log.warn('walk incomplete', { summary: e.message, reason: e.code });
    this.core.activity({ kind: 'error', path: '', summary: 'walk incomplete: the NAS sent data the client refuses', reason: e.message });
    this.state.error = { code: e.code, message: e.message };
    this.emitStatus();
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
    this.offApplier();
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

