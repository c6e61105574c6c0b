/**
 * NAS -> disk: brings the placeholders in line with the mirror store (after each walk, and
 * after the outbox settles). Runs under the engine's lock. Renames and moves on the NAS are
 * renames on disk (one per folder), deletes are deletes (empty placeholders only); each is
 * logged. Our own writes update the model as they happen, so the watcher never sees them as
 * the user's.
 */
import { AppError } from '../../app/errors.js';
import { plural } from '../../app/util/human.js';
import type { RemoteObject } from '../../app/model/remote-object.js';
import { planRemote, type RemoteChangeNote, type RemotePlan } from '../local/remote-plan.js';
import { writePlaceholders, type WriteReport } from '../local/placeholders.js';
import { followHeldContent } from '../local/held-content.js';
import { pinOf } from '../local/pins.js';
import { lstatBig } from '../local/analyse.js';
import { recordStamps } from '../local/dir-stamps.js';
import type { MirrorStore } from '../mirror/store.js';
import type { Core } from './core.js';

/** What a reconcile uses of the engine's context (the model is replaced when the root first appears). */
export type ReconcilePort = Pick<
  Core,
  'root' | 'store' | 'model' | 'outbox' | 'creates' | 'uploads' | 'tombstones' | 'local' | 'traits' | 'disk' | 'log' | 'activity'
>;

export interface ReconcileResult {
  created: number;
  moved: number;
  removed: number;
  refused: number;
  /** New on the NAS (placed or not). */
  added: number;
  /** Ids to plan again later: placements that failed, objects whose folder is not known yet. */
  retry: string[];
  /** The disk refused a write (EIO, EACCES, ENOSPC...): said in the status; nothing was lost, it is tried again. */
  diskError?: AppError | undefined;
  /**
   * Folders (paths) where the disk changed and was not read yet (an entry's place holds
   * another): the local side reads them.
   */
  reread?: string[];
  /** Folders (paths) this reconcile moved or renamed on disk: their watches are made afresh (local-rounds.ts `movedFolders`). */
  movedDirs?: string[];
}

/**
 * Reconciles; `stale` = ids we changed on the NAS after the store's last walk began; `only`
 * = the ids the store changed since the last reconcile (absent: everything). The "placed
 * new placeholders" activity line is left to the caller (`noteAdded`), which may sum many
 * partial reconciles of one walk into one line.
 */
export function reconcile(core: ReconcilePort, stale: ReadonlySet<string> = new Set(), only?: ReadonlySet<string>): ReconcileResult {
  const rootObj = core.store.root();
  if (!rootObj) return { created: 0, moved: 0, removed: 0, refused: 0, added: 0, retry: only ? [...only] : [] };
  const { model } = core;
  placeRoot(core, rootObj);
  // files holding a downloaded version: a new version on the NAS empties them (or keeps the user's edit)
  if (model.withContent.size > 0) followContent(core, only);
  const pathsBefore = new Map<string, string>();
  const objects = only ? objectsOf(core.store, only) : (core.store.all() as Iterable<RemoteObject>);
  const creating = core.creates.inFlight().places;
  const plan = planRemote({
    model,
    rootId: rootObj.id,
    objects,
    pending: core.outbox.pendingIds(),
    traits: core.traits,
    stale,
    ...(only ? { only } : {}),
    ...(creating.size ? { creating } : {}),
  });
  for (const n of plan.notes)
    if (n.kind === 'removed' || n.kind === 'renamed' || n.kind === 'moved') pathsBefore.set(n.id, core.model.pathOf(n.id) ?? '');
  const rep = writePlaceholders(core.root, model, plan, core.disk);
  const until = Date.now() + 10 * 60_000;
  for (const ino of rep.tombstones) core.tombstones.set(ino, until);
  const { added, refused } = sayNotes(core, plan.notes, pathsBefore);
  sayReport(core, plan, rep);
  recordStamps(core.root, model, rep.touchedDirs, core.disk);
  core.local.flush(model);
  const retry = [...rep.failed.map((f) => f.id), ...plan.deferred, ...plan.waiting];
  // objects whose folder the model does not have yet (a partial plan met the child first)
  if (only) {
    const refusedNow = new Set(plan.notes.filter((n) => n.kind === 'refused').map((n) => n.id));
    for (const id of only) if (!model.get(id) && !refusedNow.has(id) && core.store.getJson(id) !== undefined) retry.push(id);
  }
  const diskError = diskErrorOf(rep);
  const reread = [...new Set([...rep.reread].map((id) => model.pathOf(id) ?? ''))];
  const failed = new Set(rep.failed.map((f) => f.id));
  const movedDirs = plan.placements
    .filter((p) => p.how === 'move' && !failed.has(p.id) && model.get(p.id)?.kind === 'dir')
    .map((p) => model.pathOf(p.id))
    .filter((x): x is string => x !== undefined);
  return {
    created: rep.created,
    moved: rep.moved,
    removed: rep.removed,
    refused,
    added,
    retry,
    diskError,
    ...(reread.length ? { reread } : {}),
    ...(movedDirs.length ? { movedDirs } : {}),
  };
}

/** The mirror root in the model: put there when it first appears, its inode as the disk has it now. */
function placeRoot(core: ReconcilePort, rootObj: RemoteObject): void {
  const { model } = core;
  if (!model.get(rootObj.id)) {
    const st = lstatBig(core.root, core.disk);
    model.put({
      id: rootObj.id,
      kind: 'dir',
      lparent: '',
      lname: '',
      ino: st ? st.ino.toString() : null,
      filled: false,
      rparent: '',
      rname: rootObj.name,
      etag: rootObj.eTag,
      mtime: rootObj.mTime,
      setag: rootObj.eTag,
      state: 'ok',
    });
  } else {
    const st = lstatBig(core.root, core.disk);
    if (st && model.get(rootObj.id)!.ino !== st.ino.toString()) model.update(rootObj.id, { ino: st.ino.toString() });
  }
}

/** Files holding a downloaded version follow the NAS: a new version there empties them (or keeps the user's edit). */
function followContent(core: ReconcilePort, only: ReadonlySet<string> | undefined): void {
  const { model } = core;
  const pins = core.local.pins();
  const pinned = (id: string): boolean => pinOf(model, pins, id) !== undefined;
  const object = (id: string): RemoteObject | undefined => core.store.get(id);
  const edited = (id: string, base: string): boolean => {
    if (core.uploads) core.creates.addVersion(id, base);
    return core.uploads;
  };
  followHeldContent({ root: core.root, model, disk: core.disk, object, activity: (a) => core.activity(a), pinned, edited }, only);
}

/** Says the plan's notes in the activity log (a refused name once per change of it): how many were new, how many refused. */
function sayNotes(
  core: ReconcilePort,
  notes: readonly RemoteChangeNote[],
  pathsBefore: ReadonlyMap<string, string>,
): { added: number; refused: number } {
  const { model } = core;
  let added = 0;
  let refused = 0;
  for (const n of notes) {
    if (n.kind === 'added') {
      added++;
      continue;
    }
    if (n.kind === 'metadata') continue;
    if (n.kind === 'refused') {
      refused++;
      if (core.local.meta(`refused:${n.id}`) !== n.detail) {
        core.local.setMeta(`refused:${n.id}`, n.detail);
        // an entry the disk already shows stays where it is (never removed as if deleted)
        const here = model.pathOf(n.id);
        core.log.warn('refused: unsafe name', { id: n.id, reason: n.detail });
        core.activity({
          kind: 'refused',
          path: here ?? `(${n.id})`,
          summary: 'refused: unsafe name',
          reason: `${n.detail}; ${here !== undefined ? 'kept here under its last safe name' : 'nothing written for it or below it'}`,
        });
      }
      continue;
    }
    const now = model.pathOf(n.id);
    core.activity({
      kind: `remote-${n.kind}` as const,
      path: now ?? pathsBefore.get(n.id) ?? `(${n.id})`,
      summary: n.kind === 'removed' ? `removed placeholder ${pathsBefore.get(n.id)}` : `${pathsBefore.get(n.id)} -> ${now}`,
      reason: n.detail,
    });
  }
  return { added, refused };
}

/** Records and says what the writer kept local only, and what it could not do (those entries keep their old base). */
function sayReport(core: ReconcilePort, plan: RemotePlan, rep: WriteReport): void {
  const { model } = core;
  for (const k of rep.keptLocal) {
    core.local.addLocalOnly({ path: k.to }, 'moved', k.reason);
    core.activity({ kind: 'local-only', path: k.to, summary: `kept ${k.from} as local only`, reason: k.reason });
  }
  // A NAS change that could not reach the disk (the user moved the placeholder meanwhile) is
  // not "seen": its base goes back, so the user's move meets If-Match with the old eTag (412).
  for (const f of rep.failed) {
    const b = plan.baseBefore.get(f.id);
    if (b && model.get(f.id)) model.update(f.id, b);
  }
  for (const f of rep.failed)
    core.activity({ kind: 'error', path: model.pathOf(f.id) ?? `(${f.id})`, summary: 'could not update a placeholder', reason: f.reason });
}

/** The first write the disk refused, as the status says it (undefined when none was). */
function diskErrorOf(rep: WriteReport): AppError | undefined {
  const bad = rep.failed.find((f) => f.errno !== undefined);
  return (
    bad &&
    new AppError(
      'DiskError',
      `the mirror folder refused a write (${bad.errno}): ${bad.reason}; nothing was lost or sent, it is tried again`,
      { detail: bad.errno },
    )
  );
}

/** One activity line for the placeholders a walk (or a reconcile) placed. */
export function noteAdded(core: Pick<Core, 'activity'>, created: number, added: number): void {
  if (added > 0 || created > 0)
    core.activity({
      kind: 'remote-added',
      path: '',
      summary: `placed ${plural(created, 'new placeholder', 'new placeholders')}`,
      reason: `${plural(added, 'object', 'objects')} new on the NAS`,
    });
}

/** The current stored versions of these ids (absent ids are gone from the store). */
function* objectsOf(store: MirrorStore, ids: ReadonlySet<string>): IterableIterator<RemoteObject> {
  const all = [...ids];
  for (let i = 0; i < all.length; i += 500) yield* store.getMany(all.slice(i, i + 500)).values();
}
