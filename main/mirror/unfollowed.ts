/**
 * The ids the mirror store applied that the disk has not followed yet (table
 * `mirror_unfollowed`, store migration v4). The store adds each changed id inside its
 * apply's transaction; the local side clears a slice once its placeholders follow it. So a
 * stop or a crash between the two (kill -9 in a re-walk) re-plans just these ids, not every
 * object. A bulk fill (a first walk) writes no ids: the store's `fillGen` says so instead.
 */
import type { Db } from '../state/db.js';

export class UnfollowedIds {
  private readonly q;
  /** Rows in the table: counted on first use, then kept (a first walk settles a million ids never written here). */
  private rows: number | undefined;

  constructor(private readonly db: Db) {
    this.q = {
      add: db.prepare('INSERT OR IGNORE INTO mirror_unfollowed (id) VALUES (?)'),
      del: db.prepare('DELETE FROM mirror_unfollowed WHERE id = ?'),
      all: db.prepare<[], string>('SELECT id FROM mirror_unfollowed').pluck(true),
      count: db.prepare<[], number>('SELECT count(*) FROM mirror_unfollowed').pluck(true),
    };
  }

  /** Called inside the store's apply transaction. */
  add(id: string): void {
    const n = this.q.add.run(id).changes;
    if (this.rows !== undefined) this.rows += n;
  }

  ids(): string[] {
    return this.q.all.all();
  }

  /** The disk followed these ids (or, with 'all', everything applied so far). */
  followed(ids: Iterable<string> | 'all'): void {
    if ((this.rows ??= this.q.count.get()!) === 0) return;
    if (ids === 'all') {
      this.db.exec('DELETE FROM mirror_unfollowed');
      this.rows = 0;
      return;
    }
    this.db.transaction(() => {
      for (const id of ids) this.rows! -= this.q.del.run(id).changes;
    })();
  }
}
