/**
 * Where file content lives (content.md, Storage): `DIR/content/` next to the database.
 * A version is written to a temporary file in `.partial/`, flushed, then renamed into place
 * and only then named by its object's row, so a crash never makes a half-written version
 * readable. At start, unfinished uploads are reconciled with their files (a version renamed
 * into place but not yet recorded is recorded) and files no row names are removed.
 */
import {
  closeSync,
  createReadStream,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { copyFile, mkdir, open, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { AppError } from '../../app/errors.js';
import { generatedStream } from '../demo/content.js';
import type { Logger } from '../log.js';
import type { ObjectRow } from '../store/object-row.js';
import type { Store } from '../store/store.js';
import { blobPath, contentRoot, newStem, PARTIAL_DIR, partPath, type UploadRow } from '../store/uploads.js';
import { commitUploadRow, progressRow } from './upload-rows.js';

/** Files younger than this are never swept: an `import` in another process may be placing them. */
const SWEEP_MIN_AGE_MS = 10 * 60_000;

/** Flushes a folder's entries (a rename) to disk. */
function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // some file systems refuse fsync on a folder; the rename is then as durable as they make it
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export class ContentStore {
  readonly root: string;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
  ) {
    this.root = contentRoot(store.db);
  }

  partPath(stem: string): string {
    return partPath(this.root, stem);
  }

  /**
   * The bytes [start, end) of a complete file: its stored content, or generated from id and
   * size. The file is opened at once, synchronously, in the same turn as the caller read the
   * row, so a version completed meanwhile cannot unlink it first; a version replaced while it
   * is read stays readable through the open descriptor. A missing file is a 500, not a cut body.
   */
  read(r: ObjectRow, start: number, end: number): Readable {
    if (r.content === null) return generatedStream(r.id, start, end);
    let fd: number;
    try {
      fd = openSync(blobPath(this.root, r.content), 'r');
    } catch (e) {
      throw new AppError('Internal', 'the stored content of this file is missing', { status: 500, cause: e });
    }
    if (end <= start) {
      closeSync(fd);
      return Readable.from([]);
    }
    return createReadStream('', { fd, start, end: end - 1, highWaterMark: 64 * 1024 });
  }

  /** Moves a complete temporary file into place (flushed first, then renamed, then the folder flushed). */
  async install(stem: string): Promise<number> {
    const part = this.partPath(stem);
    const fh = await open(part, 'a');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    const dest = blobPath(this.root, stem);
    await mkdir(dirname(dest), { recursive: true });
    await rename(part, dest);
    fsyncDir(dirname(dest));
    return statSync(dest).size;
  }

  /** Copies a local file into the store (import): returns the new stem and the size copied. */
  async copyIn(path: string): Promise<{ stem: string; size: number }> {
    const stem = newStem();
    await mkdir(join(this.root, PARTIAL_DIR), { recursive: true });
    await copyFile(path, this.partPath(stem));
    return { stem, size: await this.install(stem) };
  }

  /** Stores bytes as a new content file (tests, admin), the same way: flushed, then renamed. Returns its stem. */
  storeBytes(data: Uint8Array): string {
    const stem = newStem();
    mkdirSync(join(this.root, PARTIAL_DIR), { recursive: true });
    const part = this.partPath(stem);
    const fd = openSync(part, 'w');
    try {
      writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const dest = blobPath(this.root, stem);
    mkdirSync(dirname(dest), { recursive: true });
    renameSync(part, dest);
    fsyncDir(dirname(dest));
    return stem;
  }

  /** Unlinks a stored content file that no row names any more. */
  forget(stem: string | null | undefined): void {
    if (stem) rmSync(blobPath(this.root, stem), { force: true });
  }

  /** Creates the folders, reconciles unfinished uploads with their files, removes orphans. */
  recover(): void {
    mkdirSync(join(this.root, PARTIAL_DIR), { recursive: true });
    const uploads = this.store.db.prepare('SELECT row, file, received, touched, mtime FROM uploads').all() as UploadRow[];
    for (const u of uploads) this.reconcile(u);
    this.sweep(new Set(uploads.map((u) => u.file)));
  }

  private reconcile(u: UploadRow): void {
    const part = this.partPath(u.file);
    const blob = blobPath(this.root, u.file);
    if (!existsSync(part) && existsSync(blob)) {
      // renamed into place, then the service stopped before recording it: the version is whole
      this.forget(commitUploadRow(this.store, u, statSync(blob).size));
      this.log.info('upload completed at start', { row: u.row });
      return;
    }
    const actual = existsSync(part) ? statSync(part).size : 0;
    if (actual > u.received) truncateSync(part, u.received);
    if (actual < u.received) progressRow(this.store, u.row, actual);
  }

  private sweep(uploadFiles: ReadonlySet<string>): void {
    const old = (p: string): boolean => Date.now() - statSync(p).mtimeMs > SWEEP_MIN_AGE_MS;
    const partials = join(this.root, PARTIAL_DIR);
    for (const f of readdirSync(partials)) {
      const p = join(partials, f);
      if (!uploadFiles.has(f.replace(/\.part$/, '')) && old(p)) rmSync(p, { force: true });
    }
    const named = this.store.db.prepare('SELECT 1 FROM objects WHERE content = ?').pluck();
    for (const shard of readdirSync(this.root)) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const f of readdirSync(join(this.root, shard))) {
        const p = join(this.root, shard, f);
        if (named.get(f) === undefined && !uploadFiles.has(f) && old(p)) rmSync(p, { force: true });
      }
    }
  }
}
