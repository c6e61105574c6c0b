/**
 * Building the text index from the mirror store, in this thread or in a worker thread
 * (large libraries: the UI stays responsive). The worker is a TypeScript module, so it
 * registers tsx first; when a worker cannot start, the build runs here.
 */
import { Worker } from 'node:worker_threads';
import { AppError } from '../../app/errors.js';
import type { MirrorStore } from '../mirror/store.js';
import { buildBase, type BaseData } from './base-index.js';
import type { IndexDoc } from './engine.js';

/** The searchable docs of every stored object (the root is not stored among them). */
export function docsOfStore(store: MirrorStore): IndexDoc[] {
  const docs: IndexDoc[] = [];
  for (const [id, name, mime, make, model] of store.docRows()) {
    const d: IndexDoc = { id, name, mimeType: mime };
    if (make !== null) d.cameraMake = make;
    if (model !== null) d.cameraModel = model;
    docs.push(d);
  }
  return docs;
}

export function buildFromStore(store: MirrorStore): BaseData {
  return buildBase(docsOfStore(store));
}

/** What a worker build makes and saves: the text index, the word vocabulary, or both (one read snapshot). */
export interface BuildParts {
  index: boolean;
  vocabulary: boolean;
}

/** Builds and saves the index of `stateDir` and/or its word vocabulary in a worker thread. */
export function buildInWorker(stateDir: string, parts: BuildParts = { index: true, vocabulary: true }): Promise<void> {
  const entry = new URL('./build-worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Promise<void>((resolve, reject) => {
    let w: Worker;
    try {
      w = new Worker(boot, { eval: true, workerData: { stateDir, parts } });
    } catch (e) {
      reject(new AppError('Internal', 'cannot start the index build worker', { cause: e }));
      return;
    }
    let done = false;
    w.on('message', (m: { ok?: boolean; error?: string }) => {
      done = true;
      if (m.ok) resolve();
      else reject(new AppError('Internal', `index build failed: ${m.error ?? 'unknown'}`));
      void w.terminate();
    });
    w.on('error', (e) => { if (!done) { done = true; reject(new AppError('Internal', 'index build worker failed', { cause: e })); } });
    w.on('exit', (code) => { if (!done) { done = true; reject(new AppError('Internal', `index build worker exited (${code})`)); } });
  });
}
