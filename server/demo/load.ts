/**
 * Loads a generated demo library into a user's (empty) root in large transactions, then
 * sets folder child counts and reloads the in-memory index. 1M objects take seconds.
 */
import { AppError } from '../../app/errors.js';
import { LISTING_INDEXES } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { addUser, userByName } from '../store/users.js';
import { generateDemo } from './generate.js';

const TX_ROWS = 50_000;

/**
 * Fills `userName`'s root (created when missing) with the demo library. Returns the count.
 * `reindex: false` skips rebuilding the in-memory index (a command line that exits next).
 */
export function loadDemo(store: Store, userName: string, opts: { objects: number; seed: number; reindex?: boolean }): number {
  const db = store.db;
  const user = userByName(store, userName) ?? addUser(store, userName);
  const busy = db.prepare('SELECT 1 FROM objects WHERE parent = ? LIMIT 1').get(user.root);
  if (busy) throw new AppError('BadConfig', `the library of "${userName}" is not empty; use a new data folder or another --user`);
  // Bulk load: listing indexes are dropped and built once at the end (openServiceDb re-creates
  // them if this is killed half-way); synchronous=OFF is safe against a killed process.
  db.pragma('synchronous = OFF');
  db.transaction(() => {
    for (const name of ['objects_parent_mtime', 'objects_parent_ctime', 'objects_parent_size']) db.exec(`DROP INDEX IF EXISTS ${name}`);
  }).immediate();
  const insert = db.prepare(`INSERT INTO objects (id, parent, name, dir, mime, size, mtime, ctime, hidden, image)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const rows: number[] = [];
  const counts = new Map<number, number>();
  counts.set(-1, 0);
  const gen = generateDemo(opts);
  let n = 0;
  let done = false;
  while (!done) {
    db.transaction(() => {
      for (let i = 0; i < TX_ROWS; i++) {
        const it = gen.next();
        if (it.done) {
          done = true;
          return;
        }
        const o = it.value;
        const parent = o.parentKey < 0 ? user.root : rows[o.parentKey]!;
        const res = insert.run(
          o.id,
          parent,
          o.name,
          o.dir ? 1 : 0,
          o.mime,
          o.size,
          o.mtime,
          o.ctime,
          o.hidden,
          o.image ? JSON.stringify(o.image) : null,
        );
        rows.push(Number(res.lastInsertRowid));
        if (o.dir) counts.set(o.key, 0);
        counts.set(o.parentKey, (counts.get(o.parentKey) ?? 0) + 1);
        n++;
      }
    }).immediate();
  }
  const setCount = db.prepare('UPDATE objects SET child_count = ?, version = version + ? WHERE row = ?');
  db.transaction(() => {
    for (const [k, c] of counts) {
      if (c === 0) continue;
      setCount.run(c, k < 0 ? 1 : 0, k < 0 ? user.root : rows[k]!);
    }
    for (const sql of LISTING_INDEXES) db.exec(sql);
  }).immediate();
  db.pragma('synchronous = NORMAL');
  if (opts.reindex !== false) store.index.load(db);
  return n;
}
