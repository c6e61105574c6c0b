/** Consistency checks of a service data folder, run after crashes and fuzzing. */
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Returns a list of problems (empty when the store is consistent). */
export function checkStore(dataDir: string): string[] {
  const db = new Database(join(dataDir, 'service.db'), { readonly: true });
  try {
    const problems: string[] = [];
    const ic = db.pragma('integrity_check', { simple: true });
    if (ic !== 'ok') problems.push(`integrity_check: ${String(ic)}`);
    const orphans = (
      db
        .prepare('SELECT count(*) AS n FROM objects o WHERE o.parent <> 0 AND NOT EXISTS (SELECT 1 FROM objects p WHERE p.row = o.parent)')
        .get() as { n: number }
    ).n;
    if (orphans) problems.push(`${orphans} objects whose parent is missing`);
    const counts = db
      .prepare(
        `SELECT p.id, p.child_count AS stored, (SELECT count(*) FROM objects c WHERE c.parent = p.row AND c.deleting = 0) AS real
      FROM objects p WHERE p.dir = 1 AND p.deleting = 0`,
      )
      .all() as { id: string; stored: number; real: number }[];
    for (const c of counts) if (c.stored !== c.real) problems.push(`folder ${c.id}: childCount ${c.stored} but ${c.real} children`);
    const files = (
      db
        .prepare('SELECT count(*) AS n FROM objects p WHERE p.dir = 0 AND EXISTS (SELECT 1 FROM objects c WHERE c.parent = p.row)')
        .get() as { n: number }
    ).n;
    if (files) problems.push(`${files} files with children`);
    const dups = (
      db
        .prepare(
          'SELECT count(*) AS n FROM (SELECT parent, name FROM objects WHERE deleting = 0 GROUP BY parent, name HAVING count(*) > 1)',
        )
        .get() as { n: number }
    ).n;
    if (dups) problems.push(`${dups} duplicate sibling names`);
    const jobs = (
      db
        .prepare(
          'SELECT count(*) AS n FROM delete_jobs j WHERE NOT EXISTS (SELECT 1 FROM objects o WHERE o.row = j.row AND o.deleting = 1)',
        )
        .get() as { n: number }
    ).n;
    if (jobs) problems.push(`${jobs} delete jobs without a folder marked deleting`);
    problems.push(...checkContent(db, dataDir));
    return problems;
  } finally {
    db.close();
  }
}

/**
 * File content (schema v3): every upload belongs to an object, every unfinished new file has
 * its upload, every stored version its file of the recorded size.
 */
function checkContent(db: Database.Database, dataDir: string): string[] {
  const hasContent = db.prepare("SELECT 1 FROM pragma_table_info('objects') WHERE name = 'content'").get() !== undefined;
  if (!hasContent) return [];
  const problems: string[] = [];
  const count = (sql: string): number => (db.prepare(sql).get() as { n: number }).n;
  const lost = count('SELECT count(*) AS n FROM uploads u WHERE NOT EXISTS (SELECT 1 FROM objects o WHERE o.row = u.row)');
  if (lost) problems.push(`${lost} uploads without an object`);
  const stuck = count(`SELECT count(*) AS n FROM objects o
    WHERE o.partial = 1 AND NOT EXISTS (SELECT 1 FROM uploads u WHERE u.row = o.row)`);
  if (stuck) problems.push(`${stuck} unfinished files without an upload`);
  type Stored = { id: string; content: string; size: number };
  const stored = db.prepare('SELECT id, content, size FROM objects WHERE content IS NOT NULL').all() as Stored[];
  for (const r of stored) {
    const p = join(dataDir, 'content', r.content.slice(0, 2), r.content);
    const size = existsSync(p) ? statSync(p).size : undefined;
    if (size === undefined) problems.push(`object ${r.id}: its content file is missing`);
    else if (size !== r.size) problems.push(`object ${r.id}: size ${r.size} but its content file has ${size} bytes`);
  }
  return problems;
}
