/**
 * The background removal of folders deleted with 202. A job is a row of `delete_jobs`
 * naming a folder marked `deleting`; the subtree is already invisible to every read. Rows
 * are removed children-before-parents in small transactions, so after a crash the rest
 * still hangs below the job's folder and the job simply resumes at the next start. Content
 * files of removed rows are unlinked after each commit (a crash in between leaves orphans
 * that the content store's start-up sweep removes).
 */
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { releaseContent, unlinkAll } from '../store/uploads.js';

const BATCH = 2000;

export class DeleteJobs {
  private running = false;
  private stopped = false;
  private idle: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
  ) {}

  /** Starts (or wakes) the runner; it stops by itself when no job is left. */
  kick(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.idle = this.run().finally(() => {
      this.running = false;
    });
  }

  /** Stops after the current batch; resolves when the runner is idle. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle;
  }

  /** Resolves when no job is left (tests wait on it). */
  async drain(): Promise<void> {
    for (;;) {
      await this.idle;
      if (this.pending() === 0 || this.stopped) return;
      this.kick();
    }
  }

  pending(): number {
    return (this.store.db.prepare('SELECT count(*) AS n FROM delete_jobs').get() as { n: number }).n;
  }

  private async run(): Promise<void> {
    const db = this.store.db;
    while (!this.stopped) {
      const job = db.prepare('SELECT row FROM delete_jobs ORDER BY created LIMIT 1').get() as { row: number } | undefined;
      if (!job) return;
      // Collect the subtree breadth-first; reversed, every row comes after its descendants.
      const order: number[] = [];
      const kids = db.prepare('SELECT row, dir FROM objects WHERE parent = ?');
      const queue = [job.row];
      for (let i = 0; i < queue.length; i++) {
        for (const k of kids.all(queue[i]!) as { row: number; dir: number }[]) {
          order.push(k.row);
          if (k.dir === 1) queue.push(k.row);
        }
      }
      order.reverse();
      const del = db.prepare('DELETE FROM objects WHERE row = ?');
      const delGrants = db.prepare('DELETE FROM grants WHERE row = ?');
      const delJob = db.prepare('DELETE FROM delete_jobs WHERE row = ?');
      for (let i = 0; i < order.length && !this.stopped; i += BATCH) {
        const batch = order.slice(i, i + BATCH);
        const files: string[] = [];
        db.transaction(() => {
          for (const r of batch) {
            files.push(...releaseContent(db, r));
            del.run(r);
            delGrants.run(r);
            delJob.run(r);
          }
        }).immediate();
        for (const r of batch) this.store.index.remove(r);
        unlinkAll(files);
        await new Promise((res) => setImmediate(res));
      }
      if (this.stopped) return;
      db.transaction(() => {
        del.run(job.row);
        delGrants.run(job.row);
        delJob.run(job.row);
      }).immediate();
      this.store.index.remove(job.row);
      this.log.info('folder removed', { rows: order.length + 1 });
    }
  }
}
