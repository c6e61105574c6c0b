/**
 * Organize, step 2 of plan -> APPLY -> undo: the plan's `ok` changes go into the outbox as
 * ordinary patches (origin `organize`): If-Match with the eTag the user saw, 412/409 become
 * conflicts, a crash mid-send is checked on the NAS before resending (exactly once), and the
 * disk follows the NAS. The whole batch is ONE activity entry, the one Undo reverts.
 * Runs under the engine's lock; an object that changed since the plan is skipped, not sent.
 */
import type { OrganizeOutcome, OrganizePlan } from '../../app/contract/organize-shapes.js';
import { AppError } from '../../app/errors.js';
import type { OfflineIndex } from '../index/offline-index.js';
import { pathOrId } from '../local/model.js';
import type { NewEntry } from '../outbox/outbox-store.js';
import type { OrganizePort } from './port.js';
import { OrganizeStore, type BatchItem } from './batch-store.js';

/** The plan's changes to send, with what each object was when planned. */
export function itemsOf(index: OfflineIndex, plan: OrganizePlan): BatchItem[] {
  const ok = plan.items.filter((i) => i.status === 'ok');
  const objects = index.store.getMany(ok.map((i) => i.id));
  return ok.flatMap((i) => {
    const o = objects.get(i.id);
    return o
      ? [{ objectId: i.id, name: i.name, parentId: i.parentId, fromName: o.name, fromParent: o.parentID, path: i.from, outboxSeq: null }]
      : [];
  });
}

const describe = (b: { rename: string | null; move: string | null }): string =>
  [b.rename ? `rename ${JSON.stringify(b.rename)}` : '', b.move ? `move into ${JSON.stringify(b.move)}` : ''].filter(Boolean).join(', ');

/**
 * Enqueues a batch (caller holds the engine's lock). `batchId`: a batch planned by the command
 * line; else a new one is recorded.
 */
export function enqueueBatch(
  core: OrganizePort,
  meta: { q: string; rename: string | null; move: string | null },
  items: readonly BatchItem[],
  batchId?: number,
): OrganizeOutcome {
  const store = new OrganizeStore(core.db);
  const pending = core.outbox.pendingIds();
  const skipped: OrganizeOutcome['skipped'] = [];
  const send: BatchItem[] = [];
  for (const it of items) {
    const e = core.model.get(it.objectId);
    if (!e || e.state !== 'ok') {
      skipped.push({ id: it.objectId, message: `${it.path}: no longer mirrored` });
      continue;
    }
    if (pending.has(it.objectId)) {
      skipped.push({ id: it.objectId, message: `${it.path}: a change of yours to it is still being sent` });
      continue;
    }
    if (e.rname !== it.fromName || e.rparent !== it.fromParent) {
      skipped.push({ id: it.objectId, message: `${it.path}: renamed or moved since the preview` });
      continue;
    }
    if (it.parentId !== null && it.parentId !== core.model.rootId && !core.model.get(it.parentId)) {
      skipped.push({ id: it.objectId, message: `${it.path}: the target folder is no longer mirrored` });
      continue;
    }
    send.push(it);
  }
  if (send.length === 0) {
    if (batchId !== undefined) store.setState(batchId, 'undone');
    return { activityId: null, queued: 0, skipped };
  }
  return core.db.transaction((): OrganizeOutcome => {
    const entries: NewEntry[] = send.map((it) => ({
      intent: {
        op: 'patch',
        id: it.objectId,
        fromName: it.fromName,
        fromParent: it.fromParent,
        ...(it.name !== null ? { name: it.name } : {}),
        ...(it.parentId !== null ? { parentID: it.parentId } : {}),
      },
      origin: 'organize',
      path: pathOrId(core.model, it.objectId),
      reason: `organize: ${describe(meta)}`,
    }));
    const seqs = core.outbox.enqueue(entries);
    const withSeqs = send.map((it, i) => ({ ...it, outboxSeq: seqs[i]! }));
    const id = batchId ?? store.create({ state: 'planned', ...meta }, []);
    core.activity({
      kind: 'organized',
      path: '',
      outboxSeq: seqs[0]!,
      summary:
        `organized ${send.length} object${send.length === 1 ? '' : 's'}: ${describe(meta)} ` +
        `(queued #${seqs[0]}..#${seqs[seqs.length - 1]})${skipped.length ? `; ${skipped.length} skipped` : ''}`,
      reason:
        `you applied an Organize plan for ${JSON.stringify(meta.q)}; ` +
        'each change carries If-Match like any other; one Undo reverts the batch',
    });
    const activitySeq = core.local.activity(1)[0]!.seq;
    store.setApplied(id, activitySeq, withSeqs);
    return { activityId: String(activitySeq), queued: send.length, skipped };
  })();
}

/** A batch planned by `nas-mirror organize` (without --dry-run), carried out by the running engine. */
export function applySaved(core: OrganizePort, batchId: number): OrganizeOutcome {
  const store = new OrganizeStore(core.db);
  const b = store.get(batchId);
  if (!b || b.state !== 'planned') throw new AppError('BadRequest', `organize batch ${batchId} is not waiting to be applied`);
  return enqueueBatch(core, { q: b.q, rename: b.rename, move: b.move }, store.items(batchId), batchId);
}
