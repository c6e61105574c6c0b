/**
 * Disk -> outbox: runs the local pipeline on one batch of dirty folders (analyse -> pair
 * moves -> plan), under the engine's lock, and writes the outcome in ONE transaction:
 * the model's new local placements, the outbox entries, held deletes, conflicts. Nothing is
 * sent here. Returns the disappearances still within their hold (carried to the next batch).
 */
import { join } from 'node:path';
import { intentOf } from '../../app/model/intent.js';
import { plural } from '../../app/util/human.js';
import { scanDirs, type DirScan } from '../local/analyse.js';
import { pairMoves, type GoneCarry, type Move, type PairResult } from '../local/pair-moves.js';
import { pairByPlace } from '../local/pair-by-place.js';
import { UNVERIFIED_INO, type LocalModel } from '../local/model.js';
import { planBatch, type PatchOp, type Plan, type PlannedOp } from '../local/plan.js';
import { safeJoin } from '../local/path-safety.js';
import { absOf } from '../local/placeholders.js';
import { errnoOf } from '../local/disk.js';
import type { ConflictRow, HeldRow } from '../local/local-store.js';
import type { NewEntry } from '../outbox/outbox-store.js';
import { pathFor, type ActivityInput, type Core } from './core.js';
import { NewEntries } from './new-entries.js';

/** What a local batch uses of the engine's context. */
export type LocalBatchPort = Pick<
  Core,
  | 'root'
  | 'model'
  | 'disk'
  | 'holdMs'
  | 'threshold'
  | 'local'
  | 'outbox'
  | 'creates'
  | 'uploads'
  | 'tombstones'
  | 'db'
  | 'activity'
  | 'log'
  | 'identity'
>;

export interface BatchResult {
  carry: GoneCarry[];
  enqueued: number;
  held: number;
  /** New folders and files recorded to be created on the NAS (engine/creates.ts carries them out). */
  created: number;
  /**
   * Folders this batch found moved (their new paths): what changed inside them (at any depth)
   * meanwhile was reported under old paths, which no longer exist, so they and every folder
   * below them are read next.
   */
  reread: string[];
  /**
   * Folders this batch found that the NAS does not have (made here, maybe while stopped):
   * watched from now on with everything below them (`LocalWatcher.ensureWatched`).
   */
  newDirs: string[];
}

/**
 * How entries are recognised: by inode (the disk's ids are valid on this mount), or by place
 * (`pair-by-place.ts`: ids from another mount, a restore, a disk without stable ids; `dirs`
 * must then be every folder, and `why` says which for the activity log).
 */
export type Identity = { by: 'inode' } | { by: 'place'; granularityMs: number; why: string };

export function runLocalBatch(
  core: LocalBatchPort,
  dirs: readonly string[],
  carried: readonly GoneCarry[],
  now = Date.now(),
  identity: Identity = { by: 'inode' },
): BatchResult {
  const { model } = core;
  const scans = scanDirs(core.root, dirs, now, core.disk);
  const pair =
    identity.by === 'inode'
      ? pairMoves({ model, scans, carried, now, holdMs: core.holdMs, granularityMs: Math.max(core.identity.mtimeGranularityMs, 2000) })
      : pairByPlace({ model, scans, granularityMs: identity.granularityMs, why: identity.why });
  const edits = editsOf(core, pair);
  // Found at their place: the inode this mount gave them, before anything uses inodes.
  for (const r of pair.rebound) model.rebind(r.id, r.ino, r.filled);
  const waiting = deletesWaiting(model, pair);
  const plan = planBatch(
    model,
    pair.moves,
    pair.deletes.filter((d) => !waiting.has(d)),
    core.threshold,
  );
  const paths = new Map<string, string>();
  for (const m of pair.moves) paths.set(m.id, pathFor(core, m.id));
  for (const d of pair.deletes) paths.set(d, pathFor(core, d));

  const out: Outcome = { entries: [], rows: [], activity: [] };
  queueOps(core, pair.moves, plan.ops, paths, out);
  recordContent(core, pair, edits, out);
  putBack(core, pair.unsendable, out);
  holdOverLimit(core, plan, paths, out);
  holdWaiting(core, waiting, paths, out);
  if (identity.by === 'place') forgetInodes(model, pair);
  holdUncertain(core, pair.uncertain, identity, out);
  if (pair.rebound.length && identity.by === 'place') {
    out.activity.push({
      kind: 'recognised',
      path: '',
      summary: `recognised ${pair.rebound.length} entr${pair.rebound.length === 1 ? 'y' : 'ies'} by place`,
      reason: `${identity.why}: every entry at its place is the same entry whatever its file id; nothing sent for them`,
    });
  }
  keepStamps(model, pair, scans);
  const news = new NewEntries(core, pair, scans, now);
  const { seqs, created } = writeBatch(core, { pair, scans, out, edits, news });
  queuedActivity(core, plan.ops, paths, seqs, out);
  if (news.mass)
    out.activity.push({
      kind: 'held',
      path: '',
      summary: `held ${plural(news.fresh.length, 'new item', 'new items')} for confirmation before uploading`,
      reason: `${news.mass.why}: approve to upload them (nas-mirror uploads approve all), or keep them on this computer only (reject)`,
    });
  for (const a of out.activity) core.activity(a);
  const reread = pair.moves.filter((m) => model.get(m.id)?.kind === 'dir').map((m) => pathFor(core, m.id));
  const newDirs = pair.localOnly.filter((lo) => lo.kind === 'dir').map((lo) => lo.path);
  return { carry: pair.carry, enqueued: out.entries.length, held: plan.held.length, created, reread, newDirs };
}

/**
 * What a batch writes and says: its outbox entries and the rows of its lists (conflicts, held),
 * written in its ONE transaction with the model, and its activity lines, said after it.
 */
interface Outcome {
  entries: NewEntry[];
  rows: ListRow[];
  activity: ActivityInput[];
}

/** A row of the user's lists a batch writes, in the order it decided them. */
type ListRow = { conflict: Omit<ConflictRow, 'seq' | 'at' | 'kind'> } | { held: Omit<HeldRow, 'at'> };

/**
 * Files the user changed here (content of theirs where a placeholder or a download was): their
 * new version goes to the NAS, guarded by the version they changed (the download's eTag). Read
 * before the pairing is recorded in the model.
 */
function editsOf(core: LocalBatchPort, pair: PairResult): Map<string, string> {
  const { model } = core;
  const edits = new Map<string, string>();
  const edited = (id: string): void => {
    const e = model.get(id);
    if (core.uploads && e?.kind === 'file' && e.state === 'ok') edits.set(id, e.content?.etag ?? e.etag);
  };
  for (const r of pair.rebound) if (r.filled && !model.get(r.id)?.filled) edited(r.id);
  for (const r of pair.replaced) if (r.filled) edited(r.id);
  for (const f of pair.filled) if (f.filled) edited(f.id);
  return edits;
}

/**
 * A folder deleted here that holds an entry waiting for the user's word (a held delete, a
 * "renamed or deleted?") is held too: deleting it on the NAS would take that entry along
 * before the user chose. The folder's id -> the entry it waits for.
 */
function deletesWaiting(model: LocalModel, pair: PairResult): Map<string, string> {
  const undecided = new Set(pair.uncertain.map((u) => u.id));
  const undecidedIn = (id: string): string | undefined =>
    model.descendants(id).find((d) => undecided.has(d) || model.get(d)!.state === 'held');
  const waiting = new Map<string, string>();
  for (const d of pair.deletes) {
    const u = undecidedIn(d);
    if (u !== undefined) waiting.set(d, u);
  }
  return waiting;
}

/** Records the moves in the model (the disk already shows them) and queues the plan's operations. */
function queueOps(
  core: LocalBatchPort,
  moves: readonly Move[],
  ops: readonly PlannedOp[],
  paths: ReadonlyMap<string, string>,
  out: Outcome,
): void {
  const { model } = core;
  // Moves: the disk already shows them.
  for (const m of moves) model.update(m.id, { lparent: m.toParent, lname: m.toName });
  for (const op of ops) {
    if (op.op === 'patch') {
      out.entries.push({ intent: intentOf(op), origin: 'local', path: pathFor(core, op.id), reason: op.reason });
    } else {
      out.entries.push({ intent: intentOf(op), origin: 'local', path: paths.get(op.id)!, reason: op.reason });
      model.update(op.id, { state: 'deleting' });
    }
  }
}

/** Records content changed in place: atomic saves (a new inode), placeholders filled or emptied. */
function recordContent(core: LocalBatchPort, pair: PairResult, edits: ReadonlyMap<string, string>, out: Outcome): void {
  const { model } = core;
  for (const r of pair.replaced) {
    model.update(r.id, { ino: r.ino, filled: r.filled });
    out.activity.push({
      kind: 'replaced',
      path: pathFor(core, r.id),
      summary: 'content replaced in place (atomic save): no remote change',
      reason: `same name and kind, new inode ${r.ino}${r.filled ? '; holds local content now (local only)' : ''}`,
    });
  }
  for (const f of pair.filled) {
    model.update(f.id, { filled: f.filled });
    if (edits.has(f.id))
      out.activity.push({
        kind: 'local-only',
        path: pathFor(core, f.id),
        summary: 'changed here: its new version goes to the NAS',
        reason: 'the file holds content of yours now',
      });
    else
      out.activity.push({
        kind: f.filled ? 'local-only' : 'emptied',
        path: pathFor(core, f.id),
        summary: f.filled ? 'placeholder filled with content: kept local only' : 'placeholder emptied again',
        reason: f.filled ? 'uploads are off: content stays on this computer' : 'its content is gone: a placeholder again',
      });
  }
}

/** Moved into a folder the NAS does not have: put it back (the NAS wins on disk) and keep the intent. */
function putBack(core: LocalBatchPort, unsendable: PairResult['unsendable'], out: Outcome): void {
  const { model } = core;
  for (const u of unsendable) {
    const e = model.get(u.id)!;
    const back = absOf(core.root, model, u.id, undefined, core.disk);
    let stayed: string | undefined;
    try {
      if (back) core.disk.rename(safeJoin(core.root, u.path.split('/')), back);
    } catch (err) {
      // it stays where the user put it (said below); a rescan sees it again
      stayed = errnoOf(err);
      core.log.warn('put back failed', { path: u.path, reason: (err as Error).message });
    }
    out.rows.push({
      conflict: {
        objectId: u.id,
        path: u.path,
        intent: `move into ${u.path}`,
        remote: `${e.rname} in its NAS folder`,
        reason: 'the target folder exists only locally (the NAS cannot create folders)',
        op: { op: 'unsendable', id: u.id, to: u.path },
      },
    });
    out.activity.push({
      kind: 'conflict',
      path: u.path,
      summary:
        stayed === undefined ? `moved back to ${pathFor(core, u.id)}` : `left in ${u.path}: the disk refused to move it back (${stayed})`,
      reason: 'moved into a folder that exists only locally: the NAS cannot take it',
    });
  }
}

/** Holds the plan's deletes over the threshold for the user's confirmation. */
function holdOverLimit(core: LocalBatchPort, plan: Plan, paths: ReadonlyMap<string, string>, out: Outcome): void {
  if (!plan.held.length) return;
  const { model } = core;
  for (const h of plan.held) {
    model.update(h.id, { state: 'held' });
    const row = {
      id: h.id,
      path: paths.get(h.id)!,
      folder: model.get(h.id)!.kind === 'dir',
      objects: h.objects,
      reason: `this batch deletes ${plan.deleteObjects} objects, over the limit of ${plan.limit}`,
    };
    out.rows.push({ held: row });
  }
  out.activity.push({
    kind: 'held',
    path: '',
    summary: `held ${plural(plan.held.length, 'delete', 'deletes')} for confirmation`,
    reason:
      `held: ${plan.deleteObjects} deletes exceed the threshold (${plan.limit} = the smaller of ` +
      `${core.threshold.count} objects and ${core.threshold.percent}% of ${model.objectCount()})`,
  });
}

/** Holds the folder deletes that would take along an entry waiting for the user's choice. */
function holdWaiting(core: LocalBatchPort, waiting: ReadonlyMap<string, string>, paths: ReadonlyMap<string, string>, out: Outcome): void {
  const { model } = core;
  for (const [id, u] of waiting) {
    const row = {
      id,
      path: paths.get(id)!,
      folder: model.get(id)!.kind === 'dir',
      objects: 1 + model.descendants(id).length,
      reason:
        `it held ${pathFor(core, u)}, which waits for your choice: deleting this folder on the NAS would delete that too ` +
        '(Delete deletes the folder with everything in it; Keep puts it back)',
    };
    model.update(id, { state: 'held' });
    out.rows.push({ held: row });
    out.activity.push({
      kind: 'held',
      path: row.path,
      summary: 'held a folder delete: it holds an entry that waits for your choice',
      reason: row.reason,
    });
  }
}

/**
 * What is gone keeps no inode of another mount: no later pairing may find it by one (a read
 * by place still looks for it, e.g. under a folder the user says was renamed).
 */
function forgetInodes(model: LocalModel, pair: PairResult): void {
  for (const id of [...pair.deletes, ...pair.uncertain.map((u) => u.id)]) {
    for (const d of [id, ...model.descendants(id)]) if (model.get(d)?.ino != null) model.update(d, { ino: UNVERIFIED_INO });
  }
}

/** Holds each disappearance that may be a rename or a delete until the user chooses. */
function holdUncertain(core: LocalBatchPort, uncertain: PairResult['uncertain'], identity: Identity, out: Outcome): void {
  if (!uncertain.length) return;
  const { model } = core;
  for (const u of uncertain) {
    const e = model.get(u.id)!;
    const path = pathFor(core, u.id);
    const objects = 1 + (e.kind === 'dir' ? model.descendants(u.id).length : 0);
    model.update(u.id, { state: 'held' });
    const row = {
      id: u.id,
      path,
      folder: e.kind === 'dir',
      objects,
      candidates: u.candidates,
      reason: `not sure whether ${path} was renamed (to ${u.candidates.join(' or ')}) or deleted: nothing is sent until you choose`,
    };
    out.rows.push({ held: row });
  }
  out.activity.push({
    kind: 'held',
    path: '',
    summary: `held ${plural(uncertain.length, 'disappearance', 'disappearances')}: renamed or deleted?`,
    reason:
      `${identity.by === 'place' ? identity.why : 'a file id reused by the disk, or an entry renamed and changed'}: ` +
      'an entry is gone and a new one of its kind appeared, but not everything that can be compared agrees; ' +
      'nothing is sent until you choose (It was renamed, Delete on the NAS, or Keep to put it back)',
  });
}

/**
 * Folders read now match the model: keep their stamps, except where something is still
 * unresolved (a disappearance within its hold) and must be read again after a restart.
 */
function keepStamps(model: LocalModel, pair: PairResult, scans: readonly DirScan[]): void {
  const unresolved = new Set(pair.carry.map((g) => model.get(g.id)?.lparent));
  const stampOfPath = new Map(scans.map((s) => [s.path, s.stamp]));
  for (const f of pair.folders) {
    const d = model.get(f.id);
    if (d && d.kind === 'dir' && d.state === 'ok' && !unresolved.has(d.id)) model.setStamp(d.id, stampOfPath.get(f.path));
  }
}

/** What a batch writes in its one transaction, besides the model. */
interface BatchWrite {
  pair: PairResult;
  scans: readonly DirScan[];
  out: Outcome;
  edits: ReadonlyMap<string, string>;
  news: NewEntries;
}

/**
 * Writes the batch's outcome in ONE transaction: the outbox entries, the lists' rows, the
 * creates and new versions, the local-only rows, the model. The outbox entries' seqs, and how
 * many creates (and new versions) were recorded.
 */
function writeBatch(core: LocalBatchPort, w: BatchWrite): { seqs: number[]; created: number } {
  let seqs: number[] = [];
  let created = 0;
  core.db.transaction(() => {
    seqs = core.outbox.enqueue(w.out.entries);
    for (const r of w.out.rows) {
      if ('conflict' in r) core.local.addConflict(r.conflict);
      else core.local.addHeld(r.held);
    }
    if (w.news.mass) core.creates.hold(w.news.mass.recent);
    for (const [id, base] of w.edits) if (core.creates.addVersion(id, base)) created++;
    // local-only entries: listed for the folders read now, and what left them dropped
    for (const lo of w.pair.localOnly) if (w.news.list(lo)) created++;
    pruneLocalOnly(core, w.scans, w.pair.folders, w.pair.localOnly);
    core.local.flush(core.model);
  })();
  return { seqs, created };
}

/** Says each queued operation, with its outbox seq. */
function queuedActivity(
  core: LocalBatchPort,
  ops: readonly PlannedOp[],
  paths: ReadonlyMap<string, string>,
  seqs: readonly number[],
  out: Outcome,
): void {
  ops.forEach((op, i) => {
    const p = op as PatchOp;
    if (op.op === 'patch') {
      const what = p.parentID !== undefined && p.name !== undefined ? 'renamed and moved' : p.parentID !== undefined ? 'moved' : 'renamed';
      out.activity.push({
        kind: what === 'renamed' ? 'renamed' : 'moved',
        path: pathFor(core, op.id),
        summary: `${what}: ${paths.get(op.id) ?? ''} -> ${pathFor(core, op.id)} (queued #${seqs[i]})`,
        reason: op.reason,
        outboxSeq: seqs[i]!,
      });
    } else {
      out.activity.push({
        kind: 'deleted',
        path: paths.get(op.id)!,
        summary: `delete queued #${seqs[i]} (${plural(op.objects, 'object', 'objects')})`,
        reason: op.reason,
        outboxSeq: seqs[i]!,
      });
    }
  });
}

/**
 * Drops "local only" rows that are no longer there. A row in a mirrored folder is keyed by
 * that folder's id, so a folder just read is matched by id (a rename above it changes
 * nothing); a folder (or one above it) deleted locally, held or deleting, took it along. A
 * row at a literal path goes when the disk no longer has it, or its folder was read without it.
 */
function pruneLocalOnly(
  core: Pick<Core, 'root' | 'local' | 'disk' | 'model'>,
  scans: readonly { path: string }[],
  folders: readonly { id: string }[],
  finds: readonly { path: string; parent: string | undefined; name: string }[],
): void {
  const { model } = core;
  // The folders read, as the pairing recognised them (by inode, or by place).
  const readIds = new Set(folders.map((f) => f.id).filter((id) => id === model.rootId || model.get(id)?.state === 'ok'));
  const readPaths = new Set(scans.map((s) => s.path));
  const present = new Set(finds.map((f) => (f.parent === undefined ? `\0${f.path}` : `${f.parent}\0${f.name}`)));
  const live = (id: string): boolean => {
    let cur = id;
    for (let guard = 0; guard < 10_000 && cur !== model.rootId; guard++) {
      const e = model.get(cur);
      if (!e || e.state !== 'ok') return false;
      cur = e.lparent;
    }
    return cur === model.rootId;
  };
  for (const r of core.local.localOnlyStored()) {
    if (r.parent === null) {
      // Kept in the local-only area (not watched), or in a folder the model does not know.
      const i = r.name.lastIndexOf('/');
      const gone =
        !core.disk.exists(join(core.root, ...r.name.split('/'))) ||
        (r.kind !== 'moved' && readPaths.has(i < 0 ? '' : r.name.slice(0, i)) && !present.has(`\0${r.name}`));
      if (gone) core.local.removeLocalOnly(r);
      continue;
    }
    if (!live(r.parent) || (readIds.has(r.parent) && !present.has(`${r.parent}\0${r.name}`))) core.local.removeLocalOnly(r);
  }
}
