/**
 * Opening the offline index of a state folder: the saved index when it matches the store's
 * generation (ready in well under a second), else a rebuild from the store (in a worker
 * thread above `workerThreshold` objects). `save` persists base + overlay; when the
 * overlay grows past a share of the base, `save` compacts (rebuilds) first.
 */
import type { MirrorStore } from '../mirror/store.js';
import { buildBase } from './base-index.js';
import { buildInWorker, docsOfStore } from './build.js';
import { FastEngine } from './fast-engine.js';
import { OfflineIndex } from './offline-index.js';
import { loadIndex, saveIndex } from './persist.js';
import { Vocabulary } from './vocabulary.js';

export interface OpenIndexOptions {
  /** Build in a worker thread above this many objects (default 200k). */
  workerThreshold?: number;
  /** Build the word vocabulary (completion, did-you-mean) now (default: lazily, on first use). */
  vocabulary?: boolean;
}

export interface OpenedIndex {
  index: OfflineIndex;
  engine: FastEngine;
  /** How it became ready. */
  source: 'loaded' | 'built';
  /** Saves the index (compacting a large overlay first). */
  save(): Promise<void>;
}

export async function openOfflineIndex(store: MirrorStore, stateDir: string, opts: OpenIndexOptions = {}): Promise<OpenedIndex> {
  const generation = store.generation();
  let loaded = loadIndex(stateDir);
  let source: OpenedIndex['source'] = 'loaded';
  if (!loaded || loaded.generation !== generation) {
    source = 'built';
    await rebuild(store, stateDir, opts.workerThreshold ?? 200_000);
    loaded = loadIndex(stateDir);
  }
  if (!loaded) throw new Error('the offline index could not be built');
  let engine = new FastEngine(loaded.base, loaded.dead, loaded.extra);
  const vocab = opts.vocabulary ? Vocabulary.fromStore(store) : Vocabulary.lazy(store);
  const index = new OfflineIndex(store, engine, vocab);
  return {
    get index() { return index; },
    get engine() { return engine; },
    source,
    async save() {
      if (engine.overlaySize > Math.max(5000, engine.base.n / 10)) {
        await rebuild(store, stateDir, opts.workerThreshold ?? 200_000);
        const fresh = loadIndex(stateDir);
        if (fresh) {
          engine = new FastEngine(fresh.base, fresh.dead, fresh.extra);
          index.replaceEngine(engine);
          return;
        }
      }
      saveIndex(stateDir, { base: engine.base, dead: engine.dead, extra: [...engine.extra.values()].map((e) => e.doc), generation: store.generation() });
    },
  };
}

async function rebuild(store: MirrorStore, stateDir: string, workerThreshold: number): Promise<void> {
  if (store.count() >= workerThreshold) {
    try {
      await buildInWorker(stateDir);
      return;
    } catch {
      // fall back to building here
    }
  }
  saveIndex(stateDir, { base: buildBase(docsOfStore(store)), dead: new Uint8Array(0), extra: [], generation: store.generation() });
}
