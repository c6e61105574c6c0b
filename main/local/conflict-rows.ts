/**
 * The conflicts table's intent column (`local_conflicts.op`): written as the one intent
 * union (app/model/intent.ts), parsed back with its schema. Migration v3 of component
 * `local` rewrites rows of earlier versions (`{op, name, parentId}` with nulls, or
 * `{unsendable: true}`) into it, so old conflicts still load and can be re-applied.
 */
import { AppError } from '../../app/errors.js';
import { conflictIntentSchema, type ConflictIntent, type ContentConflict } from '../../app/model/intent.js';
import { formatSize } from '../../app/util/human.js';
import type { Db } from '../state/db.js';

/** The intent kept with conflict `seq`; StateCorrupt when the row is not one. */
export function conflictIntentOf(seq: number, json: string): ConflictIntent {
  try {
    return conflictIntentSchema.parse(JSON.parse(json) as unknown, 'op');
  } catch (e) {
    throw new AppError('StateCorrupt', `conflict #${seq} does not hold a valid intent: ${e instanceof Error ? e.message : String(e)}`, {
      cause: e,
    });
  }
}

/**
 * The row of a new content conflict (a file changed here and on the NAS): the file at `path`
 * holds the NAS's version, the user's is beside it as `rec.copyName`. Words without protocol.
 */
export function contentConflictRow(
  path: string,
  rec: ContentConflict,
): { objectId: string; path: string; intent: string; remote: string; reason: string; op: ContentConflict } {
  return {
    objectId: rec.id,
    path,
    intent: `your version, kept beside it as ${JSON.stringify(rec.copyName)}`,
    remote: contentConflictRemote(rec.nas),
    reason: 'the NAS changed this file while you changed it here: both are kept, nothing of either is lost',
    op: rec,
  };
}

/** A content conflict's NAS version in words (the `remote` column). */
export const contentConflictRemote = (nas: ContentConflict['nas']): string => `the NAS's version, ${formatSize(nas.size)}`;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** An earlier version's `op` JSON as an intent (the object's last-known NAS place fills `from`). */
export function legacyIntent(
  old: Record<string, unknown>,
  id: string,
  path: string,
  from: { rname: string; rparent: string } | undefined,
): ConflictIntent {
  const fromName = from?.rname ?? '';
  const fromParent = from?.rparent ?? '';
  if (
    old['unsendable'] === true ||
    (old['op'] !== 'patch' && old['op'] !== 'delete' && old['delete'] !== true && text(old['name']) === undefined)
  )
    return { op: 'unsendable', id, to: path };
  if (old['op'] === 'delete' || old['delete'] === true) return { op: 'delete', id, fromName, fromParent };
  const name = text(old['name']);
  const parentID = text(old['parentId']) ?? text(old['parentID']);
  return {
    op: 'patch',
    id,
    fromName,
    fromParent,
    ...(name !== undefined ? { name } : {}),
    ...(parentID !== undefined ? { parentID } : {}),
  };
}

/** Migration v3 of component `local`: every conflict's `op` becomes a ConflictIntent (kind follows it). */
export function migrateConflictIntents(db: Db): void {
  const rows = db.prepare('SELECT seq, object_id AS id, path, op FROM local_conflicts').all() as {
    seq: number;
    id: string;
    path: string;
    op: string;
  }[];
  const entry = db.prepare('SELECT rname, rparent FROM local_entries WHERE id = ?');
  const upd = db.prepare('UPDATE local_conflicts SET op = ?, kind = ? WHERE seq = ?');
  for (const r of rows) {
    let old: unknown;
    try {
      old = JSON.parse(r.op);
    } catch {
      old = {};
    }
    const rec = typeof old === 'object' && old !== null && !Array.isArray(old) ? (old as Record<string, unknown>) : {};
    const intent = legacyIntent(rec, r.id, r.path, entry.get(r.id) as { rname: string; rparent: string } | undefined);
    upd.run(JSON.stringify(intent), intent.op, r.seq);
  }
}
