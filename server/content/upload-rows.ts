/**
 * The database side of uploads: each state change of an upload is one transaction, and the
 * in-memory index learns it after the commit. A new file's size follows the bytes received
 * (its eTag moves with it: the listed size changed); a new version of an existing file
 * changes nothing visible until it completes, when content, size and eTag move together.
 */
import type { Store } from '../store/store.js';
import { uploadOf, type UploadRow } from '../store/uploads.js';

function refresh(store: Store, row: number): void {
  const r = store.get(row);
  if (r) store.indexRow(r);
}

/**
 * Starts (or restarts from zero) the upload of `row` with temporary file `file`. Returns the
 * stem of a replaced upload's temporary file, to unlink.
 */
export function beginUploadRow(store: Store, row: number, file: string, mtime: number | null): string | undefined {
  const db = store.db;
  const old = db
    .transaction(() => {
      const prev = uploadOf(db, row);
      db.prepare('INSERT OR REPLACE INTO uploads (row, file, received, touched, mtime) VALUES (?, ?, 0, ?, ?)').run(
        row,
        file,
        Date.now(),
        mtime,
      );
      db.prepare('UPDATE objects SET size = 0, version = version + 1 WHERE row = ? AND partial = 1 AND size <> 0').run(row);
      return prev?.file;
    })
    .immediate();
  refresh(store, row);
  return old;
}

/** Records the bytes received so far (and that the upload was touched now). */
export function progressRow(store: Store, row: number, received: number): void {
  const db = store.db;
  db.transaction(() => {
    db.prepare('UPDATE uploads SET received = ?, touched = ? WHERE row = ?').run(received, Date.now(), row);
    db.prepare('UPDATE objects SET size = ?, version = version + 1 WHERE row = ? AND partial = 1 AND size <> ?').run(
      received,
      row,
      received,
    );
  }).immediate();
  refresh(store, row);
}

/**
 * Completes the upload of `row`: its content is now the stored file `stem` of `size` bytes,
 * the eTag moves, the upload row goes. Returns the stem of the content it replaced, to unlink.
 */
export function commitUploadRow(store: Store, up: UploadRow, size: number): string | null {
  const db = store.db;
  const old = db
    .transaction(() => {
      const prev = db.prepare('SELECT content FROM objects WHERE row = ?').pluck().get(up.row) as string | null | undefined;
      db.prepare(
        'UPDATE objects SET content = ?, size = ?, partial = 0, mtime = coalesce(?, mtime), version = version + 1 WHERE row = ?',
      ).run(up.file, size, up.mtime, up.row);
      db.prepare('DELETE FROM uploads WHERE row = ?').run(up.row);
      return prev ?? null;
    })
    .immediate();
  refresh(store, up.row);
  return old;
}

/** Forgets the upload of an existing file (the stored content stays as it was). */
export function dropUploadRow(store: Store, row: number): void {
  store.db.prepare('DELETE FROM uploads WHERE row = ?').run(row);
}
