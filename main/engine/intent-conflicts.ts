/**
 * A change the NAS did not take (a conflict of an intent: rename, move, delete, or a move it
 * cannot take): the user re-applies it (queued again over the NAS version, one transaction;
 * a delete takes its placeholders off the disk first) or drops it (the NAS version stays).
 * A file changed on both sides takes other choices (content-conflicts.ts); `misfit` says so.
 */
import type { ConflictRow } from '../local/local-store.js';
import type { LocalEntry } from '../local/model.js';
import { absOf, removeTree, type WriteReport } from '../local/placeholders.js';
import type { Core } from './core.js';

/** Why a choice does not fit conflict `k`, in words (the window never sends one; the command line may). */
export function misfit(k: ConflictRow): string {
  return k.kind === 'content'
    ? 'this file was changed here and on the NAS: choose keep-mine, keep-nas or keep-both'
    : 'this is a change the NAS did not take: choose reapply or drop';
}

/** Drops a conflict: the NAS version stays. Why it cannot be, or undefined when done. */
export function dropConflict(c: Core, k: ConflictRow): string | undefined {
  if (k.op.op === 'content') return misfit(k);
  c.local.removeConflict(k.seq);
  c.activity({
    kind: 'dropped',
    path: k.path,
    summary: `dropped: ${k.intent}`,
    reason: 'you dropped a conflict; the NAS version stays',
  });
  return undefined;
}

/**
 * Re-applies a conflict's change over the NAS version: queued again in one transaction (a
 * delete takes its placeholders off the disk first). Why it cannot be, or undefined when done.
 */
export function reapplyConflict(c: Core, k: ConflictRow): string | undefined {
  const op = k.op;
  const e = c.model.get(k.objectId);
  if (op.op === 'unsendable') return 'this change cannot be sent to the NAS';
  if (op.op === 'content') return misfit(k);
  if (!e || e.state !== 'ok') return 'the object is no longer on the NAS';
  if (op.op === 'patch' && op.parentID !== undefined && !c.model.get(op.parentID)) return 'the target folder is no longer on the NAS';
  c.db.transaction(() => {
    if (op.op === 'delete') {
      removePlaceholders(c, e);
      c.model.update(e.id, { state: 'deleting' });
    }
    const [seq] = c.outbox.enqueue([
      {
        intent: { ...op, id: e.id, fromName: e.rname, fromParent: e.rparent },
        origin: 'reapply',
        path: k.path,
        reason: 'conflict re-applied by you',
      },
    ]);
    c.local.removeConflict(k.seq);
    c.local.flush(c.model);
    c.activity({
      kind: 'reapplied',
      path: k.path,
      summary: `re-applied: ${k.intent} (queued #${seq})`,
      reason: 'you chose to re-apply your change over the NAS version',
    });
  })();
  return undefined;
}

/** Takes an entry's placeholders off the disk (empty ones deleted, anything else kept local only). */
function removePlaceholders(c: Core, e: LocalEntry): void {
  const abs = e.ino ? absOf(c.root, c.model, e.id, undefined, c.disk) : undefined;
  const known = new Map<string, string>();
  for (const d of [e.id, ...c.model.descendants(e.id)]) {
    const x = c.model.get(d);
    if (x?.ino) known.set(x.ino, x.kind);
  }
  const rep: WriteReport = {
    created: 0,
    moved: 0,
    removed: 0,
    keptLocal: [],
    failed: [],
    touchedDirs: new Set(),
    reread: new Set(),
    tombstones: [],
  };
  if (abs) removeTree(c.root, abs, known, rep, c.disk);
  for (const kl of rep.keptLocal) c.local.addLocalOnly({ path: kl.to }, 'moved', kl.reason);
}
