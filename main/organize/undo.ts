/**
 * Organize, step 3 of plan -> apply -> UNDO: the batch's ONE activity entry is undoable once
 * every change of it is settled and at least one was applied; undoing sends the inverse
 * patch of each applied change (last first), guarded by If-Match like any other, as one
 * new activity entry. Conflicted changes were never applied: nothing to revert for them.
 */
import { AppError } from '../../app/errors.js';
import { inverseOf } from '../../app/model/intent.js';
import type { ActivityRow } from '../local/local-store.js';
import { pathOrId } from '../local/model.js';
import type { NewEntry } from '../outbox/outbox-store.js';
import type { Db } from '../state/db.js';
import type { OrganizePort } from './port.js';
import { OrganizeStore } from './batch-store.js';

export function batchUndoable(db: Db, a: Pick<ActivityRow, 'seq' | 'undone'>): boolean {
  if (a.undone) return false;
  const store = new OrganizeStore(db);
  const b = store.byActivity(a.seq);
  if (!b || b.state !== 'applied') return false;
  const p = store.progress(b.id);
  return (p['pending'] ?? 0) === 0 && (p['sending'] ?? 0) === 0 && (p['done'] ?? 0) > 0;
}

/** Caller holds the engine's lock. Returns how many inverse patches were queued. */
export function undoBatch(core: OrganizePort, a: ActivityRow): number {
  const store = new OrganizeStore(core.db);
  const b = store.byActivity(a.seq);
  if (!b) throw new AppError('BadRequest', `activity ${a.seq} is not an organize batch`);
  if (a.undone || b.state === 'undone') throw new AppError('BadRequest', `activity ${a.seq} was already undone`);
  if (!batchUndoable(core.db, a))
    throw new AppError('BadRequest', 'this batch is still being sent, or none of it was applied: nothing to undo yet');
  const entries: NewEntry[] = [];
  for (const it of store.items(b.id).reverse()) {
    const ent = it.outboxSeq !== null ? core.outbox.get(it.outboxSeq) : undefined;
    const e = core.model.get(it.objectId);
    if (!ent || ent.state !== 'done' || !e || e.state !== 'ok') continue;
    if (ent.intent.op !== 'patch') continue;
    entries.push({
      intent: inverseOf(ent.intent, { name: e.rname, parentID: e.rparent }),
      origin: 'organize-undo',
      path: pathOrId(core.model, e.id),
      reason: `undo of organize batch ${b.id}`,
    });
  }
  core.db.transaction(() => {
    const seqs = core.outbox.enqueue(entries);
    store.setState(b.id, 'undone');
    core.local.markUndone(a.seq);
    core.activity({
      kind: 'undo',
      path: '',
      summary:
        `undo of ${a.summary.replace(/ \(queued .*$/, '')}: ${entries.length} inverse patch${entries.length === 1 ? '' : 'es'} queued` +
        (seqs.length ? ` (#${seqs[0]}..#${seqs[seqs.length - 1]})` : ''),
      reason: 'you asked to undo the batch; each inverse patch carries If-Match like any other',
    });
  })();
  return entries.length;
}
