/**
 * Disk -> outbox: runs the local pipeline on one batch of dirty folders (analyse -> pair
 * moves -> plan), under the engine's lock, and writes the outcome in ONE transaction:
 * the model's new local placements, the outbox entries, held deletes, conflicts. Nothing is
 * sent here. Returns the disappearances still within their hold (carried to the next batch).
 */
import { join } from 'node:path';
import { intentOf } from '../../app/model/intent.js';
import { scanDirs, type DiskEntry } from '../local/analyse.js';
import { BACKUP, pairMoves, type GoneCarry, type LocalOnlyFind } from '../local/pair-moves.js';
import { pairByPlace } from '../local/pair-by-place.js';
import { UNVERIFIED_INO } from '../local/model.js';
import { planBatch, type PatchOp } from '../local/plan.js';
import { safeJoin } from '../local/path-safety.js';
import { absOf } from '../local/placeholders.js';
import { errnoOf } from '../local/disk.js';
import type { NewEntry } from '../outbox/outbox-store.js';
import { pathFor, type Core } from './core.js';

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
  // Files the user changed here (content of theirs where a placeholder or a download was): their
  // new version goes to the NAS, guarded by the version they changed (the download's eTag).
  const edits = new Map<string, string>();
  const edited = (id: string): void => {
    const e = model.get(id);
    if (core.uploads && e?.kind === 'file' && e.state === 'ok') edits.set(id, e.content?.etag ?? e.etag);
  };
  for (const r of pair.rebound) if (r.filled && !model.get(r.id)?.filled) edited(r.id);
  for (const r of pair.replaced) if (r.filled) edited(r.id);
  for (const f of pair.filled) if (f.filled) edited(f.id);
  // Found at their place: the inode this mount gave them, before anything uses inodes.
  for (const r of pair.rebound) model.rebind(r.id, r.ino, r.filled);
  // A folder deleted here that holds an entry waiting for the user's word (a held delete, a
  // "renamed or deleted?") is held too: deleting it on the NAS would take that entry along
  // before the user chose.
  const undecided = new Set(pair.uncertain.map((u) => u.id));
  const undecidedIn = (id: string): string | undefined =>
    model.descendants(id).find((d) => undecided.has(d) || model.get(d)!.state === 'held');
  const waiting = new Map<string, string>();
  for (const d of pair.deletes) {
    const u = undecidedIn(d);
    if (u !== undefined) waiting.set(d, u);
  }
  const plan = planBatch(
    model,
    pair.moves,
    pair.deletes.filter((d) => !waiting.has(d)),
    core.threshold,
  );
  const paths = new Map<string, string>();
  for (const m of pair.moves) paths.set(m.id, pathFor(core, m.id));
  for (const d of pair.deletes) paths.set(d, pathFor(core, d));

  const entries: NewEntry[] = [];
  const activity: Parameters<Core['activity']>[0][] = [];
  // Every list the outcome implies (conflicts, held, local only) is written in the batch's ONE
  // transaction with the model and the outbox; the activity log and listeners come after it.
  const lists: (() => void)[] = [];
  // Moves: the disk already shows them.
  for (const m of pair.moves) model.update(m.id, { lparent: m.toParent, lname: m.toName });
  for (const op of plan.ops) {
    if (op.op === 'patch') {
      entries.push({ intent: intentOf(op), origin: 'local', path: pathFor(core, op.id), reason: op.reason });
    } else {
      entries.push({ intent: intentOf(op), origin: 'local', path: paths.get(op.id)!, reason: op.reason });
      model.update(op.id, { state: 'deleting' });
    }
  }
  for (const r of pair.replaced) {
    model.update(r.id, { ino: r.ino, filled: r.filled });
    activity.push({
      kind: 'replaced',
      path: pathFor(core, r.id),
      summary: 'content replaced in place (atomic save): no remote change',
      reason: `same name and kind, new inode ${r.ino}${r.filled ? '; holds local content now (local only)' : ''}`,
    });
  }
  for (const f of pair.filled) {
    model.update(f.id, { filled: f.filled });
    if (edits.has(f.id))
      activity.push({
        kind: 'local-only',
        path: pathFor(core, f.id),
        summary: 'changed here: its new version goes to the NAS',
        reason: 'the file holds content of yours now',
      });
    else
      activity.push({
        kind: f.filled ? 'local-only' : 'emptied',
        path: pathFor(core, f.id),
        summary: f.filled ? 'placeholder filled with content: kept local only' : 'placeholder emptied again',
        reason: f.filled ? 'uploads are off: content stays on this computer' : 'its content is gone: a placeholder again',
      });
  }
  for (const u of pair.unsendable) {
    // Moved into a folder the NAS does not have: put it back (the NAS wins on disk) and keep the intent.
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
    lists.push(() =>
      core.local.addConflict({
        objectId: u.id,
        path: u.path,
        intent: `move into ${u.path}`,
        remote: `${e.rname} in its NAS folder`,
        reason: 'the target folder exists only locally (the NAS cannot create folders)',
        op: { op: 'unsendable', id: u.id, to: u.path },
      }),
    );
    activity.push({
      kind: 'conflict',
      path: u.path,
      summary:
        stayed === undefined ? `moved back to ${pathFor(core, u.id)}` : `left in ${u.path}: the disk refused to move it back (${stayed})`,
      reason: 'moved into a folder that exists only locally: the NAS cannot take it',
    });
  }
  if (plan.held.length) {
    for (const h of plan.held) {
      model.update(h.id, { state: 'held' });
      const row = {
        id: h.id,
        path: paths.get(h.id)!,
        folder: model.get(h.id)!.kind === 'dir',
        objects: h.objects,
        reason: `this batch deletes ${plan.deleteObjects} objects, over the limit of ${plan.limit}`,
      };
      lists.push(() => core.local.addHeld(row));
    }
    activity.push({
      kind: 'held',
      path: '',
      summary: `held ${plan.held.length} delete(s) for confirmation`,
      reason: `held: ${plan.deleteObjects} deletes exceed the threshold (${plan.limit} = the smaller of ${core.threshold.count} objects and ${core.threshold.percent}% of ${model.objectCount()})`,
    });
  }
  for (const [id, u] of waiting) {
    const row = {
      id,
      path: paths.get(id)!,
      folder: model.get(id)!.kind === 'dir',
      objects: 1 + model.descendants(id).length,
      reason: `it held ${pathFor(core, u)}, which waits for your choice: deleting this folder on the NAS would delete that too (Delete deletes the folder with everything in it; Keep puts it back)`,
    };
    model.update(id, { state: 'held' });
    lists.push(() => core.local.addHeld(row));
    activity.push({
      kind: 'held',
      path: row.path,
      summary: 'held a folder delete: it holds an entry that waits for your choice',
      reason: row.reason,
    });
  }
  if (identity.by === 'place') {
    // What is gone keeps no inode of another mount: no later pairing may find it by one (a
    // read by place still looks for it, e.g. under a folder the user says was renamed).
    for (const id of [...pair.deletes, ...pair.uncertain.map((u) => u.id)]) {
      for (const d of [id, ...model.descendants(id)]) if (model.get(d)?.ino != null) model.update(d, { ino: UNVERIFIED_INO });
    }
  }
  if (pair.uncertain.length) {
    for (const u of pair.uncertain) {
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
      lists.push(() => core.local.addHeld(row));
    }
    activity.push({
      kind: 'held',
      path: '',
      summary: `held ${pair.uncertain.length} disappearance(s): renamed or deleted?`,
      reason: `${identity.by === 'place' ? identity.why : 'a file id reused by the disk, or an entry renamed and changed'}: an entry is gone and a new one of its kind appeared, but not everything that can be compared agrees; nothing is sent until you choose (It was renamed, Delete on the NAS, or Keep to put it back)`,
    });
  }
  if (pair.rebound.length && identity.by === 'place') {
    activity.push({
      kind: 'recognised',
      path: '',
      summary: `recognised ${pair.rebound.length} entr${pair.rebound.length === 1 ? 'y' : 'ies'} by place`,
      reason: `${identity.why}: every entry at its place is the same entry whatever its file id; nothing sent for them`,
    });
  }
  // Folders read now match the model: keep their stamps, except where something is still
  // unresolved (a disappearance within its hold) and must be read again after a restart.
  const unresolved = new Set(pair.carry.map((g) => model.get(g.id)?.lparent));
  const stampOfPath = new Map(scans.map((s) => [s.path, s.stamp]));
  for (const f of pair.folders) {
    const d = model.get(f.id);
    if (d && d.kind === 'dir' && d.state === 'ok' && !unresolved.has(d.id)) model.setStamp(d.id, stampOfPath.get(f.path));
  }
  // New entries the user made in a mirrored folder are created on the NAS; not a hard link to a
  // known entry, nor an appearance that may be a known entry changed (held: its candidates).
  // (also what an earlier batch named as where a held entry may have gone: until the user says, it may be that entry)
  const suspects = new Set(pair.uncertain.flatMap((u) => u.candidates));
  if (core.uploads && pair.localOnly.length) for (const h of core.local.held()) for (const c of h.candidates ?? []) suspects.add(c);
  // (nor an editor's temporary or backup file, `a~`, `.swp`, `~$doc`, `.~lock`..., as other sync clients skip them)
  // (nor an entry the NAS deleted while it was renamed or moved here: its inode is a tombstone)
  // (nor what looks like placeholders: an empty file, a folder holding only empty files: a copy
  // of placeholders, or placeholders of a folder the NAS deleted while it was renamed here;
  // soak seeds 7000, 7002. An empty folder is created: files are moved into new folders.)
  // The scans' entries by path: built only for a batch that found new entries (not for every read).
  const entryAt = new Map<string, DiskEntry>();
  if (core.uploads && pair.localOnly.length) {
    for (const [ino, until] of core.tombstones) if (until < now) core.tombstones.delete(ino);
    for (const sc of scans) for (const d of sc.entries) entryAt.set(sc.path === '' ? d.name : `${sc.path}/${d.name}`, d);
  }
  const deletedOnNas = (path: string): boolean => {
    const ino = entryAt.get(path)?.ino;
    return ino !== undefined && core.tombstones.has(ino);
  };
  const placeholderLikeAt = new Map<string, boolean>();
  const placeholderLike = (lo: { path: string; kind: string }): boolean => {
    let v = placeholderLikeAt.get(lo.path);
    if (v === undefined)
      placeholderLikeAt.set(lo.path, (v = lo.kind === 'file' ? (entryAt.get(lo.path)?.size ?? 0) === 0 : onlyEmptyFiles(core, lo.path)));
    return v;
  };
  type Creatable = LocalOnlyFind & { parent: string; kind: 'dir' | 'file' };
  const isCreatable = (lo: LocalOnlyFind): lo is Creatable =>
    core.uploads &&
    lo.fresh === true &&
    lo.parent !== undefined &&
    (lo.kind === 'dir' || lo.kind === 'file') &&
    !suspects.has(lo.path) &&
    !(lo.kind === 'file' && TEMPORARY.test(lo.name)) &&
    !deletedOnNas(lo.path) &&
    !placeholderLike(lo);
  // decided once per entry (a folder's test reads the disk below it)
  const fresh = pair.localOnly.filter(isCreatable);
  const freshSet = new Set<LocalOnlyFind>(fresh);
  const creatable = (lo: LocalOnlyFind): lo is Creatable => freshSet.has(lo);
  let created = 0;
  // Many new entries at once (a whole disk copied into the mirror by mistake) wait for the
  // user's word before anything goes up, like mass deletes: this batch's new entries (with
  // everything inside new folders) and those of the last minute not started yet.
  const approved = fresh.length ? core.creates.approvedFolders() : new Set<string>();
  const mass = fresh.length
    ? massUpload(
        core,
        fresh.filter((f) => !insideApproved(core, approved, f.parent)),
        entryAt,
        now,
      )
    : undefined;
  let seqs: number[] = [];
  core.db.transaction(() => {
    seqs = core.outbox.enqueue(entries);
    for (const w of lists) w();
    if (mass) core.creates.hold(mass.recent);
    for (const [id, base] of edits) if (core.creates.addVersion(id, base)) created++;
    // local-only entries: listed for the folders read now, and what left them dropped
    for (const lo of pair.localOnly) {
      if (creatable(lo)) {
        const refused = core.creates.refusedAt(lo.parent, lo.name);
        if (refused !== undefined) {
          core.local.addLocalOnly({ parent: lo.parent, name: lo.name }, lo.kind, `not on the NAS: ${refused}`);
          continue;
        }
        const added = core.creates.add(lo.kind, lo.parent, lo.name, mass !== undefined);
        if (added) created++;
        const waits = mass !== undefined || (!added && core.creates.isHeld(lo.parent, lo.name));
        core.local.addLocalOnly(
          { parent: lo.parent, name: lo.name },
          lo.kind,
          waits ? `new here: waits for your OK to upload${mass ? ` (${mass.why})` : ''}` : 'new here: being created on the NAS',
        );
        continue;
      }
      const why = !core.uploads
        ? 'not on the NAS: new files stay on this computer (uploads are off)'
        : lo.fresh === true && TEMPORARY.test(lo.name)
          ? "not on the NAS: an editor's temporary or backup file (not uploaded)"
          : deletedOnNas(lo.path)
            ? 'not on the NAS: it was deleted there while you renamed or moved it here (kept here, not created again)'
            : lo.fresh === true && lo.parent !== undefined && placeholderLike(lo)
              ? `not on the NAS: ${lo.kind === 'file' ? 'an empty file' : 'a folder holding only empty files'} looks like placeholders (a copy of some, or of a folder the NAS deleted): not uploaded; content put in it goes up`
              : lo.parent === undefined
                ? 'not on the NAS: inside a folder the NAS does not have (yet)'
                : 'not on the NAS: it may be an entry of the mirror changed (see held), or a second name of one (a hard link)';
      core.local.addLocalOnly(lo.parent === undefined ? { path: lo.path } : { parent: lo.parent, name: lo.name }, lo.kind, why);
    }
    pruneLocalOnly(core, scans, pair.folders, pair.localOnly);
    core.local.flush(model);
  })();
  plan.ops.forEach((op, i) => {
    const p = op as PatchOp;
    if (op.op === 'patch') {
      const what = p.parentID !== undefined && p.name !== undefined ? 'renamed and moved' : p.parentID !== undefined ? 'moved' : 'renamed';
      activity.push({
        kind: what === 'renamed' ? 'renamed' : 'moved',
        path: pathFor(core, op.id),
        summary: `${what}: ${paths.get(op.id) ?? ''} -> ${pathFor(core, op.id)} (queued #${seqs[i]})`,
        reason: op.reason,
        outboxSeq: seqs[i]!,
      });
    } else {
      activity.push({
        kind: 'deleted',
        path: paths.get(op.id)!,
        summary: `delete queued #${seqs[i]} (${op.objects} object(s))`,
        reason: op.reason,
        outboxSeq: seqs[i]!,
      });
    }
  });
  if (mass)
    activity.push({
      kind: 'held',
      path: '',
      summary: `held ${fresh.length} new item(s) for confirmation before uploading`,
      reason: `${mass.why}: approve to upload them (nas-mirror uploads approve all), or keep them on this computer only (reject)`,
    });
  for (const a of activity) core.activity(a);
  const reread = pair.moves.filter((m) => model.get(m.id)?.kind === 'dir').map((m) => pathFor(core, m.id));
  return { carry: pair.carry, enqueued: entries.length, held: plan.held.length, created, reread };
}

/** Editors' temporary and backup files (pair-moves' BACKUP, Office's `~$x`, LibreOffice's `.~lock.x#`, partial downloads): never uploaded. */
const TEMPORARY = new RegExp(`${BACKUP.source}|^~\\$|\\.(part|crdownload)$`, 'i');

/** In (or below) a folder made from a mass upload the user approved: approved with it. */
function insideApproved(core: LocalBatchPort, approved: ReadonlySet<string>, parent: string): boolean {
  if (approved.size === 0) return false;
  for (let cur: string | undefined = parent, guard = 0; cur !== undefined && cur !== '' && guard < 10_000; guard++) {
    if (approved.has(cur)) return true;
    cur = core.model.get(cur)?.lparent;
  }
  return false;
}

/**
 * A folder holding files, every one of them empty (read on the disk, up to 10,000 entries; more
 * is not "only placeholders"): what a copy of placeholders, or a renamed placeholder folder,
 * looks like. An empty folder is not (a new folder to move files into).
 */
function onlyEmptyFiles(core: LocalBatchPort, path: string): boolean {
  let files = 0;
  let seen = 0;
  for (const e of below(core, path)) {
    if (e.size === undefined || ++seen > 10_000) return false;
    if (e.dir) continue;
    if (e.size > 0) return false;
    files++;
  }
  return files > 0;
}

/**
 * What is below folder `path` on the disk, depth first, read as it is asked for: each entry's
 * path, kind and size (a file's lstat; `size` undefined: a folder that cannot be read, or a
 * file gone meanwhile).
 */
function* below(core: LocalBatchPort, path: string): Generator<{ path: string; dir: boolean; size: number | undefined }> {
  const stack = [path];
  while (stack.length) {
    const dir = stack.pop()!;
    let kids: { name: string; dir: boolean }[];
    try {
      kids = core.disk.readdirKinds(safeJoin(core.root, dir.split('/')));
    } catch {
      yield { path: dir, dir: true, size: undefined };
      continue;
    }
    for (const k of kids) {
      const p = `${dir}/${k.name}`;
      if (k.dir) {
        stack.push(p);
        yield { path: p, dir: true, size: 0 };
        continue;
      }
      let size: number | undefined;
      try {
        size = Number(core.disk.lstat(safeJoin(core.root, p.split('/'))).size);
      } catch {
        size = undefined;
      }
      yield { path: p, dir: false, size };
    }
  }
}

/** More bytes than this in new files at once wait for the user's word (5 GiB). */
export const MASS_UPLOAD_BYTES = 5 * 1024 ** 3;

/**
 * Whether these new entries (and everything inside the new folders, read from the disk: the
 * walk stops once over a limit) with the rows of the last minute not started yet make a mass
 * upload: more items than the delete limit's count, or more than MASS_UPLOAD_BYTES. Then the
 * recent rows to hold too, and why in words.
 */
function massUpload(
  core: LocalBatchPort,
  fresh: readonly { path: string; kind: string }[],
  entryAt: ReadonlyMap<string, DiskEntry>,
  now: number,
): { recent: number[]; why: string } | undefined {
  if (fresh.length === 0) return undefined;
  const limit = core.threshold.count;
  const recent = core.creates.recentPending(new Date(now - 60_000).toISOString());
  let items = recent.length + fresh.length;
  let bytes = 0;
  const over = (): boolean => items > limit || bytes > MASS_UPLOAD_BYTES;
  for (const f of fresh) if (f.kind === 'file') bytes += entryAt.get(f.path)?.size ?? 0;
  for (const f of fresh) {
    if (f.kind !== 'dir') continue;
    for (const e of below(core, f.path)) {
      if (over()) break;
      // (a folder that cannot be read is counted by the batch that finds what is in it)
      if (e.path === f.path || (e.dir && e.size === undefined)) continue;
      items++;
      bytes += e.size ?? 0;
    }
  }
  if (!over()) return undefined;
  const gb = (n: number): string => `${(n / 1024 ** 3).toFixed(1)} GB`;
  return {
    recent,
    why: items > limit ? `more than ${limit} new items at once` : `more than ${gb(MASS_UPLOAD_BYTES)} of new files at once`,
  };
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
