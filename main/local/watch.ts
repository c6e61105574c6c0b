/**
 * Step 1 of the local pipeline (WATCH -> analyse -> pair moves -> plan). chokidar 4 on the
 * mirror folder says only WHERE to look: each event marks its folder dirty; a batch of dirty
 * folders is handed on after a short quiet period (or a maximum wait). Everything that is not
 * a folder is ignored, so chokidar holds ONE watch per folder (an inotify watch on a folder
 * already reports every entry added, removed, renamed or written in it: the raw event names
 * the folder to re-read). Our own folder `.nas-mirror` is ignored except its `selftest/`
 * probe. ENOSPC/EMFILE (inotify or file-handle limits) switches to polling the folders'
 * mtimes (still one stat per folder, never per file) with a message giving the number of
 * watches needed; `simulateError` injects such a failure in tests. A file the engine itself
 * just put in place (`placedByEngine`: a download landed, the model already holding it) does
 * not make its folder read again while the disk shows it exactly as put there.
 */
import { FSWatcher } from 'chokidar';
import { readFileSync } from 'node:fs';
import { realDisk, type Disk } from './disk.js';
import { basename, join, relative, resolve, sep } from 'node:path';
import type { Logger } from '../log/logger.js';
import { RESERVED_DIR } from './local-names.js';
import { allDirs } from './analyse.js';

export interface WatcherOptions {
  /**
   * Quiet period before a batch is handed on (default QUIET_MS). A rename or a move is one
   * burst of events (chokidar does not hold unlinks back: `atomic: false`), and a copy of
   * many files keeps it from ending until `maxWaitMs`.
   */
  quietMs?: number;
  /** Longest a batch waits (default 500 ms). */
  maxWaitMs?: number;
  usePolling?: boolean;
  pollIntervalMs?: number;
  /** The disk seam for the self-test probe (default node:fs). */
  disk?: Disk;
  /**
   * Fault injection (tests): called when chokidar has listed a folder, before it watches it
   * (the window in which a rename is never seen).
   */
  onListed?: (abs: string) => void;
}

/** How long the engine's own placement of a file is recognised in the events that name it. */
export const OWN_MS = 10_000;

/**
 * The watcher's default quiet period (ms). 50 was tried in s26 (a tenth of a second more of
 * every rename's way to the NAS, and of a 1 GiB upload's start); the creates-whole test of a
 * file renamed while its upload's answer was lost then timed out in three loaded runs of
 * nine (a rename's two events can be more than 50 ms apart under load): back to 150.
 */
export const QUIET_MS = 150;

/** A file the engine put in place: what the disk showed of it then. */
export interface PlacedFile {
  abs: string;
  ino: string;
  size: number;
  mtimeMs: number;
}

export type WatcherNotice =
  | { kind: 'polling'; reason: string }
  | { kind: 'error'; message: string }
  /** Watching again after a switch: what changed meanwhile raised no event, rescan everything. */
  | { kind: 'restarted' };

type ReadOptions = NonNullable<Parameters<FSWatcher['_readdirp']>[1]>;
type Tester = Extract<NonNullable<ReadOptions['directoryFilter']>, (entry: never) => boolean>;
type Entry = Parameters<Tester>[0];

/**
 * chokidar reading folders only. Stock chokidar lstat-s EVERY entry of every folder it
 * reads (files too, though only folders are watched here): a million calls per start with
 * a million files. Folders are told apart by their directory entry type instead, and files
 * are never handed to chokidar at all. (`_readdirp` is part of chokidar's typed surface, not
 * its documented API: package.json pins chokidar to the exact version this was written and
 * tested against, and the watcher test checks that files are still seen through their
 * folder's events.)
 */
class FolderWatcher extends FSWatcher {
  listed: ((abs: string) => void) | undefined;

  override _readdirp(root: string, opts: ReadOptions = {}): ReturnType<FSWatcher['_readdirp']> {
    const dirFilter = typeof opts.directoryFilter === 'function' ? opts.directoryFilter : undefined;
    const stream = super._readdirp(root, {
      ...opts,
      type: 'directories',
      alwaysStat: false,
      fileFilter: () => false,
      directoryFilter: (entry: Entry) => {
        // chokidar reads `stats` of what it is given: a Dirent answers isDirectory/isSymbolicLink the same
        entry.stats ??= entry.dirent as unknown as Entry['stats'];
        return dirFilter ? dirFilter(entry) : true;
      },
    });
    if (stream) skipFilesEarly(Object.getPrototypeOf(stream) as Explorer);
    const listed = this.listed;
    if (stream && listed) stream.once('end', () => listed(root));
    return stream;
  }
}

type Explored = { files?: { isDirectory(): boolean; isSymbolicLink(): boolean }[] | string[]; depth: number; path: string };
interface Explorer {
  _exploreDir(path: string, depth: number): Promise<Explored>;
  [SKIPS]?: true;
}
const SKIPS = Symbol('nas-mirror: files skipped before formatting');

/**
 * readdirp formats every entry (two path operations each) before looking at its type: with
 * directory entries and no files wanted, files are dropped first. The same result for any
 * reader (files would be dropped after formatting anyway), a million fewer path operations
 * per start here. Patched once on the stream class chokidar uses.
 */
function skipFilesEarly(proto: Explorer): void {
  if (proto[SKIPS] || typeof proto._exploreDir !== 'function') return;
  const explore = proto._exploreDir;
  proto._exploreDir = async function (
    this: Explorer & { _isDirent?: boolean; _wantsFile?: boolean },
    path: string,
    depth: number,
  ): Promise<Explored> {
    const r = await explore.call(this, path, depth);
    if (this._isDirent === true && this._wantsFile === false && Array.isArray(r.files)) {
      r.files = (r.files as { isDirectory(): boolean; isSymbolicLink(): boolean }[]).filter(
        (d) => typeof d === 'object' && (d.isDirectory() || d.isSymbolicLink()),
      );
    }
    return r;
  };
  proto[SKIPS] = true;
}

export class LocalWatcher {
  private w: FSWatcher | undefined;
  private dirty = new Set<string>();
  private quiet: NodeJS.Timeout | undefined;
  private maxWait: NodeJS.Timeout | undefined;
  private probes = new Map<string, () => void>();
  private probeSeq = 0;
  private polling: boolean;
  private closed = false;
  /** Folders ensureWatched asked chokidar to add, and when. */
  private readonly asked = new Map<string, number>();
  private cancelStart: (() => void) | undefined;
  lastSelfTest: { at: string; ok: boolean } | undefined;
  /** Files the engine put in place (`placedByEngine`), by absolute path, until when they are recognised. */
  private readonly placed = new Map<string, PlacedFile & { until: number }>();
  private prunedAt = 0;

  constructor(
    private readonly root: string,
    private readonly onBatch: (dirs: string[]) => void,
    private readonly log: Logger,
    private readonly onNotice: (n: WatcherNotice) => void = () => undefined,
    private readonly opts: WatcherOptions = {},
  ) {
    this.polling = opts.usePolling ?? false;
  }

  get isPolling(): boolean {
    return this.polling;
  }

  /** Starts watching; resolves once chokidar has read the tree. */
  async start(): Promise<void> {
    this.closed = false;
    const reserved = join(this.root, RESERVED_DIR);
    const probeDir = join(reserved, 'selftest');
    (this.opts.disk ?? realDisk).mkdir(probeDir, true);
    const w = new FolderWatcher({
      ignoreInitial: true,
      followSymlinks: false,
      alwaysStat: false,
      atomic: false,
      usePolling: this.polling,
      interval: this.opts.pollIntervalMs ?? 1000,
      binaryInterval: this.opts.pollIntervalMs ?? 1000,
      // Folders only: a file is never watched on its own (one watch per folder, not per file).
      ignored: (p: string, stats?: { isDirectory(): boolean }) =>
        (stats !== undefined && !stats.isDirectory()) ||
        (p.startsWith(reserved + sep) && !(p === probeDir || p.startsWith(probeDir + sep))),
    });
    w.listed = this.opts.onListed;
    w.add(this.root);
    this.w = w;
    w.on('all', (_event, p) => this.onEvent(p));
    // Raw notifications say where to look, and are the only news of files (never watched
    // themselves): fs.watch on a folder names the entry that changed in it; polling names the
    // folder whose mtime moved.
    w.on('raw', (_ev, evPath: string | null, opts) => {
      const watched = (opts as { watchedPath?: string } | undefined)?.watchedPath;
      if (!watched) {
        if (evPath) this.onEvent(evPath, true);
        return;
      }
      this.onEvent(evPath && basename(watched) !== evPath ? join(watched, evPath) : watched);
    });
    w.on('error', (e) => this.onError(e as NodeJS.ErrnoException));
    // Closing before chokidar is ready must not leave start() waiting forever.
    await new Promise<void>((resolve) => {
      this.cancelStart = resolve;
      w.once('ready', () => resolve());
    });
    this.cancelStart = undefined;
  }

  /**
   * The engine put these files in place itself (a download landed under the lock, the model
   * recording each as it is before the lock was released): the events naming them tell
   * nothing new while the disk shows them exactly so, and do not make their folder read again
   * (a Keep of 10,000 files in one folder read all of it 17 times, each under the lock).
   */
  placedByEngine(files: readonly PlacedFile[]): void {
    const now = Date.now();
    // (the expired go at most once per OWN_MS: each batch of a Keep adds a few)
    if (now - this.prunedAt > OWN_MS) {
      this.prunedAt = now;
      for (const [k, v] of this.placed) if (v.until < now) this.placed.delete(k);
    }
    for (const f of files) this.placed.set(resolve(f.abs), { ...f, until: now + OWN_MS });
  }

  /** `abs` is a file the engine put in place, the disk showing it still exactly as it was put there. */
  private own(abs: string): boolean {
    const key = resolve(abs);
    const p = this.placed.get(key);
    if (p === undefined) return false;
    if (p.until < Date.now()) {
      this.placed.delete(key);
      return false;
    }
    try {
      const st = (this.opts.disk ?? realDisk).lstat(key);
      return st.isFile() && st.ino.toString() === p.ino && Number(st.size) === p.size && Number(st.mtimeMs) === p.mtimeMs;
    } catch {
      return false; // gone, or unreadable: its folder is read
    }
  }

  /** `abs` is an entry that changed; with `isFolder`, a folder whose own listing changed. */
  private onEvent(abs: string, isFolder = false): void {
    if (!isFolder && this.placed.size > 0 && this.own(abs)) return;
    const rel = relative(this.root, abs).split(sep).join('/');
    if (rel.startsWith('..') || (isFolder && !abs.startsWith(this.root))) return;
    if (rel === RESERVED_DIR || rel.startsWith(`${RESERVED_DIR}/`)) {
      const done = this.probes.get(rel);
      if (done) done();
      // polling names only the probe's folder: every probe in flight is answered
      if (isFolder && rel === `${RESERVED_DIR}/selftest`) for (const d of [...this.probes.values()]) d();
      return;
    }
    // The folder and its ancestors: a renamed folder shows up first as events deep inside it
    // (chokidar reads the new tree), and its own rename is visible only in its parent.
    if (isFolder) this.dirty.add(rel);
    let dir = rel;
    while (dir !== '') {
      const i = dir.lastIndexOf('/');
      dir = i < 0 ? '' : dir.slice(0, i);
      this.dirty.add(dir);
    }
    this.mark(isFolder ? rel : rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');
  }

  /** Marks a folder to be re-read (also used for rescans and carried disappearances). */
  mark(dir: string): void {
    this.dirty.add(dir);
    clearTimeout(this.quiet);
    this.quiet = setTimeout(() => this.flush(), this.opts.quietMs ?? QUIET_MS);
    this.maxWait ??= setTimeout(() => this.flush(), this.opts.maxWaitMs ?? 500);
  }

  private flush(): void {
    clearTimeout(this.quiet);
    clearTimeout(this.maxWait);
    this.quiet = this.maxWait = undefined;
    if (this.dirty.size === 0 || this.closed) return;
    const dirs = [...this.dirty];
    this.dirty.clear();
    this.onBatch(dirs);
  }

  /** Handles a watcher failure; exported for fault injection in tests. */
  simulateError(e: NodeJS.ErrnoException): void {
    this.onError(e);
  }

  private onError(e: NodeJS.ErrnoException): void {
    if ((e.code === 'ENOSPC' || e.code === 'EMFILE') && !this.polling) {
      const need = watchesNeeded(this.root);
      const limit = inotifyLimit();
      const reason =
        e.code === 'ENOSPC'
          ? `the system limit of watched folders (inotify) is reached: this mirror needs ${need} watches (one per folder)` +
            `${limit !== undefined ? `, the limit is ${limit}` : ''}; ` +
            `raise it with \`sudo sysctl fs.inotify.max_user_watches=${suggestedLimit(need)}\` (and in /etc/sysctl.conf to keep it); ` +
            `meanwhile the folders are polled every ${Math.round((this.opts.pollIntervalMs ?? 1000) / 1000)} s (one stat per folder)`
          : `too many open files for watching (this mirror needs ${need} watches, one per folder); ` +
            'meanwhile the folders are polled (one stat per folder)';
      this.log.warn('watcher limit reached, switching to polling', { code: e.code });
      this.onNotice({ kind: 'polling', reason });
      this.polling = true;
      void this.restart();
      return;
    }
    this.log.error('watcher error', { code: e.code, message: e.message });
    this.onNotice({ kind: 'error', message: e.message });
  }

  private async restart(): Promise<void> {
    const old = this.w;
    this.w = undefined;
    await old?.close();
    if (this.closed) return;
    await this.start();
    this.onNotice({ kind: 'restarted' });
  }

  /**
   * Watches each of these folders (relative paths) that has no watch. chokidar reads a folder,
   * then watches it: a folder renamed in between (by the user, or by the engine applying the
   * NAS's rename while chokidar starts) is never watched under its new name, nor anything
   * below it, and changes there raise no event at all (the convergence soak's seed 2020 round
   * 17). Called with every known folder once chokidar is ready, and with the folders below a
   * folder found moved. Returns how many were added. (`_closers` holds chokidar's watch per
   * watched path: typed surface of the pinned version, checked by watch.test.ts.)
   */
  ensureWatched(dirs: Iterable<string>): number {
    const w = this.w;
    if (!w || this.polling || this.closed) return 0;
    let added = 0;
    for (const rel of dirs) {
      const abs = this.absOf(rel);
      if (this.watching(rel) || !(this.opts.disk ?? realDisk).exists(abs)) continue;
      // chokidar's add is asynchronous (stat, list, watch): not asked twice while under way
      const asked = this.asked.get(abs);
      if (asked !== undefined && Date.now() - asked < 5000) continue;
      this.asked.set(abs, Date.now());
      w.add(abs);
      added++;
    }
    if (added) this.log.info('watching folders chokidar missed (renamed while read)', { added });
    if (this.asked.size > 10_000) this.asked.clear();
    return added;
  }

  /**
   * Watches these folders (relative paths) afresh: each watch chokidar holds for them is closed
   * and made again. A watch follows the folder it was made on, not its path: after two folders
   * traded names in one go (a swap through a temporary name, by the user or by the engine
   * placing the NAS's swap), chokidar keeps a watch at each path that is on the other folder, or
   * on none, and changes inside both raise no event at all (the convergence soak's seed 9026
   * round 21, 8003 round 8). Called with the folders a batch found moved, and all below them.
   */
  rewatch(dirs: Iterable<string>): number {
    const w = this.w;
    if (!w || this.polling || this.closed) return 0;
    let n = 0;
    for (const rel of dirs) {
      const abs = this.absOf(rel);
      if (!(this.opts.disk ?? realDisk).exists(abs)) continue;
      if (this.watching(rel)) w.unwatch(abs);
      this.asked.set(abs, Date.now());
      w.add(abs);
      n++;
    }
    return n;
  }

  /** The absolute path of a folder given relative to the mirror (`''`: the mirror itself). */
  private absOf(rel: string): string {
    return rel === '' ? this.root : join(this.root, ...rel.split('/'));
  }

  /** chokidar holds a watch on this folder (a relative path). */
  watching(rel: string): boolean {
    const closers = (this.w as unknown as { _closers: Map<string, unknown> } | undefined)?._closers;
    return closers?.has(this.absOf(rel)) ?? false;
  }

  /** Writes a probe file and waits for its event. */
  async selfTest(timeoutMs = 5000): Promise<boolean> {
    const rel = `${RESERVED_DIR}/selftest/probe-${process.pid}-${++this.probeSeq}`;
    const abs = join(this.root, ...rel.split('/'));
    const ok = await new Promise<boolean>((resolve) => {
      const t = setTimeout(() => {
        this.probes.delete(rel);
        resolve(false);
      }, timeoutMs);
      this.probes.set(rel, () => {
        clearTimeout(t);
        this.probes.delete(rel);
        resolve(true);
      });
      try {
        (this.opts.disk ?? realDisk).writeFile(abs, '');
      } catch {
        clearTimeout(t);
        this.probes.delete(rel);
        resolve(false);
      }
    });
    try {
      (this.opts.disk ?? realDisk).rmFile(abs);
    } catch {
      /* a probe left in our own folder is harmless */
    }
    this.lastSelfTest = { at: new Date().toISOString(), ok };
    return ok;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cancelStart?.();
    clearTimeout(this.quiet);
    clearTimeout(this.maxWait);
    const w = this.w;
    this.w = undefined;
    await w?.close();
  }
}

/** Watches this mirror needs: one per folder, our own probe folder included. */
export function watchesNeeded(root: string): number {
  return allDirs(root).length + 2;
}

/** The inotify watch limit of this system (Linux), when it can be read. */
export function inotifyLimit(): number | undefined {
  try {
    const n = Number(readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8').trim());
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

/** A limit with room to grow: twice what is needed, rounded up to a power of two, at least 524288. */
export function suggestedLimit(need: number): number {
  let n = 524_288;
  while (n < need * 2) n *= 2;
  return n;
}
