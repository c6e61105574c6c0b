/**
 * What the user decides: approve or reject held deletes, re-apply or drop conflicts (keep
 * mine, the NAS's or both of a file changed on both sides: content-conflicts.ts), undo
 * a rename or move (the inverse patch, guarded by If-Match like any other), restore a
 * vanished mirror. Also the lists behind them, in the contract's shapes. Requests queued
 * by the command line (`local_requests`) for these are handed here by the running engine.
 */
import { AppError } from '../../app/errors.js';
import { plural } from '../../app/util/human.js';
import { conflictActions, inverseOf, type ConflictAction } from '../../app/model/intent.js';
import type { ActivityEntry, BulkResult, ConflictEntry, HeldDelete, HeldUpload } from '../../app/contract/shapes.js';
import { lstatBig } from '../local/analyse.js';
import { absOf } from '../local/placeholders.js';
import { safeJoin } from '../local/path-safety.js';
import { conflictEntries, heldDeletes, heldUploads } from '../local/decision-views.js';
import type { ConflictRow, RequestAction } from '../local/local-store.js';
import { pathFor, type Core, type Lock } from './core.js';
import { initRoot } from './mirror-root.js';
import type { ContentChoices } from './content-conflicts.js';
import { dropConflict, misfit, reapplyConflict } from './intent-conflicts.js';
import { applySaved } from '../organize/apply.js';
import { batchUndoable, undoBatch } from '../organize/undo.js';

/** What the actions ask of the engine after a change (they never drive its state). */
export interface ActionHooks {
  /** Lists changed, the outbox may have work. */
  afterChange(): void;
  /** The placeholders follow everything again. */
  reconcile(): Promise<void>;
  /** Re-walk now (an approved empty NAS). */
  syncNow(): Promise<void>;
  /** Reads the whole mirror folder by place (`reason` for the activity log), not by inode. */
  readByPlace(reason: string): Promise<void>;
  /** Held uploads were approved: the creator carries them out. */
  uploadsApproved?(): void;
  /** Files waiting for room on the NAS (it is full), by NAS id. */
  waitingForRoom?(): ReadonlySet<string>;
}

export class EngineActions {
  constructor(
    private readonly core: Core,
    private readonly lock: Lock,
    private readonly hooks: ActionHooks,
    /** The choices on a file changed on both sides (content-conflicts.ts). */
    private readonly choices: Pick<ContentChoices, 'choose'>,
  ) {}

  activity(limit = 200): ActivityEntry[] {
    return this.core.local.activity(limit).map((a) => ({
      id: String(a.seq),
      at: a.at,
      kind: a.kind,
      path: a.path,
      summary: a.summary,
      reason: a.reason,
      undoable:
        a.kind === 'organized'
          ? batchUndoable(this.core.db, a)
          : a.outboxSeq !== null &&
            !a.undone &&
            (a.kind === 'renamed' || a.kind === 'moved') &&
            this.core.outbox.get(a.outboxSeq)?.state === 'done',
      ...(a.undone ? { undone: true } : {}),
    }));
  }

  conflicts(): { conflicts: ConflictEntry[]; held: HeldDelete[] } {
    return {
      conflicts: conflictEntries(this.core.local),
      // a place another item has taken since (the user chose it for another) is no longer a choice
      held: heldDeletes(this.core.local, this.core.model.rootId).map((h) =>
        h.candidates
          ? {
              ...h,
              candidates: h.candidates.filter((p) => {
                const at = this.placeOf(p);
                return at !== undefined && at.taken === undefined;
              }),
            }
          : h,
      ),
    };
  }

  /**
   * Where mirror path `path` is: the NAS folder holding it and its name, and the item of the NAS
   * already there, if any; undefined when its folder is not on the NAS.
   */
  private placeOf(path: string): { parent: string; name: string; taken: string | undefined } | undefined {
    const c = this.core;
    const segs = path.split('/');
    const name = segs.pop()!;
    const parent = c.model.dirAt(segs)?.id;
    if (parent === undefined) return undefined;
    const taken = c.model.children(parent).find((k) => {
      const x = c.model.get(k)!;
      return x.state === 'ok' && x.ino !== null && x.lname.normalize('NFC') === name.normalize('NFC');
    });
    return { parent, name, taken };
  }

  localOnly(): { path: string; kind: string; reason: string }[] {
    const going = new Map(this.core.creates.open().flatMap((r) => (r.objectId === null ? [] : [[r.objectId, r.kind] as const])));
    const full = this.hooks.waitingForRoom?.() ?? new Set<string>();
    const why = (id: string): string => {
      const kind = going.get(id);
      if (kind === 'file')
        return full.has(id) ? 'new here: waits for room on the NAS (it is full); nothing is lost' : 'new here: being uploaded to the NAS';
      if (kind === 'version')
        return full.has(id)
          ? 'changed here: its new version waits for room on the NAS (it is full); nothing is lost'
          : 'changed here: its new version is being uploaded to the NAS';
      return 'changed here: not sent to the NAS (uploads are off, or it waits for your word)';
    };
    const filled = [...this.core.model.withFilled]
      .flatMap((id) => this.core.model.get(id) ?? [])
      .filter((e) => e.filled)
      .map((e) => ({ path: pathFor(this.core, e.id), kind: 'content', reason: why(e.id) }));
    return [...this.core.local.localOnly(this.core.model).map((r) => ({ path: r.path, kind: r.kind, reason: r.reason })), ...filled];
  }

  /** New entries that wait for the user's word before they upload (a mass upload), as the window and the CLI list them. */
  heldUploads(): HeldUpload[] {
    return heldUploads(this.core.creates, (id) => this.core.model.pathOf(id));
  }

  /** The user's word on held uploads (ids as listed, or ['all']): upload them, or keep them here only (listed local only). */
  async resolveUploads(ids: readonly string[], upload: boolean): Promise<BulkResult> {
    const res = await this.lock.run(() => {
      const c = this.core;
      const rows = c.creates.decide(ids.includes('all') ? 'all' : ids.map(Number), upload);
      for (const r of rows) {
        if (!upload)
          c.local.addLocalOnly({ parent: r.parent, name: r.name }, r.kind, 'not on the NAS: you chose to keep it on this computer only');
      }
      if (rows.length)
        c.activity({
          kind: upload ? 'approved' : 'rejected',
          path: '',
          summary: `${upload ? 'upload approved for' : 'kept on this computer only:'} ${plural(rows.length, 'new item', 'new items')}`,
          reason: 'you decided about a mass upload',
        });
      return {
        done: rows.length,
        failed: ids
          .filter((i) => i !== 'all' && !rows.some((r) => String(r.seq) === i))
          .map((id) => ({ id, message: 'no such held upload' })),
      };
    });
    this.hooks.afterChange();
    if (upload) this.hooks.uploadsApproved?.();
    return res;
  }

  /** ids: held ids, or ['all']. */
  async resolveHeld(ids: readonly string[], action: 'approve' | 'reject'): Promise<BulkResult> {
    let emptyNas: 'approve' | 'reject' | undefined;
    const res = await this.lock.run(() => {
      const c = this.core;
      const held = c.local.held();
      const want = ids.includes('all') ? held.map((h) => h.id) : ids;
      const out: BulkResult = { done: 0, failed: [] };
      for (const id of want) {
        const h = held.find((x) => x.id === id);
        if (h && id === c.model.rootId) {
          resolveEmptyNas(c, h.path, action);
          out.done++;
          emptyNas = action;
          continue;
        }
        const e = c.model.get(id);
        if (!h) {
          out.failed.push({ id, message: 'no such held delete' });
          continue;
        }
        // (a row left by an older version for an entry that is gone: nothing is left to decide)
        if (!e) {
          c.local.removeHeld(id);
          out.done++;
          continue;
        }
        c.db.transaction(() => {
          if (action === 'approve') {
            c.model.update(id, { state: 'deleting' });
            const [seq] = c.outbox.enqueue([
              {
                intent: { op: 'delete', id, fromName: e.rname, fromParent: e.rparent },
                origin: 'approve',
                path: h.path,
                reason: 'held delete approved by you',
              },
            ]);
            c.local.removeHeld(id);
            c.activity({
              kind: 'approved',
              path: h.path,
              summary: `delete approved (queued #${seq})`,
              reason: 'you approved a held delete',
            });
          } else {
            // what it holds comes back with it, with any held entry below it (nothing is deleted)
            for (const d of [id, ...c.model.descendants(id)]) {
              c.model.update(d, { ino: null, state: 'ok' });
              c.local.removeHeld(d);
            }
            c.activity({
              kind: 'rejected',
              path: h.path,
              summary: 'delete rejected: placeholders restored',
              reason: 'you rejected a held delete; nothing is deleted on the NAS',
            });
          }
          c.local.flush(c.model);
        })();
        out.done++;
      }
      return out;
    });
    if (action === 'reject') await this.hooks.reconcile();
    // an approved empty NAS: the next walk may remove what it no longer shows
    if (emptyNas === 'approve') await this.hooks.syncNow();
    this.hooks.afterChange();
    return res;
  }

  /**
   * A held "renamed or deleted?" was renamed to `to` (one of the places it may have gone, a
   * path in the mirror): the entry takes that place (what is below a folder is found under
   * it by place), the rename or move goes to the outbox like any other, the new entry is no
   * longer local only.
   */
  async heldWasRenamed(id: string, to: string): Promise<BulkResult> {
    const res = await this.lock.run((): BulkResult => {
      const c = this.core;
      const h = c.local.held().find((x) => x.id === id);
      const e = c.model.get(id);
      const fail = (message: string): BulkResult => ({ done: 0, failed: [{ id, message }] });
      if (!h || !e) return fail('no such held delete');
      if (!h.candidates?.includes(to)) return fail(`${to} is not one of the places it may have gone`);
      const place = this.placeOf(to);
      if (!place) return fail(`the folder of ${to} is not on the NAS`);
      if (place.taken !== undefined && place.taken !== id) return fail(`${to} is another item of the NAS`);
      const { parent, name } = place;
      const st = lstatBig(safeJoin(c.root, to.split('/')), c.disk);
      if (!st || (st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other') !== e.kind) return fail(`${to} is no longer there`);
      let seq: number | undefined;
      c.db.transaction(() => {
        c.model.update(id, { state: 'ok', lparent: parent, lname: name, ino: st.ino.toString() });
        const intent = {
          op: 'patch' as const,
          id,
          fromName: e.rname,
          fromParent: e.rparent,
          ...(name !== e.rname ? { name } : {}),
          ...(parent !== e.rparent ? { parentID: parent } : {}),
        };
        if (intent.name !== undefined || intent.parentID !== undefined)
          [seq] = c.outbox.enqueue([{ intent, origin: 'approve', path: to, reason: `you said ${h.path} was renamed to ${to}` }]);
        c.local.removeHeld(id);
        c.local.removeLocalOnly({ parent, name });
        c.local.flush(c.model);
      })();
      c.activity({
        kind: parent !== e.lparent ? 'moved' : 'renamed',
        path: to,
        summary: `renamed: ${h.path} -> ${to}${seq !== undefined ? ` (queued #${seq})` : ''}`,
        reason: 'you chose "it was renamed" for a held disappearance',
        ...(seq !== undefined ? { outboxSeq: seq } : {}),
      });
      return { done: 1, failed: [] };
    });
    // what a folder held is looked for under it by place (what moved elsewhere is paired, what
    // is missing deleted under the threshold, what was added local only), before the disk follows
    if (res.done && this.core.model.get(id)?.kind === 'dir')
      await this.hooks.readByPlace(`you said ${to} is the folder that was ${this.core.model.get(id)!.rname}`);
    await this.hooks.reconcile();
    this.hooks.afterChange();
    return res;
  }

  /**
   * The user's choice on conflicts (ids as listed, or ['all']: every conflict the choice fits).
   * A change the NAS did not take is re-applied or dropped (one transaction); a file changed on
   * both sides is kept as the user chose (content-conflicts.ts: the NAS is asked first, outside
   * the lock). A choice that does not fit a conflict's kind fails for it, in words.
   */
  async resolveConflicts(ids: readonly string[], action: ConflictAction): Promise<BulkResult> {
    const rows = this.core.local.conflicts();
    const fits = (k: ConflictRow): boolean => conflictActions(k.kind).includes(action);
    const want = ids.includes('all') ? rows.filter(fits).map((k) => String(k.seq)) : ids;
    const out: BulkResult = { done: 0, failed: [] };
    const intents: string[] = [];
    for (const id of want) {
      const k = rows.find((x) => String(x.seq) === id);
      if (!k) out.failed.push({ id, message: 'no such conflict' });
      else if (!fits(k)) out.failed.push({ id, message: misfit(k) });
      else if (action === 'reapply' || action === 'drop') intents.push(id);
      else {
        const why = await this.choices.choose(k.seq, action);
        if (why === undefined) out.done++;
        else out.failed.push({ id, message: why });
      }
    }
    if (intents.length && (action === 'reapply' || action === 'drop')) {
      const r = await this.lock.run(() => this.reapplyOrDrop(intents, action));
      out.done += r.done;
      out.failed.push(...r.failed);
    }
    this.hooks.afterChange();
    return out;
  }

  /** Under the lock: changes the NAS did not take, re-applied (queued again) or dropped. */
  private reapplyOrDrop(ids: readonly string[], action: 'reapply' | 'drop'): BulkResult {
    const c = this.core;
    const out: BulkResult = { done: 0, failed: [] };
    for (const id of ids) {
      const k = c.local.conflict(Number(id));
      if (!k) {
        out.failed.push({ id, message: 'no such conflict' });
        continue;
      }
      const refused = action === 'drop' ? dropConflict(c, k) : reapplyConflict(c, k);
      if (refused !== undefined) out.failed.push({ id, message: refused });
      else out.done++;
    }
    return out;
  }

  /** Undoes a rename/move from the activity log (its id). */
  async undo(activityId: string): Promise<void> {
    await this.lock.run(() => {
      const c = this.core;
      const a = c.local.activityBySeq(Number(activityId));
      if (a?.kind === 'organized') {
        undoBatch(c, a);
        return;
      }
      if (!a || a.outboxSeq === null || (a.kind !== 'renamed' && a.kind !== 'moved'))
        throw new AppError('BadRequest', `activity ${activityId} is not a rename or move`);
      if (a.undone) throw new AppError('BadRequest', `activity ${activityId} was already undone`);
      const ent = c.outbox.get(a.outboxSeq);
      if (!ent || ent.intent.op !== 'patch' || ent.state !== 'done')
        throw new AppError('BadRequest', `operation ${activityId} has not been applied on the NAS (${ent?.state ?? 'unknown'})`);
      const e = c.model.get(ent.intent.id);
      if (!e || e.state !== 'ok') throw new AppError('BadRequest', 'the object is no longer on the NAS');
      const [seq] = c.outbox.enqueue([
        {
          intent: inverseOf(ent.intent, { name: e.rname, parentID: e.rparent }),
          origin: 'undo',
          path: pathFor(c, e.id),
          reason: `undo of #${ent.seq}`,
        },
      ]);
      c.local.markUndone(a.seq);
      c.activity({
        kind: 'undo',
        path: pathFor(c, e.id),
        summary: `undo of ${a.summary} (queued #${seq})`,
        reason: 'you asked to undo; the inverse patch carries If-Match like any other',
      });
    });
    this.hooks.afterChange();
  }

  /** The mirror folder vanished or was emptied and the user resumed: recreate what is missing. */
  async restoreMirror(): Promise<void> {
    await this.lock.run(() => {
      const c = this.core;
      initRoot(c.root, c.disk);
      for (const e of c.model.entries()) {
        if (e.id === c.model.rootId || e.ino === null || e.state !== 'ok') continue;
        const abs = absOf(c.root, c.model, e.id, undefined, c.disk);
        const st = abs ? lstatBig(abs, c.disk) : undefined;
        if (!st || st.ino.toString() !== e.ino) c.model.update(e.id, { ino: null });
      }
      // children of a missing folder are missing too
      for (const e of [...c.model.entries()]) {
        if (e.ino === null) for (const d of c.model.descendants(e.id)) c.model.update(d, { ino: null });
      }
      const rootIno = lstatBig(c.root, c.disk)?.ino.toString() ?? null;
      if (c.model.get(c.model.rootId)) c.model.update(c.model.rootId, { ino: rootIno });
      c.local.flush(c.model);
      c.activity({
        kind: 'restored',
        path: '',
        summary: 'mirror folder restored from the stored state',
        reason: 'you resumed sync after the folder vanished or was emptied; nothing was deleted on the NAS',
      });
    });
    await this.hooks.reconcile();
  }

  /** Carries out one request queued by the command line (pause, resume, sync and content requests are the engine's own). */
  async handle(
    action: Exclude<RequestAction, 'pause' | 'resume' | 'sync' | 'get' | 'pin' | 'unpin' | 'free'>,
    ids: string[],
  ): Promise<void> {
    switch (action) {
      case 'approve':
      case 'reject':
        await this.resolveHeld(ids, action);
        return;
      case 'upload':
      case 'keep-here':
        await this.resolveUploads(ids, action === 'upload');
        return;
      case 'renamed':
        if (ids.length === 2) await this.heldWasRenamed(ids[0]!, ids[1]!);
        return;
      case 'reapply':
      case 'drop':
      case 'keep-mine':
      case 'keep-nas':
      case 'keep-both':
        await this.resolveConflicts(ids, action);
        return;
      case 'undo':
        for (const id of ids) await this.undo(id);
        return;
      case 'organize':
        for (const id of ids) await this.lock.run(() => applySaved(this.core, Number(id)));
        this.hooks.afterChange();
        return;
    }
  }
}

/** What the held row of an empty NAS shows as its path (window, tray, `nas-mirror held`). */
export const EMPTY_NAS_PATH = '/ (the NAS now looks empty)';

/** The held row of a NAS that looks empty: keyed by the root's id (one at most). */
export function holdEmptyNas(c: Pick<Core, 'model' | 'local' | 'activity' | 'store'>, e: AppError): void {
  const rootId = c.model.rootId;
  if (!rootId || c.local.held().some((h) => h.id === rootId)) return;
  c.local.addHeld({
    id: rootId,
    path: EMPTY_NAS_PATH,
    folder: true,
    objects: c.store.count(),
    reason: 'the NAS now looks empty: approve to remove every placeholder, reject to keep them',
  });
  c.activity({ kind: 'held', path: '', summary: 'the NAS now looks empty: removals held for your confirmation', reason: e.message });
}

/**
 * Approve: the next complete walk removes what the NAS no longer has. Reject: the placeholders
 * stay (asked again at the next walk that finds it empty).
 */
function resolveEmptyNas(c: Core, path: string, action: 'approve' | 'reject'): void {
  c.local.removeHeld(c.model.rootId);
  if (action === 'approve') {
    c.local.setMeta('allowEmptyNas', '1');
    c.activity({
      kind: 'approved',
      path,
      summary: 'empty NAS approved: the next walk removes the placeholders',
      reason: 'you approved the removals of a NAS that looks empty',
    });
  } else {
    c.activity({
      kind: 'rejected',
      path,
      summary: 'empty NAS rejected: the placeholders stay',
      reason: 'you rejected the removals of a NAS that looks empty; nothing is removed',
    });
  }
}
