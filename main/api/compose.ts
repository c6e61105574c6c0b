/**
 * The one composition of a mirror's engine side, used by the app (mirror-core.ts and
 * session.ts, in the engine's process), `nas-mirror run` and `nas-mirror sync`: the state
 * database, the mirror store, the change applier, the offline index following every applied
 * change, and the Engine sharing them. Callers add only what differs (how the NAS is
 * reached, the timing, the UI).
 */
import { Engine, type EngineOptions } from '../engine/engine.js';
import { releaseGarbage, releaseMemory } from '../engine/release-memory.js';
import { openOfflineIndex, type OpenedIndex } from '../index/open-index.js';
import { ChangeApplier } from '../mirror/apply.js';
import { MirrorStore } from '../mirror/store.js';
import { openStateDb, type Db } from '../state/db.js';

export interface MirrorState {
  stateDir: string;
  db: Db;
  store: MirrorStore;
  applier: ChangeApplier;
  /** The offline index, following the applier. */
  opened: OpenedIndex;
  /** Closes the database (save the index first: `opened.save()`). */
  close(): void;
}

/**
 * Opens a state folder: database, store, applier and the offline index that follows it. The
 * index a catch-up replaced is collected at once (release-memory.ts): left to V8, ~500 MB sat
 * beside the next build's worker at 1M objects, and was collected a minute later, in idle time.
 */
export async function openMirrorState(stateDir: string): Promise<MirrorState> {
  const db = openStateDb(stateDir);
  try {
    const store = new MirrorStore(db);
    const applier = new ChangeApplier(store);
    const opened = await openOfflineIndex(store, stateDir, { collect: releaseGarbage });
    applier.onChanges((c) => opened.follow(c));
    return { stateDir, db, store, applier, opened, close: () => db.close() };
  } catch (e) {
    db.close();
    throw e;
  }
}

/**
 * The Engine on an opened state (sharing its database, store and applier with the index).
 * A walk that placed objects ends with "index changed": an index lagging behind the walk
 * catches up at once; once it has, the engine's free memory goes back to the system
 * (release-memory.ts) before the quiet time between rounds. While it catches up, how far it is
 * goes in the state db's meta `indexing` (whole percents) for `nas-mirror status`.
 */
export function createEngine(
  state: Pick<MirrorState, 'stateDir' | 'db' | 'store' | 'applier'> & Partial<Pick<MirrorState, 'opened'>>,
  opts: Omit<EngineOptions, 'stateDir' | 'db' | 'store' | 'applier'>,
): Engine {
  const engine = new Engine({ ...opts, stateDir: state.stateDir, db: state.db, store: state.store, applier: state.applier });
  const opened = state.opened;
  if (opened) {
    // for `nas-mirror status` (another process): how far the index's catch-up is, while it runs
    const local = engine.core.local;
    const tell = (pct: number | undefined): void => local.setMeta('indexing', pct === undefined ? undefined : String(pct));
    tell(opened.progress);
    const off = opened.onProgress(tell);
    engine.stopping.addEventListener('abort', off, { once: true });
    engine.events.on('changed', (c) => {
      if (c.what !== 'index' || !opened.lagging) return;
      opened.catchUpNow();
      void opened.caughtUp().then(() => releaseMemory());
    });
  }
  return engine;
}
