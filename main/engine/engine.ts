/**
 * THE background engine of the local folder: walk the NAS into the mirror store, keep the
 * placeholders in line (remote -> disk), watch the folder and replay the user's renames,
 * moves and deletes through the persistent outbox (disk -> NAS), re-walk periodically.
 * Its public methods take and return plain JSON-able data (for the window, the headless
 * UI and the command line); events are typed. One lock serialises every change to the
 * local model; network requests run outside it.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { probeFsTraits } from '../local/fs-traits.js';
import { probeDiskIdentity, type DiskIdentity } from '../local/volume.js';
import { Lock, openCore, type ActivityInput, type Core } from './core.js';
import { canSend, retryDelayMs, type EngineState } from './engine-state.js';
import type { EngineOptions } from './engine-options.js';
import { attemptEvent, StateKeeper } from './state-keeper.js';
import { EngineEvents } from './events.js';
import { checkMirrorHealth, initRoot, markerPath, recoverStaged } from './mirror-root.js';
import { lockStateDir } from './instance-lock.js';
import { EngineActions } from './actions.js';
import { LocalRounds } from './local-rounds.js';
import { PlanQueue } from './plan-queue.js';
import { releaseMemory } from './release-memory.js';
import { OutboxPump } from './outbox-pump.js';
import { RemoteRounds } from './remote-rounds.js';
import { buildStatus, type EngineStatus } from './status.js';
import { EngineTimers } from './timers.js';
import { Downloads, recoverLandings, type GetResult } from './downloads.js';
import { Keeper, type DeviceState, type FreeResult } from './keep.js';
import { CHUNK_BYTES, Creator } from './creates.js';
import { ContentChoices } from './content-conflicts.js';
import { sweepPartials } from '../local/download.js';
import { ignore } from '../../app/util/ignore.js';
import type { DeviceView } from '../../app/filters/on-device.js';

export type { EngineOptions };

/** Uploads' progress goes out as a status at most this often (the state machine's own changes go at once). */
export const STATUS_EVERY_MS = 100;

/**
 * Entries the model may hold while a walk places its batches before it releases them (read
 * again on use). A first walk of 1M objects held every entry it placed until its end: ~360
 * MB of live heap and a 920-1,120 MB peak. Released at this size (with the model's `everPut`
 * filter and a first pass's `WalkSeen` keeping no ids) its live heap stays under ~90 MB and
 * the walk's peak is ~545 MB.
 */
export const RELEASE_IN_WALK_ABOVE = 150_000;

export class Engine {
  readonly events = new EngineEvents();
  readonly core: Core;
  readonly actions: EngineActions;
  /** Open on demand: a file's content brought here (downloads.ts). */
  readonly downloads: Downloads;
  /** Keep on this device (pins) and Free up space (keep.ts). */
  readonly pins: Keeper;
  /** New folders and files made in the mirror folder, created on the NAS (creates.ts). */
  readonly creator: Creator;
  private readonly lock = new Lock();
  /** Ids an Open waits on (how many Opens each): their progress events say `open`. */
  private readonly opening = new Map<string, number>();
  private readonly timers = new EngineTimers();
  private stopped = false;
  /** When the last status went out (performance.now()), and whether one is queued (statusSoon). */
  private statusAt = -Infinity;
  private statusQueued = false;
  private readonly pump: OutboxPump;
  private readonly remote: RemoteRounds;
  private readonly localSide: LocalRounds;
  private readonly offApplier: () => void;
  private readonly offClient: () => void;
  private readonly keeper: StateKeeper;
  /** Aborts a walk in progress when the engine stops. */
  private readonly abort = new AbortController();
  /** Aborted when the engine stops (what others hang on it goes then). */
  get stopping(): AbortSignal {
    return this.abort.signal;
  }
  private release: (() => void) | undefined;
  /** Set once the folder is watched and matches the model: what `run` calls ready. */
  ready = false;

  constructor(private readonly opts: EngineOptions) {
    this.core = openCore(
      opts,
      (a) => this.recordActivity(a),
      (list) => {
        const seqs = list.map((a) => this.core.local.addActivity(a));
        return () => list.forEach((a, i) => this.tellActivity(a, seqs[i]!));
      },
    );
    const { local, store, applier } = this.core;
    this.keeper = new StateKeeper(local, opts.log, {
      statusChanged: () => this.emitStatus(),
      backOnline: () => this.kickOutbox(),
      schedule: (fn, ms) => this.timers.schedule(fn, ms),
    });
    const plans = new PlanQueue(local, store);
    // between steps the model keeps only what is not written yet: the rest is read again on use (issue 24);
    // while a walk places its batches only once it holds many (each batch would read its folders again)
    this.lock.onIdle = () => {
      if (!this.state.walk.running || this.core.model.inMemory > RELEASE_IN_WALK_ABOVE) this.core.model.release();
    };
    this.remote = this.newRemoteRounds(plans);
    this.localSide = this.newLocalRounds();
    this.offApplier = applier.onChanges((cs) => {
      plans.note(cs.map((c) => (c.kind === 'removed' ? c.before.id : c.after.id)));
      this.remote.storeChanged();
    });
    // Every request's attempt is evidence of the link: a NAS that stops answering is "offline"
    // at its first failed attempt, not after the client's retries (issue 11, point 8).
    this.offClient = opts.client.observe((a) => {
      if (this.stopped) return;
      const ev = attemptEvent(a);
      if (ev) this.keeper.dispatch(ev);
    });
    this.pump = this.newOutboxPump();
    this.downloads = new Downloads({
      core: this.core,
      lock: this.lock,
      client: opts.client,
      signal: this.abort.signal,
      progress: (p) => this.events.emit('download', this.opening.has(p.id) ? { ...p, open: true } : p),
      notice: (n) => this.events.emit('notice', n),
      placed: (files) => this.localSide.placedByEngine(files),
    });
    this.pins = new Keeper({
      core: this.core,
      lock: this.lock,
      get: (id) => this.downloads.get(id),
      stopped: () => this.stopped,
      changed: () => this.events.emit('changed', { what: 'content' }),
    });
    this.creator = this.newCreator();
    this.actions = this.newActions();
  }

  /** The NAS side: walks, reconciles (remote-rounds.ts). */
  private newRemoteRounds(plans: PlanQueue): RemoteRounds {
    return new RemoteRounds({
      core: this.core,
      lock: this.lock,
      client: this.opts.client,
      plans,
      signal: this.abort.signal,
      stopped: () => this.stopped,
      state: () => this.state,
      report: (ev) => this.keeper.dispatch(ev),
      healthy: () => this.checkHealth(),
      failed: (step, e) => this.failed(step, e),
      indexChanged: () => this.events.emit('changed', { what: 'index' }),
      localChanged: (dirs) => {
        this.timers.schedule(() => void this.localSide.onBatch(dirs), 0);
      },
      foldersMoved: (dirs) => this.localSide.movedFolders(dirs),
    });
  }

  /** The disk side: the watcher and the local batches (local-rounds.ts). */
  private newLocalRounds(): LocalRounds {
    return new LocalRounds({
      core: this.core,
      lock: this.lock,
      watcherOptions: this.opts.watcher,
      stopped: () => this.stopped,
      report: (ev) => this.keeper.dispatch(ev),
      healthy: () => this.checkHealth(),
      schedule: (fn, ms) => this.timers.schedule(fn, ms),
      failed: (step, e) => this.failed(step, e),
      recheckHealth: () => this.timers.schedule(() => void this.healthTick(), 2000),
      notice: (n) => this.events.emit('notice', n),
      queued: () => {
        this.events.emit('changed', { what: 'conflicts' });
        this.emitStatus();
      },
      kickOutbox: () => this.kickOutbox(),
      // the status says "syncing" at once (the upload itself waits for the file to be stable)
      created: () => {
        this.creator.kick();
        this.emitStatus();
      },
      probeIdentity: () => this.probeIdentity(),
    });
  }

  /** Sends the outbox to the NAS and settles the answers (outbox-pump.ts). */
  private newOutboxPump(): OutboxPump {
    return new OutboxPump({
      settle: this.core,
      lock: this.lock,
      client: this.opts.client,
      report: (ev) => this.keeper.dispatch(ev),
      failed: (step, e) => this.failed(step, e),
      schedule: (fn, ms) => this.timers.schedule(fn, ms),
      canSend: () => !this.stopped && canSend(this.state),
      retryDelay: () => retryDelayMs(this.state, Math.random()),
      settled: (id) => this.remote.settled(id),
      ranThrough: async ({ follow, sent }) => {
        if (follow) await this.remote.reconcileNow();
        if (sent) {
          this.emitStatus();
          this.events.emit('changed', { what: 'activity' });
        }
      },
    });
  }

  /** Creates the user's new folders and files on the NAS (creates.ts). */
  private newCreator(): Creator {
    return new Creator({
      core: this.core,
      lock: this.lock,
      client: this.opts.client,
      signal: this.abort.signal,
      stopped: () => this.stopped,
      paused: () => this.state.paused,
      schedule: (fn, ms) => this.timers.schedule(fn, ms),
      // a walk begun before the NAS named it must not read it as deleted there
      bound: (id) => this.remote.settled(id),
      // a folder made on the NAS: what it holds is found (and created) next
      reread: (path) => void this.localSide.onBatch([path]),
      changed: () => {
        this.events.emit('changed', { what: 'content' });
        this.statusSoon();
      },
      // a conflicted version put aside: the NAS's comes back at the name, downloaded again if the file is kept here
      reconcile: () => void this.remote.reconcileNow().then(() => this.pins.kick()),
    });
  }

  /** The user's answers and requests (actions.ts). */
  private newActions(): EngineActions {
    return new EngineActions(
      this.core,
      this.lock,
      {
        // the header, the badge and the tray follow at once (they read the status, not the lists)
        afterChange: () => {
          this.kickOutbox();
          this.events.emit('changed', { what: 'conflicts' });
          this.emitStatus();
        },
        reconcile: () => this.remote.reconcileEverything(),
        syncNow: () => this.syncNow(),
        readByPlace: async (reason) => {
          this.localSide.checkIdentity(reason);
          await this.localSide.fullRescan();
        },
        uploadsApproved: () => this.creator.kick(),
        waitingForRoom: () => this.creator.waitingForRoom(),
      },
      this.newContentChoices(),
    );
  }

  /** The user's choices on a file changed here and on the NAS (content-conflicts.ts). */
  private newContentChoices(): ContentChoices {
    return new ContentChoices({
      core: this.core,
      lock: this.lock,
      client: this.opts.client,
      signal: this.abort.signal,
      chunkBytes: CHUNK_BYTES,
      uploads: this.creator,
      settled: (id) => this.remote.settled(id),
    });
  }

  /** The engine's state (engine-state.ts), read-only: change it with events. */
  get state(): EngineState {
    return this.keeper.state;
  }

  private recordActivity(a: ActivityInput): void {
    this.tellActivity(a, this.core.local.addActivity(a));
  }

  /** Logs a row of the activity log written as `seq` and tells listeners. */
  private tellActivity(a: ActivityInput, seq: number): void {
    this.opts.log.info(a.kind, { path: a.path, summary: a.summary, reason: a.reason });
    this.events.emit('activity', {
      id: String(seq),
      at: new Date().toISOString(),
      kind: a.kind,
      path: a.path,
      summary: a.summary,
      reason: a.reason,
      undoable: a.outboxSeq !== undefined && (a.kind === 'renamed' || a.kind === 'moved'),
    });
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
      this.timers.schedule(() => void this.healthTick(), 2000);
      return;
    }
    await this.processRequests();
    const restart = this.core.store.lastWalk() !== undefined && this.core.model.rootId !== '';
    // inodes from another mount: the folder is read by place first (placing uses inodes)
    if (restart) await this.localSide.establishIdentity();
    if (!restart && !this.state.paused) await this.walkOnce();
    else await this.remote.catchUp();
    // What changed on disk while stopped, then what changed while the watches were made.
    await this.checkDirs();
    await this.localSide.startWatching();
    await this.checkDirs();
    if (this.stopped) return;
    this.ready = true;
    this.events.emit('ready', { restart, ms: Date.now() - t0 });
    // pinned files the NAS changed while stopped (or left half-downloaded): now that the folder is read
    this.pins.kick();
    // new folders and files left to create (or uploads to resume) from before a stop
    this.creator.kick();
    // a first start's walk left garbage that chokidar's first read added to: on a big heap it
    // is collected now, not by V8's memory reducer half a minute later. A restart leaves little
    // (its model is off the heap: at 1M a forced collection freed 15 MB of 80, and its catch-up
    // walk 5 MB) and V8's incremental marking collects that for less than a forced full
    // collection costs (two mark-compacts of the whole heap: ~15 % of the restart minute's CPU)
    if (!restart) void releaseMemory();
    this.kickOutbox();
    if (restart && !this.state.paused) await this.walkOnce();
    await this.drainOutbox();
    if (!this.stopped) this.startTimers();
  }

  /** One round without watching (`run --once`): disk and NAS compared once, outbox replayed. */
  async runOnce(): Promise<void> {
    if (!(await this.prepare())) return;
    // inodes from another mount: read by place before the walk's placements use them
    if (this.core.model.rootId !== '') await this.localSide.establishIdentity();
    await this.round();
  }

  private async prepare(): Promise<boolean> {
    this.release ??= lockStateDir(this.opts.stateDir);
    const c = this.core;
    if (c.model.size === 0) initRoot(c.root, c.disk);
    // a folder that is not there is probed when it comes back (healthTick), never made here
    const ok = await this.checkHealth();
    if (!ok) return false;
    this.probeTraits();
    if (c.model.rootId) recoverStaged(c);
    // Before anything uses an inode (placing, removing, pairing, landings): are they valid on this mount?
    this.localSide.checkIdentity();
    // downloads a kill left renamed in place before their rows were written: the engine's, never read as the user's
    // (on a disk whose ids changed since, known by their size and time at their place)
    recoverLandings(c, this.localSide.inodesTrusted);
    // partial downloads no record names (finished, or dropped) go; recorded ones resume at the next Open
    sweepPartials(c.root, c.local.downloads(), c.disk);
    return true;
  }

  /** What names the mirror's disk can hold (probed; the options' traits when a test sets them). */
  private probeTraits(): void {
    if (!this.opts.traits) this.core.traits = probeFsTraits(this.core.root, process.platform, this.core.disk);
  }

  /** What the mirror's disk is (probed), with the options' overrides (tests). */
  private probeIdentity(): DiskIdentity {
    return { ...probeDiskIdentity(this.core.root, markerPath(this.core.root), this.core.disk), ...this.opts.identity };
  }

  /** One round: walk (placeholders follow), the folders whose stamp moved, replay the outbox. */
  async round(): Promise<void> {
    await this.processRequests();
    if (!this.state.paused) await this.walkOnce();
    else await this.remote.catchUp();
    await this.checkDirs();
    if (!this.state.paused) await this.drainOutbox();
    await this.pins.idle();
    if (!this.state.paused) {
      this.creator.kick();
      await this.creator.idle();
    }
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
    const ok = await this.remote.walkOnce();
    // pinned files: new versions and files added under pinned folders come down now (not after
    // a walk that could not reach the NAS: their downloads would fail the same way)
    if (ok) {
      this.pins.kick();
      this.creator.kick();
    }
    return ok;
  }

  private startTimers(): void {
    const t = this.timers;
    t.started = true;
    t.rewalkLoop(
      this.opts.rewalkMs ?? 60_000,
      () => this.remote.lastWalkCpuMs,
      () =>
        this.walkOnce().then(
          () => this.kickOutbox(),
          (e: unknown) => this.failed('walk', e),
        ),
      () => this.remote.lastWalkUnreachable,
    );
    t.every(this.opts.rescanMs ?? 600_000, () => void this.localSide.periodicCheck().catch((e: unknown) => this.failed('rescan', e)));
    t.every(this.opts.fullRescanMs ?? 6 * 3600_000, () => void this.fullRescan().catch((e: unknown) => this.failed('rescan', e)));
    // (a failure is said like any step's: an unhandled rejection from a timer would end the process)
    t.every(this.opts.requestPollMs ?? 500, () => void this.processRequests().catch((e: unknown) => this.failed('requests', e)));
  }

  /** Carries out the requests the command line queued in the state db (`held`, `conflicts`, `undo`, `pause`...). */
  private async processRequests(): Promise<void> {
    for (const r of this.core.local.takeRequests()) {
      try {
        if (r.action === 'pause' || r.action === 'resume') await this.setPaused(r.action === 'pause');
        else if (r.action === 'sync') await this.syncNow();
        else if (r.action === 'get')
          for (const id of r.ids)
            void this.download(id).catch(ignore('a failed download says so in the activity log, where the command line waits for it'));
        else if (r.action === 'pin' || r.action === 'unpin' || r.action === 'free') {
          for (const id of r.ids) await this.keepRequest(r.action, id);
        } else await this.actions.handle(r.action, r.ids);
      } catch (e) {
        this.core.activity({
          kind: 'error',
          path: '',
          summary: `request ${r.action} failed`,
          reason: e instanceof Error ? e.message : String(e),
        });
      }
    }
  }

  /**
   * Makes a file's content be here (downloading it when it is a placeholder) and gives its
   * path; a failure is also in the activity log (the command line waits on it).
   */
  async download(id: string): Promise<GetResult> {
    this.opening.set(id, (this.opening.get(id) ?? 0) + 1);
    try {
      return await this.downloads.get(id);
    } catch (e) {
      const err = toAppError(e);
      if (this.stopped)
        throw new AppError('Cancelled', 'the engine stopped before the download ended; it resumes from where it stopped at the next Open', {
          cause: err,
        });
      this.core.activity({
        kind: 'error',
        path: this.core.model.pathOf(id) ?? `(${id})`,
        summary: 'download failed',
        reason: `${err.code}: ${err.message}`,
      });
      throw err;
    } finally {
      const n = (this.opening.get(id) ?? 1) - 1;
      if (n > 0) this.opening.set(id, n);
      else this.opening.delete(id);
    }
  }

  /** A command line's pin, unpin or free: a failure is in the activity log, at the entry's path (the command waits on it). */
  private async keepRequest(action: 'pin' | 'unpin' | 'free', id: string): Promise<void> {
    try {
      await (action === 'pin' ? this.pin(id) : action === 'unpin' ? this.unpin(id) : this.free(id));
    } catch (e) {
      const err = toAppError(e);
      const path = this.core.model.pathOf(id) ?? `(${id})`;
      this.core.activity({ kind: 'error', path, summary: `${action} failed`, reason: `${err.code}: ${err.message}` });
    }
  }

  /** Keep on this device: the file, or everything below the folder, downloaded now and kept current. */
  pin(id: string): Promise<{ files: number }> {
    return this.pins.pin(id);
  }

  /** No longer kept current (what is here stays until freed). */
  unpin(id: string): Promise<void> {
    return this.pins.unpin(id);
  }

  /** Free up space: downloaded files still as downloaded become placeholders again; the user's content is kept. */
  free(id: string): Promise<FreeResult> {
    return this.pins.free(id);
  }

  /** What each id is on this device: placeholder, here (downloaded), edited (the user's), pinned, folder. */
  deviceStates(ids: readonly string[]): Map<string, DeviceState> {
    return this.pins.states(ids);
  }

  /** What is on this device, as one snapshot for the search's `on:` operator (the same states as `deviceStates`). */
  deviceView(): DeviceView {
    return this.pins.deviceView();
  }

  /** The NAS content downloaded on this device below a folder (the whole mirror when absent). */
  deviceSpace(under?: string): { files: number; bytes: number } {
    return this.pins.space(under);
  }

  /** Fault injection for tests: the watcher reports this error. */
  simulateWatcherError(e: NodeJS.ErrnoException): void {
    this.localSide.simulateWatcherError(e);
  }

  /** The mirror folder's health: a vanished or emptied folder pauses sync (nothing is deleted). */
  private async checkHealth(): Promise<boolean> {
    return checkMirrorHealth(
      this.core,
      this.state.mirrorMissing,
      (ev) => this.keeper.dispatch(ev),
      (n) => this.events.emit('notice', n),
    );
  }

  private async healthTick(): Promise<void> {
    try {
      await this.healthTickUnsafe();
    } catch (e) {
      this.failed('health check', e);
      this.timers.schedule(() => void this.healthTick(), 5000);
    }
  }

  private async healthTickUnsafe(): Promise<void> {
    if (this.stopped) return;
    const wasMissing = this.state.mirrorMissing !== undefined;
    const ok = await this.lock.run(() => this.checkHealth());
    if (ok) {
      // The watched folder may be a new one (recreated, remounted): watch it afresh, and
      // recognise its entries by place (a remounted exFAT disk, a restored copy: new inodes).
      if (wasMissing) {
        await this.localSide.closeWatcher();
        // another disk may be mounted there now (exFAT where ext4 was): what its names can be
        this.probeTraits();
        this.localSide.checkIdentity('the mirror folder came back (remounted, or restored)');
        // downloads a kill left in place before the folder went (a start without it never got to them)
        await this.lock.run(() => recoverLandings(this.core, this.localSide.inodesTrusted));
      }
      await this.fullRescan();
      await this.localSide.startWatching();
      if (!this.timers.started) this.startTimers();
      this.kickOutbox();
    } else this.timers.schedule(() => void this.healthTick(), 2000);
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
    this.keeper.dispatch({ type: 'paused', paused });
    this.core.activity({
      kind: paused ? 'paused' : 'resumed',
      path: '',
      summary: paused ? 'sync paused by you' : 'sync resumed by you',
      reason: 'user request',
    });
    if (!paused && this.state.mirrorMissing !== undefined) {
      await this.localSide.closeWatcher();
      await this.actions.restoreMirror();
    }
    if (!paused) {
      this.kickOutbox();
      this.creator.kick();
      void this.healthTick();
    }
    this.emitStatus();
  }

  status(): EngineStatus {
    const { creator } = this;
    return buildStatus(
      this.core,
      this.state,
      this.localSide.watcherView(),
      this.opts.endpoint ?? null,
      creator.sending.values(),
      creator.problem(),
    );
  }

  private emitStatus(): void {
    this.statusAt = performance.now();
    this.events.emit('status', this.status());
  }

  /**
   * The status soon: at once when none went out for `STATUS_EVERY_MS`, else once at the end of
   * that time (the uploads' progress after every chunk and file: building a status reads the
   * journals, and 10,000 small files made 20,000 of them).
   */
  private statusSoon(): void {
    if (this.statusQueued) return;
    const wait = this.statusAt + STATUS_EVERY_MS - performance.now();
    if (wait <= 0) {
      this.emitStatus();
      return;
    }
    this.statusQueued = true;
    this.timers.schedule(() => {
      this.statusQueued = false;
      this.emitStatus();
    }, wait);
  }

  /** Stops timers and the watcher, waits for the step in progress; closes the db if it owns it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.offApplier();
    this.offClient();
    this.abort.abort();
    this.timers.stop();
    await this.localSide.closeWatcher();
    await this.pump.idle();
    await this.pins.idle();
    await this.downloads.idle();
    this.downloads.close();
    await this.creator.idle();
    await this.lock.run(() => undefined);
    if (!this.opts.db) this.core.db.close();
    this.release?.();
    this.release = undefined;
  }
}
