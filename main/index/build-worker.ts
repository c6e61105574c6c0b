/**
 * Worker thread entry: builds the text index of a state folder off the main thread and
 * saves it and/or the word vocabulary (same generation); the main thread then loads the
 * files. Input: `{stateDir, parts}`; output: `{progress}` (0-0.99, the index's build) as it
 * goes, then `{ok}` or `{error}`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openStateDbReadOnly } from '../state/db.js';
import { MirrorStore } from '../mirror/store.js';
import { buildFromStore, type BuildParts } from './build.js';
import { fullGc } from './full-gc.js';
import { saveIndex } from './persist.js';
import { Vocabulary } from './vocabulary.js';
import { saveVocabulary } from './vocabulary-file.js';

const { stateDir, parts } = workerData as { stateDir: string; parts: BuildParts };
try {
  // read-only: the engine's connection owns the store (and may be mid bulk fill)
  const db = openStateDbReadOnly(stateDir);
  const store = new MirrorStore(db, 'reader');
  // one read snapshot: the generation saved is exactly the one the docs come from (a walk may
  // be writing); the index is saved and let go before the vocabulary is built, so the two
  // never take memory at once (at 1M: ~590 MB and ~300 MB)
  db.transaction(() => {
    const generation = store.generation();
    if (parts.index) {
      // how far it is, in whole percents (the save is the last of them)
      let told = -1;
      const base = buildFromStore(
        store,
        (f) => {
          const pct = Math.floor(99 * f);
          if (pct === told) return;
          told = pct;
          parentPort?.postMessage({ progress: pct / 100 });
        },
        fullGc,
      );
      saveIndex(stateDir, { base, dead: new Uint8Array(base.n), extra: [], generation });
    }
    if (parts.vocabulary) {
      if (process.env['NAS_MIRROR_TRACE_BUILD']) process.stderr.write(`vocabulary ${Math.round(performance.now())}\n`);
      saveVocabulary(stateDir, generation, Vocabulary.savedFromStore(store));
    }
  })();
  db.close();
  parentPort?.postMessage({ ok: true });
} catch (e) {
  parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) });
}
