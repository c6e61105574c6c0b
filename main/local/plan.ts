/**
 * Step 4 of the local pipeline (watch -> analyse -> pair moves -> PLAN). Pure: turns paired
 * moves and deletes into NAS operations in a safe order, and applies the delete threshold.
 * A move whose target name is held by another entry that also moves (or is deleted) waits
 * for it; a cycle (a swap, or one through a delete) goes through a temporary name. Deletes are counted AFTER pairing,
 * in objects (a folder counts with everything below it), and held past the threshold.
 */
import type { DeleteIntent, PatchIntent } from '../../app/model/intent.js';
import type { LocalModel } from './model.js';
import type { Move } from './pair-moves.js';
import { remoteNameFor } from './local-names.js';

/** A rename/move to send, with why (the intent itself is app/model/intent.ts's, unchanged). */
export type PatchOp = PatchIntent & { reason: string };

/** A delete to send, with how many objects it takes (a folder counts with what it holds). */
export type DeleteOp = DeleteIntent & { objects: number; reason: string };

export type PlannedOp = PatchOp | DeleteOp;

export interface DeleteThreshold {
  /** Hold when a batch deletes more than this many objects... */
  count: number;
  /** ...or more than this percentage of the mirror, whichever is smaller. */
  percent: number;
}

export const DEFAULT_THRESHOLD: DeleteThreshold = { count: 50, percent: 10 };

export interface Plan {
  ops: PlannedOp[];
  /** Deletes held for confirmation (not in `ops`). */
  held: DeleteOp[];
  deleteObjects: number;
  limit: number;
}

/** The largest number of objects a batch may delete without confirmation. */
export function deleteLimit(mirrorObjects: number, t: DeleteThreshold): number {
  return Math.min(t.count, Math.floor((mirrorObjects * t.percent) / 100));
}

/** A temporary name for breaking a rename cycle. */
export const tempName = (name: string, id: string): string => `${name.slice(0, 180)}.nas-mirror-swap-${id.slice(0, 40)}`;

/**
 * `model` is the state BEFORE the batch (remote base = what the user saw; local = previous
 * local placement, used to tell whether a move keeps the mapped local name).
 */
export function planBatch(model: LocalModel, moves: readonly Move[], deletes: readonly string[], t: DeleteThreshold): Plan {
  const patches: PatchOp[] = [];
  for (const m of moves) {
    const e = model.get(m.id);
    if (!e) continue;
    // The remote name/parent this move intends, relative to where it was locally.
    const localFromName = e.lname;
    const newName = remoteNameFor(m.toName, localFromName, e.rname);
    const op: PatchOp = { op: 'patch', id: m.id, fromName: e.rname, fromParent: e.rparent, reason: m.reason };
    if (newName !== e.rname) op.name = newName;
    // Moved only when the user moved it here: a local folder other than the one it was in. Where
    // the NAS moved it and the disk has not followed yet (the placeholder's move failed: the
    // user renamed it meanwhile), staying in its old folder is not a move back (soak seed 4041).
    if (m.toParent !== e.rparent && m.toParent !== e.lparent) op.parentID = m.toParent;
    if (op.name === undefined && op.parentID === undefined) continue;
    patches.push(op);
  }
  const movedOut = new Set(moves.map((m) => m.id));
  const delOps: DeleteOp[] = deletes.map((id) => {
    const n = 1 + model.descendants(id).filter((d) => !movedOutBelow(model, d, id, movedOut)).length;
    const e = model.get(id);
    return {
      op: 'delete',
      id,
      fromName: e?.rname ?? '',
      fromParent: e?.rparent ?? '',
      objects: n,
      reason: `gone from disk (${e?.kind ?? 'entry'} inode ${e?.ino ?? '?'}), no twin inode appeared`,
    };
  });
  const deleteObjects = delOps.reduce((s, d) => s + d.objects, 0);
  const limit = deleteLimit(model.objectCount(), t);
  const held = deleteObjects > limit ? delOps : [];
  const sendDeletes = deleteObjects > limit ? [] : delOps;
  return { ops: orderOps(model, patches, sendDeletes), held, deleteObjects, limit };
}

/** True when `id` is strictly below `anc` in a NAS tree whose parents `parentOf` reads. */
function below(rootId: string, parentOf: (id: string) => string | undefined, id: string, anc: string): boolean {
  let cur = parentOf(id);
  for (let guard = 0; cur !== undefined && guard < 10_000; guard++) {
    if (cur === anc) return true;
    if (cur === rootId) return false;
    cur = parentOf(cur);
  }
  return false;
}

/** True when `id` is strictly below `anc` in the NAS tree as the user last saw it. */
const remotelyUnder = (model: LocalModel, id: string, anc: string): boolean => below(model.rootId, (x) => model.get(x)?.rparent, id, anc);

/** True when `d` (below `top`) or one of its ancestors below `top` moved out in this batch. */
function movedOutBelow(model: LocalModel, d: string, top: string, movedOut: ReadonlySet<string>): boolean {
  for (let cur: string | undefined = d; cur !== undefined && cur !== top && cur !== model.rootId; cur = model.get(cur)?.lparent) {
    if (movedOut.has(cur)) return true;
  }
  return false;
}

/** Orders patches so a target name is freed before it is taken; breaks cycles with a temp name. */
function orderOps(model: LocalModel, patches: PatchOp[], deletes: DeleteOp[]): PlannedOp[] {
  const order = new OpOrder(model, patches, deletes);
  for (const p of patches) order.visit(p);
  for (const d of deletes) order.visit(d);
  return order.out;
}

/** The remote slot (parent and name) a patch takes. */
const target = (p: PatchOp): string => `${p.parentID ?? p.fromParent}\u0000${p.name ?? p.fromName}`;

/** The remote slot (parent and name) a patch leaves. */
const slotOf = (p: PatchOp): string => `${p.fromParent}\u0000${p.fromName}`;

/** One ordering of a batch's operations: a depth-first walk, each op after those it waits for. */
class OpOrder {
  /** The ops in the order they are sent. */
  readonly out: PlannedOp[] = [];
  /** Who holds each remote slot now (base), among the entries this batch touches. */
  private readonly holder = new Map<string, PlannedOp>();
  private readonly patchOf: Map<string, PatchOp>;
  /** Where each entry is on the NAS once the ops put in `out` so far have run. */
  private readonly parentNow = new Map<string, string>();
  private readonly done = new Set<PlannedOp>();
  private readonly visiting = new Set<PlannedOp>();

  constructor(
    private readonly model: LocalModel,
    private readonly patches: PatchOp[],
    deletes: DeleteOp[],
  ) {
    for (const p of patches) this.holder.set(`${p.fromParent}\u0000${p.fromName}`, p);
    for (const d of deletes) {
      const e = model.get(d.id);
      if (e) this.holder.set(`${e.rparent}\u0000${e.rname}`, d);
    }
    this.patchOf = new Map(patches.map((p) => [p.id, p]));
  }

  /** Puts `op` in `out`, after what it waits for. */
  visit(op: PlannedOp): void {
    const { done, visiting } = this;
    if (done.has(op)) return;
    if (visiting.has(op)) {
      // Cycle: the op being waited for goes to its new folder under a temporary name first
      // (a swap of names; or a folder and its subfolder trading places, where the subfolder
      // must leave before the folder can enter it), then takes its name.
      if (op.op === 'patch') {
        // not into a folder still below it: then it frees its name in place and moves last
        const into = op.parentID !== undefined && op.parentID !== op.id && !this.underNow(op.parentID, op.id) ? op.parentID : op.fromParent;
        this.viaTemp(op, into, op.fromName, 'temporary name to break a swap');
      }
      return;
    }
    visiting.add(op);
    if (op.op === 'patch') this.visitPatch(op);
    else this.visitDelete(op);
    visiting.delete(op);
    if (!done.has(op)) {
      done.add(op);
      this.emit(op);
    }
  }

  /** A patch waits for whoever holds its target slot, and for the moves that take its target folder out from under it. */
  private visitPatch(op: PatchOp): void {
    const { model } = this;
    const h = this.holder.get(target(op));
    if (h && h.op === 'delete' && remotelyUnder(model, op.id, h.id)) {
      // The slot is freed by deleting a folder this entry is still in on the NAS: leave it first.
      this.leave(op, h.id);
    }
    if (h && h !== op) this.visit(h);
    // A folder moved into what is below it on the NAS now (a folder and its subfolder
    // trading places): the moves that take the target out from under it go first, or the
    // NAS would be asked to put a folder inside itself.
    if (op.parentID !== undefined && (op.parentID === op.id || this.underNow(op.parentID, op.id))) {
      for (
        let cur: string | undefined = op.parentID;
        cur !== undefined && cur !== op.id && cur !== model.rootId;
        cur = this.parentOf(cur)
      ) {
        const p = this.patchOf.get(cur);
        if (p && p !== op && !this.done.has(p)) this.visit(p);
      }
    }
  }

  /** Whatever moves out of a folder must leave before the folder is deleted. */
  private visitDelete(op: DeleteOp): void {
    const waiting: PatchOp[] = [];
    for (const p of this.patches) {
      if (this.done.has(p) || !remotelyUnder(this.model, p.id, op.id)) continue;
      if (this.visiting.has(p)) waiting.push(p);
      else this.visit(p);
    }
    // One still on the stack waits, through the slots it needs, for this very delete (a
    // cycle: it wants the name of an entry that wants the deleted folder's name). It cannot
    // wait: it leaves now under a temporary name, or the delete would take it along. Top-most
    // first: an entry whose folder left with it has nothing more to do here.
    waiting.sort((a, b) => this.depthNow(a.id) - this.depthNow(b.id));
    for (const p of waiting) if (this.underNow(p.id, op.id)) this.leave(p, op.id);
  }

  /** Where an entry is on the NAS once the ops in `out` have run. */
  private parentOf(id: string): string | undefined {
    return this.parentNow.get(id) ?? this.model.get(id)?.rparent;
  }

  /** True when `id` is strictly below `anc` on the NAS once the ops in `out` have run. */
  private underNow(id: string, anc: string): boolean {
    return below(this.model.rootId, (x) => this.parentOf(x), id, anc);
  }

  /** How deep an entry is on the NAS once the ops in `out` have run. */
  private depthNow(id: string): number {
    let d = 0;
    for (let cur = this.parentOf(id); cur !== undefined && cur !== this.model.rootId && d < 10_000; cur = this.parentOf(cur)) d++;
    return d;
  }

  /** Appends an op to `out`, and follows where it puts its entry. */
  private emit(op: PlannedOp): void {
    this.out.push(op);
    if (op.op === 'patch' && op.parentID !== undefined) this.parentNow.set(op.id, op.parentID);
  }

  /**
   * `p` goes to folder `into` under a temporary name first; its own op then takes the final
   * name (set even when only the folder changes: the temporary name must not stay).
   */
  private viaTemp(p: PatchOp, into: string, tmpBase: string, why: string): void {
    const tmp = tempName(tmpBase, p.id);
    const finalParent = p.parentID ?? p.fromParent;
    p.name ??= p.fromName;
    // its old slot is free now: whoever waits for it no longer waits for p
    if (this.holder.get(slotOf(p)) === p) this.holder.delete(slotOf(p));
    this.emit({
      op: 'patch',
      id: p.id,
      name: tmp,
      ...(into !== p.fromParent ? { parentID: into } : {}),
      fromName: p.fromName,
      fromParent: p.fromParent,
      reason: `${p.reason}; ${why}`,
    });
    p.fromName = tmp;
    p.fromParent = into;
    if (finalParent === into) delete p.parentID;
    else p.parentID = finalParent;
  }

  /**
   * `p` leaves `folder` (about to be deleted) under a temporary name: into its new folder,
   * unless that is still below the entry or the folder; the root then.
   */
  private leave(p: PatchOp, folder: string): void {
    const to = p.parentID ?? p.fromParent;
    const into = to !== p.id && !this.underNow(to, p.id) && to !== folder && !this.underNow(to, folder) ? to : this.model.rootId;
    this.viaTemp(p, into, p.name ?? p.fromName, 'out of a folder being deleted first, under a temporary name');
  }
}
