/**
 * Makes finished downloads durable (fsync) off the engine's thread, many at once: a batch of
 * files goes in ONE message to a worker thread of its own that opens, fsyncs and closes each in
 * turn; a single file goes through the thread pool. A Keep of 10,000 small files handed each
 * fsync to the thread pool on its own: 10,000 wake-ups of a pool thread, which on a busy
 * machine took the engine's thread away each time (a fifth of that Keep's time). A file is
 * durable once `sync` resolved without a failure for it; the worker holds no descriptor of
 * the caller's (it opens the file by its path: fsync applies to the file, whichever
 * descriptor). When the worker cannot start, every file goes through the thread pool.
 */
import { close, fsync, open } from 'node:fs';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { ignore } from '../../app/util/ignore.js';

const openAsync = promisify(open);
const fsyncAsync = promisify(fsync);
const closeAsync = promisify(close);

/** The worker: plain CommonJS, evaluated (no file to find in a bundle, nothing imported but node's). */
const WORKER = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
parentPort.on('message', ({ id, paths }) => {
  const failed = [];
  for (const p of paths) {
    let fd;
    try {
      fd = fs.openSync(p, 'r');
      fs.fsyncSync(fd);
    } catch (e) {
      failed.push([p, String((e && e.code) || e)]);
    } finally {
      if (fd !== undefined) try { fs.closeSync(fd); } catch {}
    }
  }
  parentPort.postMessage({ id, failed });
});
`;

/** Why a file could not be made durable: its errno (or the worker's end), by path. */
export type SyncFailures = Map<string, string>;

export class FileSyncer {
  /** undefined: not started yet; null: it could not start (or died): the thread pool does every file. */
  private worker: Worker | null | undefined;
  private seq = 0;
  private readonly waiting = new Map<number, { paths: readonly string[]; resolve: (failed: SyncFailures) => void }>();

  /** fsyncs every file; resolves with those that failed (empty: all durable). */
  async sync(paths: readonly string[]): Promise<SyncFailures> {
    if (paths.length === 0) return new Map();
    const w = paths.length > 1 ? this.start() : null;
    if (w === null) return this.inPool(paths);
    const id = ++this.seq;
    return new Promise<SyncFailures>((resolve) => {
      this.waiting.set(id, { paths, resolve });
      w.postMessage({ id, paths });
    });
  }

  /** Stops the worker (its batches in flight fail: nothing of theirs is renamed). */
  close(): void {
    const w = this.worker;
    this.worker = null;
    if (w) void w.terminate();
    this.fail('the engine stopped');
  }

  private start(): Worker | null {
    if (this.worker !== undefined) return this.worker;
    try {
      const w = new Worker(WORKER, { eval: true });
      w.unref();
      w.on('message', (m: { id: number; failed: [string, string][] }) => {
        const batch = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        batch?.resolve(new Map(m.failed));
      });
      const gone = (): void => {
        if (this.worker === w) this.worker = null;
        this.fail('the sync worker stopped');
      };
      w.on('error', gone);
      w.on('exit', gone);
      this.worker = w;
    } catch {
      this.worker = null;
    }
    return this.worker;
  }

  /** Every batch still waiting fails (its files are not known durable). */
  private fail(why: string): void {
    for (const [id, { paths, resolve }] of this.waiting) {
      this.waiting.delete(id);
      resolve(new Map(paths.map((p) => [p, why])));
    }
  }

  private async inPool(paths: readonly string[]): Promise<SyncFailures> {
    const failed: SyncFailures = new Map();
    await Promise.all(
      paths.map(async (p) => {
        let fd: number | undefined;
        try {
          fd = await openAsync(p, 'r');
          await fsyncAsync(fd);
        } catch (e) {
          failed.set(p, (e as NodeJS.ErrnoException).code ?? String(e));
        } finally {
          if (fd !== undefined)
            await closeAsync(fd).catch(ignore('the file is durable or said failed already; a failed close loses nothing'));
        }
      }),
    );
    return failed;
  }
}
