/**
 * The `uploads` table (schema v3) and where content files live. One row per unfinished
 * upload, keyed by the object's row; `file` is the random stem of its temporary file, which
 * becomes the stored content's name when the upload completes. Stored content lives in
 * `DIR/content/<first two hex digits>/<stem>`, temporary files in `DIR/content/.partial/`.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Db } from './schema.js';

export interface UploadRow {
  row: number;
  file: string;
  received: number;
  touched: number;
  /** mTime to set when the upload completes (a new version's metadata part), or null. */
  mtime: number | null;
}

/** The content folder of the data folder that holds `db`. */
export const contentRoot = (db: Db): string => join(dirname(db.name), 'content');
export const PARTIAL_DIR = '.partial';

/** A new random file stem (hex, so the shard folder is two hex digits). */
export const newStem = (): string => randomBytes(12).toString('hex');
export const blobPath = (root: string, stem: string): string => join(root, stem.slice(0, 2), stem);
export const partPath = (root: string, stem: string): string => join(root, PARTIAL_DIR, `${stem}.part`);

export function uploadOf(db: Db, row: number): UploadRow | undefined {
  return db.prepare('SELECT row, file, received, touched, mtime FROM uploads WHERE row = ?').get(row) as UploadRow | undefined;
}

/**
 * Inside the transaction that removes object `row`: forgets its upload and returns the
 * paths of the files it leaves behind, to unlink once the transaction committed.
 */
export function releaseContent(db: Db, row: number): string[] {
  const root = contentRoot(db);
  const out: string[] = [];
  const c = db.prepare('SELECT content FROM objects WHERE row = ?').pluck().get(row) as string | null | undefined;
  if (c) out.push(blobPath(root, c));
  const u = uploadOf(db, row);
  if (u) {
    out.push(partPath(root, u.file));
    db.prepare('DELETE FROM uploads WHERE row = ?').run(row);
  }
  return out;
}

/** Removes files whose rows are gone (missing files are fine: a crash may have taken them already). */
export function unlinkAll(paths: readonly string[]): void {
  for (const p of paths) rmSync(p, { force: true });
}
