/**
 * Disk -> outbox, the engine's local side: the watcher (one watch per folder, its self-test,
 * its fallback to polling), the folders whose stamp moved, full rescans, and each batch of
 * dirty folders through the local pipeline (`runLocalBatch`, under the engine's lock). A
 * disappearance waits for its twin (`carry`) before it can become a delete. Reports disk
 * errors and the watcher's polling to the state machine as events.
 */
import { join } from 'node:path';
import { AppError } from '../../app/errors.js';
import { allDirs } from '../local/analyse.js';
import { changedDirs } from '../local/dir-stamps.js';
import type { GoneCarry } from '../local/pair-moves.js';
import { LocalWatcher, type WatcherOptions } from '../local/watch.js';
import type { Core, Lock } from './core.js';
import type { EngineEvent } from './engine-state.js';
import type { EngineEventMap } from './events.js';
import { runLocalBatch, type LocalBatchPort } from './local-batch.js';

/** What the local side uses of the engine. */
export interface LocalPort {
  readonly core: LocalBatchPort & Pick<Core, 'log'>;
  readonly lock: Lock;
  readonly watcherOptions: WatcherOptions | undefined;
  stopped(): boolean;
  report(ev: EngineEvent): void;
  /** The mirror folder's health check (under the lock). */
  healthy(): Promise<boolean>;
  /** The folder is unhealthy: check again soon (the engine's health tick). */
  recheckHealth(): void;
  schedule(fn: () => void, ms: number): void;
  failed(step: string, e: unknown): void;
  notice(n: EngineEventMap['notice']): void;
  /** Held deletes or outbox entries changed (lists, status). */
  queued(): void;
  /** A batch is through: the outbox may have work. */
  kickOutbox(): void;
}

export class LocalRounds {
  private carry: GoneCarry[] = [];
  private watcher: LocalWatcher | undefined;

  constructor(private readonly p: LocalPort) {}

  /** The watcher's own view, for the status (polling, last self-test). */
  watcherView(): { polling: boolean; selfTest: { at: string; ok: boolean } | null } {
    return { polling: this.watcher?.isPolling ?? false, selfTest: this.watcher?.lastSelfTest ?? null };
  }

  get watching(): boolean {
    return this.watcher !== undefined;
  }

  /** Reads the folders whose stamp moved (one lstat per folder, none per file). */
  async checkDirs(): Promise<void> {
    const c = this.p.core;
    if (!c.model.rootId || this.p.stopped()) return;
    const dirs = await this.p.lock.run(() => changedDirs(c.root, c.model, c.disk));
    if (dirs.length) await this.onBatch(dirs);
  }

  /** Reads the whole mirror folder and compares it with the stored state. */
  async fullRescan(): Promise<void> {
    if (!this.p.core.model.rootId) return;
    await this.onBatch(allDirs(this.p.core.root, this.p.core.disk));
  }

  /** Periodic: the watcher's self-test again, then every folder's stamp whatever it says. */
  async periodicCheck(): Promise<void> {
    const ok = this.watcher ? await this.watcher.selfTest() : true;
    if (!ok) this.p.core.activity({ kind: 'watcher', path: '', summary: 'watcher self-test FAILED', reason: 'no event for a probe file within 5 s: relying on periodic checks' });
    await this.checkDirs();
  }

  async startWatching(): Promise<void> {
    if (this.watcher || this.p.stopped()) return;
    const c = this.p.core;
    const w = new LocalWatcher(c.root, (dirs) => void this.onBatch(dirs), c.log.child('watch'), (n) => {
      if (n.kind === 'restarted') { void this.fullRescan(); return; }
      if (n.kind === 'polling') this.p.report({ type: 'watcher-polling', reason: n.reason });
      c.activity({ kind: 'watcher', path: '', summary: n.kind === 'polling' ? 'watching by polling' : 'watcher error', reason: n.kind === 'polling' ? n.reason : n.message });
      this.p.notice({ level: 'warn', message: n.kind === 'polling' ? n.reason : n.message });
    }, { ...this.p.watcherOptions, disk: c.disk });
    this.watcher = w;
    await w.start();
    if (this.p.stopped() || this.watcher !== w) {
      await w.close();
      return;
    }
    const ok = await w.selfTest();
    if (this.p.stopped()) return;
    c.activity({ kind: 'watcher', path: '', summary: ok ? 'watcher self-test passed' : 'watcher self-test FAILED', reason: ok ? 'a probe file was seen' : 'no event for a probe file within 5 s: relying on periodic rescans' });
    if (!ok) this.p.schedule(() => void this.fullRescan(), 10_000);
  }

  /** Stops watching (the engine stops, or the watched folder may be a new one). */
  async closeWatcher(): Promise<void> {
    const w = this.watcher;
    this.watcher = undefined;
    await w?.close();
  }

  /** Fault injection for tests: the watcher reports this error. */
  simulateWatcherError(e: NodeJS.ErrnoException): void {
    this.watcher?.simulateError(e);
  }

  /** A batch of dirty folders from the watcher (or a rescan); never rejects. */
  async onBatch(dirs: readonly string[]): Promise<void> {
    try {
      await this.onBatchUnsafe(dirs);
    } catch (e) {
      this.p.failed('local batch', e);
    }
  }

  private async onBatchUnsafe(dirs: readonly string[]): Promise<void> {
    await this.p.lock.run(async () => {
      if (this.p.stopped()) return;
      if (!(await this.p.healthy())) {
        this.carry = [];
        this.p.recheckHealth();
        return;
      }
      const c = this.p.core;
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
        if (e instanceof AppError && e.code === 'DiskError') this.p.report({ type: 'disk-error', step: 'scan', error: { code: e.code, message: e.message } });
        this.p.failed('local batch', e);
        this.p.schedule(() => void this.fullRescan(), 5000);
        return;
      }
      this.p.report({ type: 'disk-ok', step: 'scan' });
      c.log.debug('local batch', { dirs: dirs.length, ms: Date.now() - t0, enqueued: r.enqueued, carried: r.carry.length });
      this.carry = r.carry;
      if (r.carry.length) {
        const wait = Math.max(50, Math.min(...r.carry.map((g) => g.since + c.holdMs - Date.now())) + 20);
        this.p.schedule(() => this.recheckCarried(), wait);
      }
      if (r.held) this.p.notice({ level: 'warn', message: 'Deletes are held for your confirmation (too many at once).' });
      if (r.enqueued || r.held) this.p.queued();
    });
    this.p.kickOutbox();
  }

  /** A disappearance's hold is over: its folder is read again (through the watcher when there is one). */
  private recheckCarried(): void {
    const c = this.p.core;
    for (const g of this.carry) {
      const e = c.model.get(g.id);
      this.watcher?.mark(e ? (c.model.pathOf(e.lparent) ?? '') : '');
    }
    if (!this.watcher) void this.onBatch([]);
  }
}
