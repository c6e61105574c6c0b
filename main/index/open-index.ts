/**
 * Opening the offline index of a state folder: the saved index when it matches the store's
 * generation (ready in well under a second), else a rebuild from the store (in a worker
 * thread above `workerThreshold` objects). `save` persists base + overlay; when the
 * overlay grows past a share of the base, `save` compacts (rebuilds) first. `follow` feeds
 * the applier's changes to the index and keeps the overlay bounded: a batch that would grow
 * it past `overlayLimit` (a first walk of a million objects) switches to catching up by
 * rebuilds from the store in the worker instead (each a snapshot of one generation), the
 * overlay being several times larger per object than the compact base; in a big store those
 * rebuilds wait for the writes to end (`deferAbove`), not beside a running walk. The word
 * vocabulary is saved next to it with the same generation: loaded on first use when fresh,
 * built with the index on a rebuild, saved by `save` when changes were applied to it.
 */
import type { MirrorStore } from '../mirror/store.js';
import type { RemoteChange } from '../mirror/changes.js';
import { buildFromStore, buildInWorker } from './build.js';
import { FastEngine } from './fast-engine.js';
import { OfflineIndex } from './offline-index.js';
import { loadIndex, saveIndex } from './persist.js';
import { Vocabulary } from './vocabulary.js';
import { hasVocabulary, loadVocabulary, saveVocabulary } from './vocabulary-file.js';
import { ignore } from '../../app/util/ignore.js';

export interface OpenIndexOptions {
  /** Build in a worker thread above this many objects (default 200k). */
  workerThreshold?: number;
  /** Load or build the word vocabulary (completion, did-you-mean) now (default: on first use). */
  vocabulary?: boolean;
  /** Overlay entries above which `follow` catches up by rebuilds (default max(50k, base/4)). */
  overlayLimit?: number;
  /**
   * From this many stored objects (default 200k), a catch-up waits for the writes to end (the
   * walk's end: `catchUpNow`, a save, or 30 s without a change) before it rebuilds: a worker's
   * build beside a running walk holds two big heaps at once (s26, at 1M: first-run peak 1.43-1.45 GB -> 0.95-1.03 GB).
   */
  deferAbove?: number;
  /**
   * Called when a catch-up rebuild replaced the index: the one replaced is garbage (~350 MB at
   * 1M objects), and a host may collect it at once rather than let it sit beside the next
   * build's worker.
   */
  collect?: () => void;
  /**
   * After the last change followed through the overlay, the index alone is saved this much
   * later (default SETTLED_SAVE_MS; 0: never, only `save`): a kill or a crash after changes
   * then costs no full rebuild at the next start.
   */
  settledSaveMs?: number;
}

/**
 * Changes followed, then this long without one: the index is saved (s28: a 1M restart after a
 * kill that followed a catch-up walk's few changes rebuilt the whole index, 11.6 s and 1.3 GB,
 * where a saved one loads in ~0.2 s).
 */
export const SETTLED_SAVE_MS = 30_000;
/** At most one settled save this often (at 1M a save writes ~165 MB: a NAS changing every minute does not make one a minute). */
export const SETTLED_SPACING_MS = 10 * 60_000;

export interface OpenedIndex {
  index: OfflineIndex;
  engine: FastEngine;
  /** How it became ready. */
  source: 'loaded' | 'built';
  /** Saves the index (compacting a large overlay first). */
  save(): Promise<void>;
  /** Applies a batch of store changes (the applier's listener), bounded as the header says. */
  follow(changes: readonly RemoteChange[]): void;
  /** True while the index lags the store (catching up by rebuilds): answers may be older. */
  readonly lagging: boolean;
  /** Resolves when the index has caught up with the store (at once when it is not lagging). */
  caughtUp(): Promise<void>;
  /** The writes that made the index lag are over (a walk ended): catch up now, not after the spacing. */
  catchUpNow(): void;
  /** Calls `fn` each time `lagging` changes; returns a function that stops it. */
  onLagging(fn: (lagging: boolean) => void): () => void;
  /**
   * While lagging, how much of what the store holds search finds, in whole percents (0-99):
   * what the index held when its catch-up build started, and that build's progress towards
   * the store then. Undefined when not lagging.
   */
  readonly progress: number | undefined;
  /** Calls `fn` each time `progress` changes (a whole percent); returns a function that stops it. */
  onProgress(fn: (percent: number | undefined) => void): () => void;
}

export async function openOfflineIndex(store: MirrorStore, stateDir: string, opts: OpenIndexOptions = {}): Promise<OpenedIndex> {
  const generation = store.generation();
  let loaded = loadIndex(stateDir);
  let source: OpenedIndex['source'] = 'loaded';
  if (!loaded || loaded.generation !== generation) {
    source = 'built';
    await rebuild(store, stateDir, opts.workerThreshold ?? 200_000, undefined);
    loaded = loadIndex(stateDir);
  }
  if (!loaded) throw new Error('the offline index could not be built');
  const engine = new FastEngine(loaded.base, loaded.dead, loaded.extra);
  const vocab = Vocabulary.lazySaved(store, () => loadVocabulary(stateDir, generation));
  if (opts.vocabulary) void vocab.size;
  const index = new OfflineIndex(store, engine, vocab);
  return new LiveIndex({ store, stateDir, opts, index, vocab }, engine, source, source === 'loaded' ? generation : -1);
}

/** What an opened index works with. */
interface IndexParts {
  store: MirrorStore;
  stateDir: string;
  opts: OpenIndexOptions;
  index: OfflineIndex;
  vocab: Vocabulary;
}

/** An opened index: follows the store's changes, by its overlay or by catch-up rebuilds, and saves itself. */
class LiveIndex implements OpenedIndex {
  readonly index: OfflineIndex;
  readonly source: OpenedIndex['source'];
  private readonly parts: IndexParts;
  private current: FastEngine;
  private behind = false;
  /** The generation of the files on disk when they equal the engine (a catch-up rebuild saved them). */
  private savedGen: number;
  private catching: Promise<void> | undefined;
  /** A save is waiting (the app stops): the catch-up rebuilds at once, without its spacing. */
  private hurry = false;
  /** Ends a catch-up's wait at once (`catchUpNow`, a save). */
  private wake: (() => void) | undefined;
  private readonly waiters: (() => void)[] = [];
  private readonly lagListeners = new Set<(lagging: boolean) => void>();
  private readonly progressListeners = new Set<(percent: number | undefined) => void>();
  /** The catch-up build under way: the objects the index held at its start, the store's then, and its progress (0-1). */
  private building: { from: number; to: number; done: number } | undefined;
  private told: number | undefined;
  /** The store's objects, and when they were counted (`storeCount`). */
  private counted = { at: 0, n: 0 };
  /** The settled save's timer (`saveSettled`), the generation it last saved, and when. */
  private settledTimer: NodeJS.Timeout | undefined;
  private settledGen = -1;
  private settledAt = -Infinity;

  constructor(parts: IndexParts, engine: FastEngine, source: OpenedIndex['source'], savedGen: number) {
    this.parts = parts;
    this.index = parts.index;
    this.current = engine;
    this.source = source;
    this.savedGen = savedGen;
  }

  get engine(): FastEngine {
    return this.current;
  }

  get lagging(): boolean {
    return this.behind;
  }

  follow(changes: readonly RemoteChange[]): void {
    const { index, opts } = this.parts;
    if (this.behind) {
      index.followFacts(changes);
      return;
    }
    if (this.current.overlaySize + changes.length > (opts.overlayLimit ?? Math.max(50_000, this.current.base.n / 4))) {
      index.followFacts(changes);
      this.setBehind(true);
      // could not rebuild: follow the overlay again from a full rebuild at the next save
      this.catching = this.catchUp().catch(() => this.settle());
      return;
    }
    index.applyChanges(changes);
    this.saveWhenSettled();
  }

  /** The index alone is saved once no change came for `settledSaveMs` (the timer does not keep the process alive). */
  private saveWhenSettled(): void {
    const ms = this.parts.opts.settledSaveMs ?? SETTLED_SAVE_MS;
    if (ms <= 0) return;
    clearTimeout(this.settledTimer);
    this.settledTimer = setTimeout(() => this.saveSettled(), Math.max(ms, this.settledAt + SETTLED_SPACING_MS - Date.now()));
    this.settledTimer.unref?.();
  }

  /**
   * Writes the index as the engine holds it, with the store's generation: only while it follows
   * by its overlay and the overlay is small (a big one is compacted by `save`, at the stop: a
   * rebuild, not for the background); the vocabulary with it when it is in memory, else left to
   * `save` (loading it here would keep it in memory). Synchronous: no store write comes between the generation and the files.
   */
  private saveSettled(): void {
    this.settledTimer = undefined;
    const { store, vocab } = this.parts;
    try {
      const gen = store.generation();
      if (this.catching || gen === this.settledGen || this.overlayToCompact) return;
      this.writeIndex(gen);
      // a vocabulary in memory goes with it (0.2 s at 1M); one not loaded waits for the stop's save
      if (!vocab.isPending && vocab.dirty) this.writeVocabulary(gen);
      this.settledGen = gen;
      this.settledAt = Date.now();
    } catch {
      // not saved (a full disk, the state folder or its database closed): `save` at the stop tries again; a start rebuilds as before
    }
  }

  onLagging(fn: (lagging: boolean) => void): () => void {
    this.lagListeners.add(fn);
    return () => this.lagListeners.delete(fn);
  }

  get progress(): number | undefined {
    if (!this.behind) return undefined;
    const total = this.storeCount();
    const b = this.building;
    // what search finds now, or once this build is loaded: what the index held, and the build's share of the rest it read
    const found = b ? b.from + b.done * Math.max(0, b.to - b.from) : this.current.size;
    return total > 0 ? Math.min(99, Math.floor((100 * found) / Math.max(total, b?.to ?? 0))) : 0;
  }

  /** The objects the store holds, counted at most once a second (a walk writes all the time). */
  private storeCount(): number {
    const now = Date.now();
    if (now - this.counted.at >= 1000) this.counted = { at: now, n: this.parts.store.count() };
    return this.counted.n;
  }

  onProgress(fn: (percent: number | undefined) => void): () => void {
    this.progressListeners.add(fn);
    return () => this.progressListeners.delete(fn);
  }

  /** Tells the progress listeners when the whole percent moved. */
  private tellProgress(): void {
    const p = this.progress;
    if (p === this.told) return;
    this.told = p;
    for (const l of this.progressListeners) l(p);
  }

  private setBehind(b: boolean): void {
    if (this.behind === b) return;
    this.behind = b;
    for (const l of this.lagListeners) l(b);
    this.tellProgress();
  }

  caughtUp(): Promise<void> {
    return this.catching ? new Promise<void>((r) => this.waiters.push(r)) : Promise.resolve();
  }

  catchUpNow(): void {
    if (this.catching) this.hurry = true;
    this.wake?.();
  }

  async save(): Promise<void> {
    const { store, stateDir, opts, index, vocab } = this.parts;
    clearTimeout(this.settledTimer);
    if (this.catching) {
      this.hurry = true;
      this.wake?.();
      await new Promise<void>((r) => this.waiters.push(r));
    }
    if (this.current.overlaySize === 0 && this.savedGen === store.generation() && !vocab.dirty && hasVocabulary(stateDir, this.savedGen))
      return;
    const gen = store.generation();
    if (this.overlayToCompact) {
      await rebuild(store, stateDir, opts.workerThreshold ?? 200_000, vocab);
      const fresh = loadIndex(stateDir);
      if (fresh) {
        this.current = new FastEngine(fresh.base, fresh.dead, fresh.extra);
        index.replaceEngine(this.current);
        // the rebuild saved a vocabulary of this generation: one in memory equals it
        if (vocab.isPending) vocab.reloadFrom(store, () => loadVocabulary(stateDir, gen));
        else vocab.dirty = false;
        return;
      }
    }
    this.writeIndex(gen);
    // a pending vocabulary is either the saved one (unchanged since) or has none fresh: build it
    if (vocab.isPending && !hasVocabulary(stateDir, gen)) void vocab.size;
    if (vocab.dirty) this.writeVocabulary(gen);
  }

  /** The overlay is past what a save writes as it is (max(5000, n/10)): `save` compacts it by a rebuild first. */
  private get overlayToCompact(): boolean {
    return this.current.overlaySize > Math.max(5000, this.current.base.n / 10);
  }

  /** Writes the index as the engine holds it (base, tombstones, overlay), as of generation `gen`. */
  private writeIndex(gen: number): void {
    const engine = this.current;
    saveIndex(this.parts.stateDir, {
      base: engine.base,
      dead: engine.dead,
      extra: [...engine.extra.values()].map((e) => e.doc),
      generation: gen,
    });
  }

  /** Writes the vocabulary as of generation `gen` (loading a pending one first); clean after. */
  private writeVocabulary(gen: number): void {
    const { stateDir, vocab } = this.parts;
    saveVocabulary(stateDir, gen, vocab.toJSON());
    vocab.dirty = false;
  }

  /** Rebuilds from the store until a rebuild saw its latest generation. */
  private async catchUp(): Promise<void> {
    const { store, stateDir, opts, index, vocab } = this.parts;
    for (;;) {
      if (store.count() >= (opts.deferAbove ?? 200_000)) await this.waitWritesEnd();
      // always in the worker: a catch-up runs while the walk needs this thread (on the other
      // core, the build runs beside the walk instead of pausing it)
      const t0 = Date.now();
      this.building = { from: this.current.size, to: store.count(), done: 0 };
      this.tellProgress();
      // the text index alone: the word vocabulary only once caught up (below): while a walk
      // runs, each build would redo it for nothing (at 1M: 5.5 s and ~330 MB of a worker)
      await rebuild(store, stateDir, 0, undefined, false, (f) => {
        if (this.building) this.building.done = f;
        this.tellProgress();
      }).finally(() => (this.building = undefined));
      const buildMs = Date.now() - t0;
      const fresh = loadIndex(stateDir);
      if (fresh) {
        this.current = new FastEngine(fresh.base, fresh.dead, fresh.extra);
        index.replaceEngine(this.current);
        this.savedGen = fresh.generation;
        this.tellProgress();
        opts.collect?.();
        // caught up: the vocabulary alone, in a worker of its own too (built lazily here, a
        // million names would hold this thread seconds and ~1 GB of heap)
        if (fresh.generation === store.generation())
          await buildInWorker(stateDir, { index: false, vocabulary: true }).catch(
            ignore('without a saved vocabulary, the one below is built from the store: slower, the same words'),
          );
        vocab.reloadFrom(store, () => loadVocabulary(stateDir, fresh.generation));
      }
      if (!fresh || fresh.generation === store.generation()) break;
      await this.waitQuiet(buildMs);
    }
    this.settle();
  }

  /**
   * The store moved during the build (a walk still running): again once it has been
   * quiet for a second, or after 30 s at most; never sooner than two builds' time, so
   * the worker takes at most a third of a core the walk needs too (a first walk at 1M
   * pauses often enough to look quiet: back-to-back rebuilds cost it minutes).
   */
  private async waitQuiet(buildMs: number): Promise<void> {
    const { store } = this.parts;
    const t1 = Date.now();
    const shortest = 2 * buildMs;
    const longest = Math.max(30_000, 4 * buildMs);
    let seen = store.generation();
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      // the store grows meanwhile: what search finds is a smaller share of it
      this.tellProgress();
      const g = store.generation();
      const waited = Date.now() - t1;
      if ((g === seen && waited >= shortest) || waited >= longest || this.hurry) break;
      seen = g;
    }
  }

  /**
   * Until the writes that made the index lag are over: `catchUpNow` (a walk's end) or a save
   * says so, or the store has not moved for 30 s (writes that end without a walk's end).
   */
  private async waitWritesEnd(): Promise<void> {
    const { store } = this.parts;
    let seen = store.generation();
    let still = 0;
    while (!this.hurry) {
      const woken = new Promise<void>((r) => (this.wake = r));
      const tick = new Promise<void>((r) => setTimeout(r, 1000).unref());
      await Promise.race([woken, tick]);
      this.wake = undefined;
      // the store grows meanwhile: what search finds is a smaller share of it
      this.tellProgress();
      const g = store.generation();
      still = g === seen ? still + 1 : 0;
      seen = g;
      if (still >= 30) break;
    }
  }

  /** The catch-up is over (caught up, or given up): no longer lagging, and the waiters go on. */
  private settle(): void {
    this.setBehind(false);
    this.catching = undefined;
    this.hurry = false;
    for (const w of this.waiters.splice(0)) w();
  }
}

/**
 * Builds and saves the text index and the vocabulary, both of the store's generation (in a
 * worker above `workerThreshold` objects). A `vocab` already built in memory is saved as is;
 * `withVocabulary` false leaves the vocabulary out (it is built on first use, or by the next save).
 */
async function rebuild(
  store: MirrorStore,
  stateDir: string,
  workerThreshold: number,
  vocab: Vocabulary | undefined,
  withVocabulary = true,
  progress?: (done: number) => void,
): Promise<void> {
  if (store.count() >= workerThreshold) {
    try {
      // a worker per part, one after the other: in one worker they peaked at ~680 MB at 1M
      // objects (the index's garbage beside the vocabulary's), apart at ~420 and ~330 MB
      await buildInWorker(stateDir, { index: true, vocabulary: false }, progress);
      if (withVocabulary) await buildInWorker(stateDir, { index: false, vocabulary: true });
      return;
    } catch {
      // fall back to building here
    }
  }
  const generation = store.generation();
  saveIndex(stateDir, { base: buildFromStore(store, progress), dead: new Uint8Array(0), extra: [], generation });
  if (!withVocabulary) return;
  saveVocabulary(stateDir, generation, vocab && !vocab.isPending ? vocab.toJSON() : Vocabulary.savedFromStore(store));
}
