/**
 * Building the text index from the mirror store, in this thread or in a worker thread
 * (large libraries: the UI stays responsive). From the source checkout the worker is a
 * TypeScript module, so it registers tsx first; in a bundle (the desktop app, which ships no
 * tsx) it is the bundled `dist/main/index/build-worker.cjs` (build/bundle.mjs). When a worker
 * cannot start, the build runs here.
 */
import { Worker } from 'node:worker_threads';
import { AppError } from '../../app/errors.js';
import type { MirrorStore } from '../mirror/store.js';
import { ComboTable, buildBaseColumns, type BaseColumns, type BaseData } from './base-index.js';

/** Rows read between two reports of `columnsOfStore`'s progress. */
const ROWS_PER_REPORT = 65_536;

/**
 * The searchable columns of every stored object (the root is not stored among them);
 * `progress` hears the share of the stored rows read so far.
 */
export function columnsOfStore(store: MirrorStore, progress?: (done: number) => void): BaseColumns {
  const expected = progress ? store.count() : 0;
  const table = new ComboTable();
  const ids: string[] = [],
    names: string[] = [],
    combo: number[] = [];
  for (const [id, name, mime, make, model] of store.docRows()) {
    ids.push(id);
    names.push(name);
    combo.push(table.of(mime, make ?? undefined, model ?? undefined));
    if (expected > 0 && ids.length % ROWS_PER_REPORT === 0) progress?.(Math.min(1, ids.length / expected));
  }
  return { ids, names, combo, combos: table.combos };
}

/**
 * How a build's time splits between reading the rows and building (a worker's 1M build, s26:
 * ~1.5 s of rows, ~2.4 s of build; the save is in the last share).
 */
const READ_SHARE = 0.35;

/**
 * The index of the store's rows; `progress` hears how far it is (0-1, reading then building);
 * `collect` collects garbage between the build's steps (a worker's build).
 */
export function buildFromStore(store: MirrorStore, progress?: (done: number) => void, collect?: () => void): BaseData {
  const cols = columnsOfStore(store, progress && ((f) => progress(READ_SHARE * f)));
  return buildBaseColumns(cols, {
    consume: true,
    ...(collect ? { collect } : {}),
    ...(progress ? { progress: (f) => progress(READ_SHARE + (1 - READ_SHARE) * f) } : {}),
  });
}

/** What a worker build makes and saves: the text index, the word vocabulary, or both (one read snapshot). */
export interface BuildParts {
  index: boolean;
  vocabulary: boolean;
}

/**
 * Builds and saves the index of `stateDir` and/or its word vocabulary in a worker thread;
 * `progress` hears how far the index's build is (0-1; whole percents only).
 */
export function buildInWorker(
  stateDir: string,
  parts: BuildParts = { index: true, vocabulary: true },
  progress?: (done: number) => void,
): Promise<void> {
  const { script, evaluated } = workerScript(import.meta.url);
  return new Promise<void>((resolve, reject) => {
    let w: Worker;
    try {
      w = new Worker(script, { eval: evaluated, workerData: { stateDir, parts } });
    } catch (e) {
      reject(new AppError('Internal', 'cannot start the index build worker', { cause: e }));
      return;
    }
    // Settles once the worker has exited, not at its answer: the caller loads what it saved
    // next, and the worker's heap (~400 MB at 1M objects) is gone only then.
    let outcome: { ok: true } | { ok: false; error: AppError } | undefined;
    w.on('message', (m: { ok?: boolean; error?: string; progress?: number }) => {
      if (m.progress !== undefined) {
        progress?.(m.progress);
        return;
      }
      outcome ??= m.ok ? { ok: true } : { ok: false, error: new AppError('Internal', `index build failed: ${m.error ?? 'unknown'}`) };
      void w.terminate();
    });
    w.on('error', (e) => {
      outcome ??= { ok: false, error: new AppError('Internal', 'index build worker failed', { cause: e }) };
    });
    w.on('exit', (code) => {
      const o = outcome ?? { ok: false, error: new AppError('Internal', `index build worker exited (${code})`) };
      if (o.ok) resolve();
      else reject(o.error);
    });
  });
}

/**
 * The worker's script for code loaded from `here`: a bundle (every bundle of the app sits one
 * folder below `dist/main`) starts the bundled worker; TypeScript run by tsx boots tsx first.
 */
export function workerScript(here: string): { script: string | URL; evaluated: boolean } {
  if (!/\.[cm]?ts$/.test(new URL(here).pathname)) return { script: new URL('../index/build-worker.cjs', here), evaluated: false };
  const entry = new URL('./build-worker.ts', here).href;
  return { script: `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`, evaluated: true };
}
