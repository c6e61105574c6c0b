/**
 * NAS -> disk, the engine's remote side: walks the NAS into the mirror store (`syncOnce`) and
 * makes the placeholders follow, batch by batch while the walk runs and once more at its end;
 * also the reconciles outside a walk (after the outbox settled NAS-first changes, after the
 * user acted on held deletes or conflicts, a catch-up after a crash). Runs each reconcile
 * under the engine's lock. Reports what happens to the state machine as events (walk
 * started / progress / finished); never touches the engine's state itself.
 */
import { toAppError } from '../../app/errors.js';
import type { ServiceClient } from '../client/service-client.js';
import { deleteLimit } from '../local/plan.js';
import { syncOnce } from '../mirror/sync.js';
import { holdEmptyNas } from './actions.js';
import type { Core, Lock } from './core.js';
import type { EngineEvent, EngineState } from './engine-state.js';
import type { PlanQueue } from './plan-queue.js';
import { noteAdded, reconcile, type ReconcilePort, type ReconcileResult } from './remote-sync.js';
import { releaseMemory } from './release-memory.js';

/**
 * Ids planned per reconcile while a walk runs. The window no longer shares this thread (the
 * engine has its own process); what waits on a chunk is the user's next local change, so a
 * chunk stays well under the 0.5 s a rename may take to reach the NAS (~0.1-0.2 s), while
 * each chunk's fixed costs (regrouping the touched folders' names, one transaction) are
 * paid four times less often than with 250.
 */
const RECONCILE_CHUNK = 1000;
/** Walk errors that mean the NAS did not answer (rather than answered badly). */
const UNREACHABLE = new Set(['NetworkError', 'Timeout', 'Unavailable']);
/** A walk that placed this many placeholders hands its garbage back at its end (release-memory.ts). */
const BIG_WALK = 50_000;

/** What the remote side uses of the engine. */
export interface RemotePort {
  /** Folders (paths) where the disk changed and was not read yet: the local side reads them. */
  localChanged?(dirs: readonly string[]): void;
  /** Folders (paths) the engine moved on disk: read again, their watches made afresh (after a swap a path may hold a stale one). */
  foldersMoved?(dirs: readonly string[]): void;
  /** The model is replaced here when the NAS root first appears. */
  readonly core: ReconcilePort & Pick<Core, 'applier' | 'threshold' | 'model'>;
  readonly lock: Lock;
  readonly client: ServiceClient;
  readonly plans: PlanQueue;
  readonly signal: AbortSignal;
  stopped(): boolean;
  state(): EngineState;
  report(ev: EngineEvent): void;
  /** The mirror folder's health check (under the lock). */
  healthy(): Promise<boolean>;
  failed(step: string, e: unknown): void;
  /** The placeholders changed: the offline index's views are to be refreshed. */
  indexChanged(): void;
}

export class RemoteRounds {
  /** Ids we changed on the NAS, and when (a walk that began before is stale for them). */
  private readonly settledAt = new Map<string, number>();
  private reconcileQueued = false;
  private readonly tally = { placed: 0, added: 0 };
  /** CPU (ms, this process) the last walk used: spaces the periodic ones. */
  lastWalkCpuMs = 0;
  /** The last walk could not reach the NAS (no answer, a timeout, 503): the next one comes sooner. */
  lastWalkUnreachable = false;

  constructor(private readonly p: RemotePort) {}

  /** An outbox entry for `id` was settled now. */
  settled(id: string): void {
    this.settledAt.set(id, Date.now());
  }

  /** The applier changed the store: during a walk, placeholders follow between its requests. */
  storeChanged(): void {
    if (this.p.state().walk.running) this.reconcileSoon();
  }

  /**
   * Walks the NAS once (not while paused). Placeholders follow the store batch by batch while
   * the walk runs (`reconcileSoon`), and once more at its end (removals, retries).
   */
  async walkOnce(): Promise<boolean> {
    const { core, plans } = this.p;
    const st = this.p.state();
    if (st.walk.running || st.paused || this.p.stopped()) return false;
    const cpu0 = process.cpuUsage();
    const startedAt = Date.now();
    this.tally.placed = this.tally.added = 0;
    this.p.report({ type: 'walk-started', at: startedAt });
    let complete = false;
    let error: { code: string; message: string } | undefined;
    try {
      // a NAS that suddenly looks empty meets the local mass-delete guard (unless the user approved it)
      const allowEmpty = core.local.meta('allowEmptyNas') === '1';
      const s = await syncOnce(this.p.client, core.store, core.applier, {
        signal: this.p.signal,
        ...(allowEmpty ? {} : { holdEmptyAbove: deleteLimit(core.store.count(), core.threshold) }),
        onProgress: ({ folders, objects, rate, pages, known, settled, recentRate }) =>
          this.p.report({ type: 'walk-progress', folders, objects, rate, pages, known, settled, recentRate }),
        onWarning: (message) => core.log.warn('walk', { summary: message }),
      });
      complete = s.complete;
      error = s.error;
      if (complete && allowEmpty) core.local.setMeta('allowEmptyNas', undefined);
      if (s.error?.code === 'NasLooksEmpty') await this.p.lock.run(() => holdEmptyNas(core, s.error!));
      if (s.error && (s.error.code === 'BadResponse' || s.error.code === 'NasLooksEmpty')) {
        core.log.warn('walk incomplete', { summary: s.error.message, reason: s.error.code });
        core.activity({
          kind: 'error',
          path: '',
          summary: 'walk incomplete: the NAS sent data the client refuses',
          reason: s.error.message,
        });
      }
      const stale = this.staleSince(startedAt);
      for (const [id, t] of this.settledAt) if (t < startedAt) this.settledAt.delete(id);
      let first = true;
      let any = false;
      while (!this.p.stopped() && (first || plans.pending > 0)) {
        const withRetries = first;
        first = false;
        const r = await this.p.lock.run(async () =>
          this.p.stopped() || !(await this.p.healthy()) ? ('unhealthy' as const) : this.reconcileDirty(stale, withRetries, RECONCILE_CHUNK),
        );
        if (r === 'unhealthy') break;
        if (r && (r.created || r.moved || r.removed)) any = true;
        await new Promise((res) => setImmediate(res));
      }
      this.p.report({ type: 'walk-placed', placed: this.tally.placed });
      noteAdded(core, this.tally.placed, this.tally.added);
      // what the walk's batches read goes (the lock's idle moments skip it while a walk runs)
      await this.p.lock.run(() => core.model.release());
      // before the index's last rebuild starts its worker beside this heap
      if (this.tally.placed >= BIG_WALK) await releaseMemory();
      if (any || this.tally.placed) this.p.indexChanged();
    } catch (e) {
      const err = toAppError(e);
      error = { code: err.code, message: err.message };
      core.log.warn('walk stopped', { summary: err.message, reason: err.code });
    } finally {
      const used = process.cpuUsage(cpu0);
      this.lastWalkCpuMs = (used.user + used.system) / 1000;
      this.lastWalkUnreachable = error !== undefined && UNREACHABLE.has(error.code);
      this.p.report({ type: 'walk-finished', error });
    }
    return complete;
  }

  /** Places the store's latest batch soon, between the walk's requests, a chunk at a time. */
  private reconcileSoon(): void {
    if (this.reconcileQueued) return;
    this.reconcileQueued = true;
    setImmediate(() => {
      void this.p.lock
        .run(async () => {
          this.reconcileQueued = false;
          if (this.p.stopped() || !this.p.state().walk.running || !(await this.p.healthy())) return;
          this.reconcileDirty(this.staleSince(this.walkStart()), false, RECONCILE_CHUNK);
          this.p.report({ type: 'walk-placed', placed: this.tally.placed });
          if (this.p.plans.pending > 0) this.reconcileSoon();
        })
        .catch((e: unknown) => this.p.failed('placeholders', e));
    });
  }

  /** When the walk in progress began (Infinity when none runs). */
  private walkStart(): number {
    const w = this.p.state().walk;
    return w.running && w.startedAt ? Date.parse(w.startedAt) : Infinity;
  }

  /**
   * Brings the placeholders in line with what the store changed (everything, when behind),
   * at most `limit` ids at a time. Under the lock. Nothing is lost on a failure: the ids are
   * planned again next time.
   */
  private reconcileDirty(stale: ReadonlySet<string>, withRetries: boolean, limit = Infinity): ReconcileResult | undefined {
    const c = this.p.core;
    const root = c.store.root();
    if (c.model.rootId === '' && root) c.model = c.local.loadModel(root.id);
    // (an empty library's walk changes nothing to plan, yet the model must hold its root: what
    // the user makes at the top of the mirror folder is created under it)
    const rootOnly = root && !c.model.get(root.id) ? { all: false, only: new Set<string>() } : undefined;
    const slice = this.p.plans.take(c.model, withRetries, limit) ?? rootOnly;
    if (!slice) return undefined;
    let r: ReconcileResult;
    try {
      r = reconcile(c, stale, slice.all ? undefined : slice.only);
    } catch (e) {
      this.p.plans.putBack(slice);
      throw e;
    }
    c.model.takeTouched(); // the reconcile's own changes are not news
    this.p.plans.settle(slice, r.retry, stale, withRetries);
    // the disk changed where a placeholder was to move (not read yet): the local side reads it first
    if (r.reread) this.p.localChanged?.(r.reread);
    if (r.movedDirs) this.p.foldersMoved?.(r.movedDirs);
    if (r.diskError) this.p.report({ type: 'disk-error', step: 'write', error: { code: r.diskError.code, message: r.diskError.message } });
    else this.p.report({ type: 'disk-ok', step: 'write' });
    this.tally.placed += r.created;
    this.tally.added += r.added;
    return r;
  }

  /** Ids we changed on the NAS at or after `since` (a walk begun before holds an older view of them). */
  private staleSince(since: number): Set<string> {
    return new Set([...this.settledAt].filter(([, t]) => t >= since).map(([id]) => id));
  }

  /** The disk follows what the store holds now (after NAS-first results). */
  async reconcileNow(): Promise<void> {
    await this.p.lock.run(async () => {
      // Only a walk in progress can have put an older view of what we changed into the store.
      const stale = this.staleSince(this.walkStart());
      if (!(await this.p.healthy())) return;
      const r = this.reconcileDirty(stale, true);
      if (r) noteAdded(this.p.core, r.created, r.added);
    });
  }

  /** Everything planned again (after the user acted on held deletes or conflicts). */
  async reconcileEverything(): Promise<void> {
    this.p.plans.planEverything();
    await this.reconcileNow();
  }

  /** Places what the store holds that the disk does not show yet (after a crash, or retries). */
  async catchUp(): Promise<void> {
    if (!this.p.plans.behind) return;
    await this.p.lock.run(async () => {
      if (this.p.stopped() || !(await this.p.healthy())) return;
      this.reconcileDirty(new Set(), true);
    });
  }
}
