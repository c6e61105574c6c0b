/**
 * Step 3 of the outbox (enqueue -> send -> SETTLE): records what the NAS answered, under
 * the engine's lock. Applied: the new eTag becomes what the user saw, the mirror store (and
 * through it the offline index) follows at once. Deleted: the object and what it held leave
 * the model and the store. Conflict: the NAS wins on disk (its version becomes the base, the
 * disk follows at the next reconcile), the local intent is kept in the conflicts list, and
 * later entries for the same object are superseded. Unsent (an error retrying cannot fix):
 * held the same way, but what the NAS holds is not known, so the base stays as it was.
 */
import { describeIntent, intentOf } from '../../app/model/intent.js';
import type { RemoteObject } from '../../app/model/remote-object.js';
import type { RemoteChange } from '../mirror/changes.js';
import { aspectsOf } from '../mirror/changes.js';
import type { ChangeApplier } from '../mirror/apply.js';
import type { MirrorStore } from '../mirror/store.js';
import type { ActivityInput, LocalStore } from '../local/local-store.js';
import { pathOrId, type LocalModel } from '../local/model.js';
import type { Db } from '../state/db.js';
import type { OutboxEntry, OutboxStore } from './outbox-store.js';
import type { SendOutcome } from './send.js';

/** What settling touches: the model, the stores (in one transaction) and the activity log. */
export interface SettlePort {
  readonly model: LocalModel;
  readonly store: MirrorStore;
  readonly applier: ChangeApplier;
  readonly local: LocalStore;
  readonly outbox: OutboxStore;
  readonly db: Pick<Db, 'transaction'>;
  activity(a: ActivityInput): void;
}

const pathFor = (p: SettlePort, id: string): string => pathOrId(p.model, id);

/** Returns true when the entry is finished (not to be sent again now). */
export function settleEntry(core: SettlePort, entry: OutboxEntry, out: SendOutcome): boolean {
  const finished = settleOne(core, entry, out);
  if (finished) undoSettled(core, entry);
  return finished;
}

/**
 * An Organize batch's undo is ONE activity line and its changes have no "sent" entry each: once
 * the last of them is settled, one "sent" entry for the whole run says how many the NAS took
 * (its line then says it is done on the NAS, app/activity/words.ts).
 */
function undoSettled(core: SettlePort, entry: OutboxEntry): void {
  if (entry.origin !== 'organize-undo' || core.outbox.hasUnsettled(entry.origin, entry.reason)) return;
  const run = core.outbox.runOf(entry.seq);
  if (!run) return;
  core.activity({
    kind: 'sent',
    path: '',
    summary: `NAS undo #${run.first}..#${run.last}: ${run.done} of ${run.count} applied (organize-undo)`,
    reason:
      run.done === run.count
        ? `every change of the undo is on the NAS (${entry.reason})`
        : `${run.count - run.done} of them were not taken by the NAS and wait in Conflicts (${entry.reason})`,
  });
}

function settleOne(core: SettlePort, entry: OutboxEntry, out: SendOutcome): boolean {
  const { model, store, applier, local, outbox } = core;
  const i = entry.intent;
  const e = model.get(i.id);
  const path = pathFor(core, i.id);
  switch (out.kind) {
    case 'applied': {
      const before = store.get(i.id);
      const name = (i.op === 'patch' ? i.name : undefined) ?? out.fresh?.name ?? e?.rname ?? i.fromName;
      const parent = (i.op === 'patch' ? i.parentID : undefined) ?? out.fresh?.parentID ?? e?.rparent ?? i.fromParent;
      core.db.transaction(() => {
        if (e)
          model.update(e.id, {
            rname: name,
            rparent: parent,
            etag: out.eTag,
            setag: out.eTag,
            ...(out.fresh ? { mtime: out.fresh.mTime } : {}),
          });
        outbox.settle(entry.seq, 'done', out.note, out.eTag);
        local.flush(model);
        // the folders it left and entered list differently now: walked in full next time
        store.forgetListings(new Set([i.fromParent, parent]));
        if (before) {
          const after: RemoteObject = { ...before, ...(out.fresh ?? {}), name, parentID: parent, eTag: out.eTag };
          applier.applyOwn([{ kind: 'updated', before, after, aspects: aspectsOf(before, after) }]);
        }
      })();
      // an Organize batch is ONE activity entry: its changes are not listed one by one
      if (entry.origin !== 'organize' && entry.origin !== 'organize-undo')
        core.activity({
          kind: 'sent',
          path,
          summary: `NAS ${i.op} #${entry.seq} applied (${entry.origin})`,
          reason: `${out.note}; new eTag ${out.eTag}`,
        });
      return true;
    }
    case 'deleted': {
      const ids = e ? [e.id, ...model.descendants(e.id)] : [i.id];
      core.db.transaction(() => {
        for (const id of [...ids].reverse()) model.remove(id);
        const removals = storeRemovals(store, i.id);
        outbox.settle(entry.seq, 'done', out.note);
        store.forgetListings([i.fromParent]);
        local.removeHeld(i.id);
        local.flush(model);
        applier.applyOwn(removals);
      })();
      core.activity({ kind: 'sent', path: entry.path, summary: `NAS delete #${entry.seq} done`, reason: out.note });
      return true;
    }
    case 'conflict':
    case 'unsent':
      hold(core, entry, out.kind === 'conflict' ? out.remote : 'unknown', out.reason);
      return true;
    case 'retry':
      if (!out.unknown) outbox.settle(entry.seq, 'pending', `will retry: ${out.error.message}`);
      return false;
    case 'auth':
      outbox.settle(entry.seq, 'pending', `not allowed: ${out.error.message}`);
      return false;
  }
}

/**
 * A change the NAS did not take (a conflict, or unsent): kept in the conflicts list with the
 * entries built on it. `remote` is what the NAS holds now (undefined: deleted there), which
 * becomes the base; 'unknown' (unsent) leaves the base as it was. Either way a placeholder the
 * user deleted comes back: the NAS still has the object as far as the app knows.
 */
function hold(core: SettlePort, entry: OutboxEntry, remote: RemoteObject | undefined | 'unknown', reason: string): void {
  const { model, store, applier, local, outbox } = core;
  const i = entry.intent;
  const e = model.get(i.id);
  const path = pathFor(core, i.id);
  const known = remote !== 'unknown';
  const nas = !known
    ? 'not changed as far as the app knows (your change could not be sent)'
    : remote
      ? `${JSON.stringify(remote.name)} (eTag ${remote.eTag})`
      : 'deleted on the NAS';
  const words = (x: OutboxEntry): string => describeIntent(x.intent, (id) => (id === x.intent.id ? x.path : pathFor(core, id)));
  const intent = words(entry);
  const later = outbox.laterFor(i.id, entry.seq);
  const failed = known ? 'conflicted' : 'could not be sent';
  core.db.transaction(() => {
    local.addConflict({ objectId: i.id, path: entry.path, intent, remote: nas, reason, op: intentOf(i) });
    outbox.settle(entry.seq, 'conflict', reason);
    for (const l of later) {
      // Kept too: the user may still want it (re-apply) or not (drop).
      outbox.settle(l.seq, 'superseded', `built on #${entry.seq}, which ${failed}`);
      local.addConflict({
        objectId: l.intent.id,
        path: l.path,
        intent: words(l),
        remote: nas,
        reason: `not sent: it came after #${entry.seq} on the same object, which ${failed}`,
        op: intentOf(l.intent),
      });
    }
    if (e && e.state !== 'ok') {
      // a deleted placeholder comes back
      for (const d of [e.id, ...model.descendants(e.id)]) model.update(d, { ino: null, state: 'ok' });
      local.removeHeld(e.id);
    }
    if (known) {
      // The NAS wins on disk: its version becomes the base.
      if (e && remote)
        model.update(e.id, { rname: remote.name, rparent: remote.parentID, etag: remote.eTag, setag: remote.eTag, mtime: remote.mTime });
      const before = store.get(i.id);
      if (remote && before) applier.applyOwn([{ kind: 'updated', before, after: remote, aspects: aspectsOf(before, remote) }]);
      if (!remote && before) applier.applyOwn(storeRemovals(store, i.id));
      // gone from the NAS: the disk follows. When the store had already forgotten it (a walk
      // saw the delete while this change waited, and left the pending entry alone), nothing
      // else would plan it again: the placeholder would stay on disk.
      if (!remote && e) model.touch(e.id);
    }
    local.flush(model);
  })();
  // (an undo's change superseded here settles its run too)
  for (const l of later) if (l.origin === 'organize-undo' && l.reason !== entry.reason) undoSettled(core, l);
  if (known)
    core.activity({
      kind: 'conflict',
      path,
      summary: `conflict: ${intent}`,
      reason: `${reason}; the NAS version wins on disk, your change is kept in the conflicts list`,
    });
  else
    core.activity({
      kind: 'conflict',
      path,
      summary: `couldn't send: ${intent}`,
      reason:
        `${reason}; the NAS version stays on disk, your change is kept in the conflicts list ` +
        '(Keep mine, or nas-mirror conflicts reapply, sends it again)',
    });
}

/**
 * The store's removals for an object the NAS no longer has: it and what the NAS held under it,
 * children first. Not what the disk holds under it: something the user moved into it locally
 * is still on the NAS elsewhere (and its own change is answered on its own).
 */
function storeRemovals(store: MirrorStore, id: string): RemoteChange[] {
  const removals: RemoteChange[] = [];
  for (const sid of store.subtreeIds(id).reverse()) {
    const o = store.get(sid);
    if (o) removals.push({ kind: 'removed', before: o });
  }
  return removals;
}
