/**
 * Worker thread entry: builds the text index of a state folder off the main thread and
 * saves it with the word vocabulary (same generation); the main thread then loads the files. Input: `{stateDir}`; output: `{ok}` or `{error}`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openStateDbReadOnly } from '../state/db.js';
import { MirrorStore } from '../mirror/store.js';
import { buildFromStore } from './build.js';
import { saveIndex } from './persist.js';
import { Vocabulary } from './vocabulary.js';
import { saveVocabulary } from './vocabulary-file.js';

const { stateDir } = workerData as { stateDir: string };
try {
  // read-only: the engine's connection owns the store (and may be mid bulk fill)
  const db = openStateDbReadOnly(stateDir);
  const store = new MirrorStore(db, 'reader');
  // one read snapshot: the generation saved is exactly the one the docs come from (a walk may be writing)
  const { generation, base, vocabulary } = db.transaction(() => ({ generation: store.generation(), base: buildFromStore(store), vocabulary: Vocabulary.fromStore(store).toJSON() }))();
  saveIndex(stateDir, { base, dead: new Uint8Array(base.n), extra: [], generation });
  saveVocabulary(stateDir, generation, vocabulary);
  db.close();
  parentPort?.postMessage({ ok: true });
} catch (e) {
  parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) });
}
