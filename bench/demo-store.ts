/**
 * A mirror store (and its offline index) filled with the demo library without a walk: the
 * generated objects are written as the service would send them. For benchmarks of what reads
 * the mirror (search filters, the storage view); walks have their own benchmark.
 */
import { formatDate } from '../app/model/dates.js';
import { FOLDER_MIME, type RemoteObject } from '../app/model/remote-object.js';
import { openOfflineIndex, type OpenedIndex } from '../main/index/open-index.js';
import type { RemoteChange } from '../main/mirror/changes.js';
import { MirrorStore } from '../main/mirror/store.js';
import { openStateDb, type Db } from '../main/state/db.js';
import { generateDemo } from '../server/demo/generate.js';

export async function demoStore(dir: string, objects: number): Promise<{ db: Db; store: MirrorStore; opened: OpenedIndex }> {
  const db = openStateDb(dir);
  const store = new MirrorStore(db);
  fillDemoMirror(store, objects);
  const opened = await openOfflineIndex(store, dir);
  return { db, store, opened };
}

/** Writes the demo library's `objects` objects into an empty mirror store (no index). */
export function fillDemoMirror(store: MirrorStore, objects: number): void {
  const rootId = 'bench-root';
  const t = formatDate(Date.UTC(2020, 0, 1));
  store.setRoot({ id: rootId, parentID: '', eTag: 'r', mimeType: FOLDER_MIME, name: 'root', mTime: t, cTime: t, hidden: 'none' });
  const ids: string[] = [];
  let batch: RemoteChange[] = [];
  store.beginBulkFill();
  for (const o of generateDemo({ objects, seed: 1 })) {
    ids[o.key] = o.id;
    const r: RemoteObject = {
      id: o.id,
      parentID: o.parentKey < 0 ? rootId : ids[o.parentKey]!,
      eTag: `e${o.key}`,
      mimeType: o.dir ? FOLDER_MIME : o.mime,
      name: o.name,
      mTime: formatDate(o.mtime),
      cTime: formatDate(o.ctime),
      hidden: o.hidden,
      ...(o.dir ? {} : { size: o.size }),
      ...(o.image ? { image: o.image } : {}),
    };
    batch.push({ kind: 'added', after: r });
    if (batch.length === 20_000) {
      store.apply(batch);
      batch = [];
    }
  }
  store.apply(batch);
  store.endBulkFill();
}
