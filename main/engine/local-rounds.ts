/**
 * Disk -> outbox, the engine's local side: the watcher (one watch per folder, its self-test,
 * its fallback to polling), the folders whose stamp moved, full rescans, and each batch of
 * dirty folders through the local pipeline (`runLocalBatch`, under the engine's lock). A
 * disappearance waits for its twin (`carry`) before it can become a delete. Reports disk
 * errors and the watcher's polling to the state machine as events.
 */
import { join } from 'node:path';
import { AppError } from '../../app/errors.js';
import { allDirs, lstatBig } from '../local/analyse.js';
import { changedDirs, knownDirs } from '../local/dir-stamps.js';
import type { GoneCarry } from '../local/pair-moves.js';
import { LocalWatcher, type PlacedFile, type WatcherOptions } from '../local/watch.js';
import type { Core, Lock } from './core.js';
import type { EngineEvent } from './engine-state.js';
import type { EngineEventMap } from './events.js';
import { runLocalBatch, type Identity, type LocalBatchPort } from './local-batch.js';
import { markerPath } from './mirror-root.js';
import type { DiskIdentity } from '../local/volume.js';

/** What the local side uses of the engine. */
export interface LocalPort {
  readonly core: LocalBatchPort & Pick<Core, 'log' | 'identity'>;
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
  /** New folders or files were recorded to be created on the NAS. */
  created(): void;
  /** Probes the mirror's disk again (its mount, the marker's inode, its traits). */
  probeIdentity(): DiskIdentity;
}

/** The local meta key holding the mount key the model's inodes were read on. */
const DISK_KEY = 'diskKey';
/** When moved folders are read a second time: a renamed folder's new path is watched only after a moment. */
const REREAD_AFTER_MS = 1500;

export class LocalRounds {
  private carry: GoneCarry[] = [];
  private watcher: LocalWatcher | undefined;
  /**
   * Why the model's inodes cannot be trusted now (the next batch reads every folder and
   * recognises entries by place), or undefined while they are valid on this mount.
   */
  private placeWhy: string | undefined;
  /** The marker's inode when identity was last established: a sentinel for a disk changed under us. */
  private sentinel: string | undefined;

  constructor(private readonly p: LocalPort) {}

  /**
   * At start, and when the mirror folder comes back: are the inodes the model holds valid on
   * this mount? Not when the disk's ids are not stable (exFAT, FAT, unknown), when the mount's
   * key changed (remount, restore from a copy, another disk), or when no key was recorded yet
   * for a placed mirror. `reason` forces the answer (the folder came back).
   */
  checkIdentity(reason?: string): void {
    const c = this.p.core;
    c.identity = this.p.probeIdentity();
    const stored = c.local.meta(DISK_KEY);
    const placed = c.model.rootId !== '' && c.model.children(c.model.rootId).some((id) => c.model.get(id)?.ino != null);
    if (reason !== undefined) this.placeWhy = reason;
    else if (!placed) this.placeWhy = undefined;
    else if (!c.identity.stableIds) this.placeWhy = `the disk is ${c.identity.fsType}, whose file ids change at each mount`;
    else if (stored === undefined) this.placeWhy = 'the file ids were not yet tied to this disk (first start of this version)';
    else if (stored !== c.identity.key)
      this.placeWhy = "the mirror folder's disk changed since the last run (remounted, restored from a copy, or another disk)";
    else this.placeWhy = undefined;
    if (this.placeWhy === undefined) this.trustNow();
    else c.local.setMeta('localCheck', 'pending');
  }

  /** Whether the model's inodes are valid on this mount now (else the next batch reads by place). */
  get inodesTrusted(): boolean {
    return this.placeWhy === undefined;
  }

  /** The inodes are valid on this mount from now on: record its key and sentinel. */
  private trustNow(): void {
    const c = this.p.core;
    this.placeWhy = undefined;
    c.local.setMeta(DISK_KEY, c.identity.key);
    this.sentinel = this.markerIno();
  }

  private markerIno(): string | undefined {
    try {
      return lstatBig(markerPath(this.p.core.root), this.p.core.disk)?.ino.toString();
    } catch {
      return undefined;
    }
  }

  /** At a restart, before anything places or removes by inode: read the folder by place if the inodes are not valid here. */
  async establishIdentity(): Promise<void> {
    if (this.placeWhy !== undefined) await this.fullRescan();
  }

  /** Whether the start's check of the folder is done (status says synced only after it). */
  private checked(): void {
    this.p.core.local.setMeta('localCheck', 'done');
    this.p.report({ type: 'local-check', done: true });
  }

  /**
   * Folders found moved (by the user, or by the engine placing the NAS's moves) and every folder
   * below them: changes inside were reported under old paths, or not at all, so they are read
   * again, now and once the watcher had time to follow (what changed inside them in between raised
   * no event; the convergence soak's seed 1020 round 20). Their watches are made afresh each time:
   * a watch follows the folder it was made on, and after a swap a path may hold a stale one
   * (`LocalWatcher.rewatch`; seed 9026 round 21).
   */
  movedFolders(dirs: readonly string[]): void {
    const c = this.p.core;
    const again = (): void => {
      const below = dirs.flatMap((d) => allDirs(c.root, c.disk, d));
      this.watcher?.rewatch(below);
      void this.onBatch(below);
    };
    this.p.schedule(again, 0);
    this.p.schedule(again, REREAD_AFTER_MS);
  }

  /** Files the engine just put in place (downloads): their events do not make their folders read again (watch.ts). */
  placedByEngine(files: readonly PlacedFile[]): void {
    this.watcher?.placedByEngine(files);
  }

  /** The watcher's own view, for the status (polling, last self-test). */
  watcherView(): { polling: boolean; selfTest: { at: string; ok: boolean } | null } {
    return { polling: this.watcher?.isPolling ?? false, selfTest: this.watcher?.lastSelfTest ?? null };
  }

  get watching(): boolean {
    return this.watcher !== undefined;
  }

  /**
   * Reads the folders whose stamp moved (one lstat per folder, none per file); every folder
   * where stamps cannot be trusted (a folder's mtime that does not move on a rename inside,
   * as on exFAT) or the inodes are not valid on this mount.
   */
  async checkDirs(): Promise<void> {
    const c = this.p.core;
    if (!c.model.rootId || this.p.stopped()) return;
    if (this.placeWhy !== undefined || !c.identity.dirMtimeOnRename) {
      await this.fullRescan();
      return;
    }
    const dirs = await this.p.lock.run(() => changedDirs(c.root, c.model, c.disk));
    if (!dirs.length || (await this.onBatch(dirs))) this.checked();
  }

  /** Reads the whole mirror folder and compares it with the stored state. */
  async fullRescan(): Promise<void> {
    if (!this.p.core.model.rootId) return;
    if (await this.onBatch(allDirs(this.p.core.root, this.p.core.disk))) this.checked();
  }

  /** Periodic: the watcher's self-test again, then every folder's stamp whatever it says. */
  async periodicCheck(): Promise<void> {
    const ok = this.watcher ? await this.watcher.selfTest() : true;
    if (!ok)
      this.p.core.activity({
        kind: 'watcher',
        path: '',
        summary: 'watcher self-test FAILED',
        reason: 'no event for a probe file within 5 s: relying on periodic checks',
      });
    await this.checkDirs();
  }

  async startWatching(): Promise<void> {
    if (this.watcher || this.p.stopped()) return;
    const c = this.p.core;
    const w = new LocalWatcher(
      c.root,
      (dirs) => void this.onBatch(dirs),
      c.log.child('watch'),
      (n) => {
        if (n.kind === 'restarted') {
          void this.fullRescan();
          return;
        }
        if (n.kind === 'polling') this.p.report({ type: 'watcher-polling', reason: n.reason });
        c.activity({
          kind: 'watcher',
          path: '',
          summary: n.kind === 'polling' ? 'watching by polling' : 'watcher error',
          reason: n.kind === 'polling' ? n.reason : n.message,
        });
        this.p.notice({ level: 'warn', message: n.kind === 'polling' ? n.reason : n.message });
      },
      { ...this.p.watcherOptions, disk: c.disk },
    );
    this.watcher = w;
    // the folders the engine knows: those of the NAS it placed, and those it lists as local only
    // (nothing is read to find them; a folder they do not name is found new by a scan, then watched)
    const localDirs = c.local.localOnly(c.model).flatMap((r) => (r.kind === 'dir' ? [r.path] : []));
    await w.start([...knownDirs(c.model), ...localDirs]);
    if (this.p.stopped() || this.watcher !== w) {
      await w.close();
      return;
    }
    const ok = await w.selfTest();
    if (this.p.stopped()) return;
    c.activity({
      kind: 'watcher',
      path: '',
      summary: ok ? 'watcher self-test passed' : 'watcher self-test FAILED',
      reason: ok ? 'a probe file was seen' : 'no event for a probe file within 5 s: relying on periodic rescans',
    });
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

  /** A batch of dirty folders from the watcher (or a rescan); never rejects. True when it was read and written. */
  async onBatch(dirs: readonly string[]): Promise<boolean> {
    try {
      return await this.onBatchUnsafe(dirs);
    } catch (e) {
      this.p.failed('local batch', e);
      return false;
    }
  }

  private async onBatchUnsafe(dirs: readonly string[]): Promise<boolean> {
    const done = await this.p.lock.run(async () => {
      if (this.p.stopped()) return false;
      if (!(await this.p.healthy())) {
        this.carry = [];
        this.p.recheckHealth();
        return false;
      }
      const c = this.p.core;
      // The marker is a sentinel (git-annex's): a new inode means the disk under the folder
      // changed while we watched (remounted, restored): no inode is trusted until re-read by place.
      if (this.placeWhy === undefined && this.sentinel !== undefined && this.markerIno() !== this.sentinel) {
        c.identity = this.p.probeIdentity();
        this.placeWhy = "the mirror folder's disk changed while it was watched (remounted or restored)";
        this.p.report({ type: 'local-check', done: false });
      }
      let batchDirs: string[];
      let identity: Identity = { by: 'inode' };
      if (this.placeWhy !== undefined) {
        // every folder, every entry recognised by place; nothing carried over from inodes
        batchDirs = allDirs(c.root, c.disk);
        identity = { by: 'place', granularityMs: c.identity.mtimeGranularityMs, why: this.placeWhy };
        this.carry = [];
      } else {
        const extra = this.carry.map((g) => {
          const e = c.model.get(g.id);
          return e ? (c.model.pathOf(e.lparent) ?? '') : '';
        });
        // Before a disappearance can become a delete, or when a folder we were pointed at is gone
        // (renamed: the watcher still names its old path), read every folder whose stamp moved
        // (every folder where stamps cannot see a rename inside): the missing entry may sit in a
        // renamed folder no event named yet.
        if (this.carry.length > 0 || dirs.some((d) => !c.disk.exists(d === '' ? c.root : join(c.root, ...d.split('/'))))) {
          extra.push(...(c.identity.dirMtimeOnRename ? changedDirs(c.root, c.model, c.disk) : allDirs(c.root, c.disk)));
        }
        batchDirs = [...dirs, ...extra];
      }
      const t0 = Date.now();
      let r: ReturnType<typeof runLocalBatch>;
      try {
        r = runLocalBatch(c, batchDirs, this.carry, Date.now(), identity);
        if (identity.by === 'place') this.trustNow();
      } catch (e) {
        // Nothing was written (one transaction); the folders are read again by the next rescan.
        // A disk that cannot be read (EIO, EACCES...) is said in the status until a batch reads it.
        if (e instanceof AppError && e.code === 'DiskError')
          this.p.report({ type: 'disk-error', step: 'scan', error: { code: e.code, message: e.message } });
        this.p.failed('local batch', e);
        this.p.schedule(() => void this.fullRescan(), 5000);
        return false;
      }
      this.p.report({ type: 'disk-ok', step: 'scan' });
      c.log.debug('local batch', { dirs: dirs.length, ms: Date.now() - t0, enqueued: r.enqueued, carried: r.carry.length });
      this.carry = r.carry;
      if (r.carry.length) {
        const wait = Math.max(50, Math.min(...r.carry.map((g) => g.since + c.holdMs - Date.now())) + 20);
        this.p.schedule(() => this.recheckCarried(), wait);
      }
      if (r.held) this.p.notice({ level: 'warn', message: 'Deletes are held for your confirmation (too many at once).' });
      // a folder found moved, and every folder below it: changes inside were reported under old paths
      // (read again once the watcher has had time to watch their new paths: what changed inside
      // them in between raised no event; the convergence soak's seed 1020 round 20)
      if (r.reread.length) this.movedFolders(r.reread);
      // folders new here that no event named (made while stopped, or while unwatched): watched from now on
      if (r.newDirs.length) this.watcher?.ensureWatched(r.newDirs);
      if (r.enqueued || r.held) this.p.queued();
      if (r.created) this.p.created();
      return true;
    });
    this.p.kickOutbox();
    return done;
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
