/**
 * Step 1 of the local pipeline (WATCH -> analyse -> pair moves -> plan). One `fs.watch` per
 * folder (inotify on Linux) says only WHERE to look: each event marks its folder dirty; a
 * batch of dirty folders is handed on after a short quiet period (or a maximum wait). A watch
 * on a folder already reports every entry added, removed, renamed or written in it, so files
 * are never watched on their own. The folders to watch at a start are the ones the engine
 * knows (its model, and the folders it lists as local only): nothing is read to find them (a
 * 1M mirror's 14,669 folders are watched in ~0.13 s, where chokidar's read of the tree took
 * 1.9 s and 250 MB of heap: docs/sync-engine.md). A folder that appears (made, moved in,
 * swapped) is found by the event naming it in its parent, watched with every folder below
 * it, and each of those read once after its watch is made (what was put in before is seen).
 * A watched folder that goes (or is replaced by another at its path) loses its watches, and
 * the ones below it. Our own folder `.nas-mirror` is ignored except its `selftest/` probe.
 * ENOSPC/EMFILE (inotify or file-handle limits) switches to polling the watched folders'
 * mtimes (one lstat per folder, never per file) with a message giving the number of watches
 * needed; `simulateError` injects such a failure in tests. A file the engine itself just put
 * in place (`placedByEngine`: a download landed, the model already holding it) does not make
 * its folder read again while the disk shows it exactly as put there.
 */
import { readFileSync, watch, type BigIntStats, type FSWatcher } from 'node:fs';
import { realDisk, type Disk } from './disk.js';
import { basename, join, relative, resolve, sep } from 'node:path';
import type { Logger } from '../log/logger.js';
import { RESERVED_DIR } from './local-names.js';
import { allDirs } from './analyse.js';

export interface WatcherOptions {
  /**
   * Quiet period before a batch is handed on (default QUIET_MS). A rename or a move is one
   * burst of events, and a copy of many files keeps it from ending until `maxWaitMs`.
   */
  quietMs?: number;
  /** Longest a batch waits (default 500 ms). */
  maxWaitMs?: number;
  usePolling?: boolean;
  pollIntervalMs?: number;
  /** The disk seam for the self-test probe and the folders' lstat and listing (default node:fs). */
  disk?: Disk;
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

/** Folders a new tree's watches are made for in one turn of the event loop (a big folder dropped in does not stall the engine). */
const TREE_SLICE = 256;

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

/**
 * A watched folder: the inode at its path when the watch was made (a watch follows that
 * inode), its mtime (polling), its watch (none while polling).
 */
interface Watched {
  ino: bigint;
  mtimeNs: bigint;
  fsw: FSWatcher | undefined;
}

export class LocalWatcher {
  /** Every watched folder, by absolute path. */
  private readonly watches = new Map<string, Watched>();
  private dirty = new Set<string>();
  private quiet: NodeJS.Timeout | undefined;
  private maxWait: NodeJS.Timeout | undefined;
  private probes = new Map<string, () => void>();
  private probeSeq = 0;
  private polling: boolean;
  private poller: NodeJS.Timeout | undefined;
  private closed = false;
  /** Paths an event named as renamed, made or removed: checked together, once the events of this turn are in. */
  private readonly suspects = new Set<string>();
  private checking: NodeJS.Immediate | undefined;
  /** New folders whose watches are still to be made (`watchTree`; a set: each asked once), and the turn that makes the next slice. */
  private readonly tree = new Set<string>();
  private treeTurn: NodeJS.Immediate | undefined;
  lastSelfTest: { at: string; ok: boolean } | undefined;
  /** Files the engine put in place (`placedByEngine`), by absolute path, until when they are recognised. */
  private readonly placed = new Map<string, PlacedFile & { until: number }>();
  private prunedAt = 0;
  private readonly reserved: string;
  private readonly probeDir: string;

  constructor(
    private readonly root: string,
    private readonly onBatch: (dirs: string[]) => void,
    private readonly log: Logger,
    private readonly onNotice: (n: WatcherNotice) => void = () => undefined,
    private readonly opts: WatcherOptions = {},
  ) {
    this.polling = opts.usePolling ?? false;
    this.reserved = join(root, RESERVED_DIR);
    this.probeDir = join(this.reserved, 'selftest');
  }

  get isPolling(): boolean {
    return this.polling;
  }

  private get disk(): Disk {
    return this.opts.disk ?? realDisk;
  }

  /**
   * Starts watching the mirror folder, our probe folder and these folders (relative paths: the
   * ones the engine knows; '' is the mirror itself). Nothing below them is read: what the
   * engine does not know yet is found by its reading of the folders whose stamp moved, and
   * handed back through `ensureWatched`.
   */
  async start(known: Iterable<string> = []): Promise<void> {
    this.closed = false;
    this.disk.mkdir(this.probeDir, true);
    this.watchOne(this.root);
    this.watchOne(this.probeDir);
    for (const rel of known) this.watchOne(this.absOf(rel));
    if (this.polling) this.startPolling();
    return Promise.resolve();
  }

  /** Watches one folder (absolute path) unless it is watched, gone or not a folder; true when a watch was made. */
  private watchOne(abs: string): boolean {
    if (this.closed || this.watches.has(abs)) return false;
    // gone (its parent's event says so), unreadable (its own scan says why), or not a folder
    const st = this.folderAt(abs);
    if (st === undefined) return false;
    const w: Watched = { ino: st.ino, mtimeNs: st.mtimeNs, fsw: undefined };
    if (!this.polling) {
      try {
        w.fsw = watch(abs, { persistent: true }, (ev, name) => this.onRaw(abs, ev, name));
        w.fsw.on('error', () => this.suspect(abs));
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        if (err.code !== 'ENOSPC' && err.code !== 'EMFILE') return false; // gone meanwhile
        this.onError(err);
        if (!this.polling) return false;
      }
    }
    this.watches.set(abs, w);
    return true;
  }

  /** The lstat of the folder at `abs`; undefined when nothing is there, it cannot be read, or it is not a folder. */
  private folderAt(abs: string): BigIntStats | undefined {
    try {
      const st = this.disk.lstat(abs);
      return st.isDirectory() ? st : undefined;
    } catch {
      return undefined;
    }
  }

  /** Closes the watches of a folder and of every folder below it (it went, or another folder is at its path now). */
  private unwatchTree(abs: string): void {
    const below = abs + sep;
    for (const [p, w] of this.watches) {
      if (p !== abs && !p.startsWith(below)) continue;
      w.fsw?.close();
      this.watches.delete(p);
    }
  }

  /**
   * Watches a folder that appeared and every folder below it, each read once its watch is made
   * (marked: what was put in before the watch is seen). A slice per turn of the event loop.
   */
  private watchTree(abs: string): void {
    this.tree.add(abs);
    this.treeTurn ??= setImmediate(() => this.watchTreeSlice());
  }

  private watchTreeSlice(): void {
    this.treeTurn = undefined;
    let n = 0;
    for (const abs of this.tree) {
      if (n++ >= TREE_SLICE || this.closed) break;
      this.tree.delete(abs);
      if (this.isReserved(abs) || !this.watchOne(abs)) continue;
      this.mark(this.relOf(abs));
      let kids: { name: string; dir: boolean }[];
      try {
        kids = this.disk.readdirKinds(abs);
      } catch {
        continue; // gone meanwhile, or unreadable: its own scan says why
      }
      for (const k of kids) if (k.dir) this.tree.add(join(abs, k.name));
    }
    if (this.tree.size > 0 && !this.closed) this.treeTurn = setImmediate(() => this.watchTreeSlice());
  }

  /** `abs` may have been made, removed or replaced (an event named it): checked with the others of this turn. */
  private suspect(abs: string): void {
    if (this.closed || this.isReserved(abs)) return;
    this.suspects.add(abs);
    this.checking ??= setImmediate(() => this.checkSuspects());
  }

  /**
   * What each suspect is now: a watched folder that is gone, or whose path holds another inode
   * (a swap, a folder made again), loses its watches and those below it; a folder not watched
   * (made, moved in, or the other side of a swap) gets them. Shallowest first: a removed tree
   * is dropped once.
   */
  private checkSuspects(): void {
    this.checking = undefined;
    const paths = [...this.suspects].sort((a, b) => a.length - b.length);
    this.suspects.clear();
    for (const abs of paths) {
      if (this.closed) return;
      const dir = this.folderAt(abs);
      const w = this.watches.get(abs);
      if (w !== undefined && (dir === undefined || dir.ino !== w.ino)) this.unwatchTree(abs);
      if (dir !== undefined && !this.watches.has(abs)) this.watchTree(abs);
    }
  }

  /** An event of the watch on folder `dir`: `name` is the entry that changed (the folder's own name: the folder itself). */
  private onRaw(dir: string, ev: string, name: string | Buffer | null): void {
    if (this.closed) return;
    if (name === null) {
      this.onEvent(dir, true);
      this.suspect(dir);
      return;
    }
    const entry = join(dir, name.toString());
    // the folder itself renamed or removed (inotify names it by its own name), or an entry of that name in it: both
    if (name.toString() === basename(dir)) {
      this.onEvent(dir);
      this.suspect(dir);
    }
    if (this.placed.size > 0 && this.own(entry)) return;
    this.onEvent(entry);
    if (ev === 'rename') this.suspect(entry);
  }

  private startPolling(): void {
    if (this.poller !== undefined || this.closed) return;
    this.poller = setInterval(() => this.poll(), this.opts.pollIntervalMs ?? 1000);
    this.poller.unref?.();
  }

  /** One polling round: each watched folder whose mtime moved is read (and looked into for new folders); one that went, its parent. */
  private poll(): void {
    for (const [abs, w] of this.watches) {
      if (this.closed) return;
      const st = this.folderAt(abs);
      if (st === undefined || st.ino !== w.ino) {
        this.onEvent(abs);
        this.suspect(abs);
        continue;
      }
      if (st.mtimeNs === w.mtimeNs) continue;
      w.mtimeNs = st.mtimeNs;
      this.onEvent(abs, true);
      try {
        for (const k of this.disk.readdirKinds(abs)) {
          const kid = join(abs, k.name);
          if (k.dir && !this.watches.has(kid)) this.suspect(kid);
        }
      } catch {
        // gone meanwhile: the next round says so
      }
    }
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
      const st = this.disk.lstat(key);
      return st.isFile() && st.ino.toString() === p.ino && Number(st.size) === p.size && Number(st.mtimeMs) === p.mtimeMs;
    } catch {
      return false; // gone, or unreadable: its folder is read
    }
  }

  /** `abs` is an entry that changed; with `isFolder`, a folder whose own listing changed. */
  private onEvent(abs: string, isFolder = false): void {
    const rel = this.relOf(abs);
    if (rel.startsWith('..') || (isFolder && !abs.startsWith(this.root))) return;
    if (rel === RESERVED_DIR || rel.startsWith(`${RESERVED_DIR}/`)) {
      const done = this.probes.get(rel);
      if (done) done();
      // polling names only the probe's folder: every probe in flight is answered
      if (isFolder && rel === `${RESERVED_DIR}/selftest`) for (const d of [...this.probes.values()]) d();
      return;
    }
    // The folder and its ancestors: a renamed folder shows up first as events deep inside it,
    // and its own rename is visible only in its parent.
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
      // every folder watched so far is polled instead (the same folders, their mtimes as now)
      this.polling = true;
      for (const [abs, w] of this.watches) {
        w.fsw?.close();
        w.fsw = undefined;
        try {
          w.mtimeNs = this.disk.lstat(abs).mtimeNs;
        } catch {
          // gone: the first round says so
        }
      }
      this.startPolling();
      // what changed while the watches failed raised no event: the engine reads everything
      queueMicrotask(() => {
        if (!this.closed) this.onNotice({ kind: 'restarted' });
      });
      return;
    }
    this.log.error('watcher error', { code: e.code, message: e.message });
    this.onNotice({ kind: 'error', message: e.message });
  }

  /**
   * Watches each of these folders (relative paths) that has no watch, with every folder below
   * it, each read once its watch is made: folders the engine found new in a folder it read
   * without an event naming them (made while it was stopped). Returns how many folders were
   * asked (their watches come within a few turns of the event loop).
   */
  ensureWatched(dirs: Iterable<string>): number {
    if (this.closed) return 0;
    let added = 0;
    for (const rel of dirs) {
      const abs = this.absOf(rel);
      if (this.watches.has(abs) || this.tree.has(abs)) continue;
      this.watchTree(abs);
      added++;
    }
    return added;
  }

  /**
   * Watches these folders (relative paths) afresh: each watch is closed and made again. A watch
   * follows the folder it was made on, not its path: after two folders traded names in one go
   * (a swap through a temporary name, by the user or by the engine placing the NAS's swap), the
   * events may come before both names are in place (the convergence soak's seed 9026 round 21,
   * 8003 round 8). Called with the folders a batch found moved, and all below them.
   */
  rewatch(dirs: Iterable<string>): number {
    if (this.closed) return 0;
    let n = 0;
    for (const rel of dirs) {
      const abs = this.absOf(rel);
      const w = this.watches.get(abs);
      if (w !== undefined) {
        w.fsw?.close();
        this.watches.delete(abs);
      }
      if (this.watchOne(abs)) n++;
    }
    return n;
  }

  /** The absolute path of a folder given relative to the mirror (`''`: the mirror itself). */
  private absOf(rel: string): string {
    return rel === '' ? this.root : join(this.root, ...rel.split('/'));
  }

  private relOf(abs: string): string {
    return relative(this.root, abs).split(sep).join('/');
  }

  /** Inside our own folder, but for the probe's (never watched as the user's). */
  private isReserved(abs: string): boolean {
    return (abs === this.reserved || abs.startsWith(this.reserved + sep)) && abs !== this.probeDir;
  }

  /** This folder (a relative path) is watched. */
  watching(rel: string): boolean {
    return this.watches.has(this.absOf(rel));
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
        this.disk.writeFile(abs, '');
      } catch {
        clearTimeout(t);
        this.probes.delete(rel);
        resolve(false);
      }
    });
    try {
      this.disk.rmFile(abs);
    } catch {
      /* a probe left in our own folder is harmless */
    }
    this.lastSelfTest = { at: new Date().toISOString(), ok };
    return ok;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.quiet);
    clearTimeout(this.maxWait);
    clearInterval(this.poller);
    if (this.checking) clearImmediate(this.checking);
    if (this.treeTurn) clearImmediate(this.treeTurn);
    this.poller = this.checking = this.treeTurn = undefined;
    this.suspects.clear();
    this.tree.clear();
    for (const w of this.watches.values()) w.fsw?.close();
    this.watches.clear();
    return Promise.resolve();
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
