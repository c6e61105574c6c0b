/**
 * What the disk must do so the local tree shows the NAS (remote -> local). Pure: takes the
 * model and the mirror store's objects, updates the model's remote base for NAS changes, and
 * returns placements (create or move, parents first) and removals. Entries with an unsettled
 * outbox change, held or being deleted keep their local placement: the user's intent wins
 * on disk until the NAS has answered. Names the network sends that are unsafe are refused.
 * With `only`, the plan covers just those ids (what the store changed since the last plan):
 * `objects` then holds their current versions, an id absent from it is gone from the store,
 * and only the folders they leave or enter get their local names assigned again. The cost
 * follows what changed, not what exists.
 */
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import type { FsTraits } from './fs-traits.js';
import { assignLocalNames, refuseRemoteName, RESERVED_DIR } from './local-names.js';
import type { LocalEntry, LocalModel } from './model.js';

export interface Placement {
  id: string;
  parent: string;
  name: string;
  /** create: not on disk yet; move: on disk elsewhere. */
  how: 'create' | 'move';
}

export interface RemoteChangeNote {
  id: string;
  kind: 'renamed' | 'moved' | 'added' | 'removed' | 'refused' | 'metadata';
  detail: string;
}

export interface RemotePlan {
  /** Parents before children. */
  placements: Placement[];
  /** Top-most ids whose placeholders must go (NAS deleted them). */
  removals: string[];
  /** Top-most ids the NAS deleted that stay on disk for now: the user has an unanswered change under them. */
  deferred: string[];
  /** Files whose mtime must be set. */
  touch: string[];
  /**
   * Ids not placed because their folder chain loops through an entry the user holds in place
   * (the user moved A into B while the NAS moved B into A): planned again once that is answered.
   */
  waiting: string[];
  notes: RemoteChangeNote[];
  /** The remote base of each entry updated here, as it was (to undo it if the disk step fails). */
  baseBefore: Map<string, Pick<LocalEntry, 'rname' | 'rparent' | 'etag' | 'setag' | 'mtime'>>;
}

export interface RemotePlanInput {
  model: LocalModel;
  rootId: string;
  objects: Iterable<RemoteObject>;
  /** Ids with an unsettled outbox entry. */
  pending: ReadonlySet<string>;
  traits: FsTraits;
  /** Ids the NAS changed through us since the walk that filled the store began (stale view). */
  stale?: ReadonlySet<string>;
  /** Plan only these ids (see the header); absent = every entry and object. */
  only?: ReadonlySet<string>;
  /**
   * Places ("parent id\0name") where the user's new entry is being created on the NAS: a new
   * NAS object there is that entry, bound by the creator (engine/creates.ts), never placed
   * beside it as a placeholder.
   */
  creating?: ReadonlySet<string>;
}

export function planRemote({ model, rootId, objects, pending, traits, stale, only, creating }: RemotePlanInput): RemotePlan {
  const pl: Planning = { model, rootId, pending, stale, only, notes: [] };
  const { remote, refusedIds } = readObjects(pl, objects);
  // 1. Remote base follows the NAS for entries the user is not changing.
  const base = followBase(pl, remote, refusedIds);
  const added = addNew(pl, remote, creating, base.touched);
  const addedIds = new Set(added.map((o) => o.id));
  const removed = new Set(base.removedIds);
  const { removals, deferred, carried } = planRemovals(pl, base.removedIds, removed);
  // 2. Desired local names, folder by folder.
  const desired = desiredNames(pl, traits, removed, { checked: base.checked, added, carried, touched: base.touched });
  // 3. Placements, parents first; only under a live placed-or-placing folder.
  const { placements, waiting } = placeAll(pl, desired, removed);
  const touch: string[] = [];
  for (const n of pl.notes) if (n.kind === 'metadata' && model.get(n.id)?.kind === 'file' && !addedIds.has(n.id)) touch.push(n.id);
  return { placements, removals, deferred, touch, notes: pl.notes, baseBefore: base.baseBefore, waiting };
}

/** A plan being made: what each step reads of the input, and the notes they write. */
interface Planning {
  model: LocalModel;
  rootId: string;
  pending: ReadonlySet<string>;
  stale: ReadonlySet<string> | undefined;
  only: ReadonlySet<string> | undefined;
  notes: RemoteChangeNote[];
}

/** An entry the user is changing (an unsettled change, held or being deleted, a stale view): it keeps its local placement. */
const isFixed = (pl: Planning, e: LocalEntry): boolean => pl.pending.has(e.id) || e.state !== 'ok' || (pl.stale?.has(e.id) ?? false);

/** The NAS's objects by id, but for the root and those under a name we refuse (noted; their ids apart). */
function readObjects(pl: Planning, objects: Iterable<RemoteObject>): { remote: Map<string, RemoteObject>; refusedIds: Set<string> } {
  const remote = new Map<string, RemoteObject>();
  // Objects present on the NAS under a name we refuse: never a delete of what the user has.
  const refusedIds = new Set<string>();
  for (const o of objects) {
    const why = refuseRemoteName(o.name);
    if (why !== undefined || o.id === pl.rootId || o.id === o.parentID) {
      if (why !== undefined) {
        refusedIds.add(o.id);
        pl.notes.push({ id: o.id, kind: 'refused', detail: `unsafe name ${JSON.stringify(o.name)}: ${why}` });
      }
      continue;
    }
    remote.set(o.id, o);
  }
  return { remote, refusedIds };
}

/** What following the NAS's base found: what it removed, the bases it changed, the folders touched. */
interface Base {
  removedIds: string[];
  baseBefore: RemotePlan['baseBefore'];
  /** Folders whose children change (partial plans assign names again only there). */
  touched: Set<string>;
  /** The entries a partial plan covers, as they were. */
  checked: LocalEntry[];
}

/** The remote base follows the NAS for entries the user is not changing; what the NAS no longer has is removed. */
function followBase(pl: Planning, remote: ReadonlyMap<string, RemoteObject>, refusedIds: ReadonlySet<string>): Base {
  const { model, only, notes } = pl;
  const removedIds: string[] = [];
  const baseBefore: RemotePlan['baseBefore'] = new Map();
  const touched = new Set<string>();
  const checked: LocalEntry[] = [];
  if (only)
    for (const id of only) {
      const e = model.get(id);
      if (e) checked.push(e);
    }
  for (const e of only ? checked : [...model.entries()]) {
    if (e.id === pl.rootId) continue;
    const o = remote.get(e.id);
    if (!o) {
      if (refusedIds.has(e.id)) continue; // renamed on the NAS to a name we refuse: it stays as it is here
      if (!pl.pending.has(e.id) && !(pl.stale?.has(e.id) ?? false)) removedIds.push(e.id);
      if (only) touched.add(e.rparent);
      continue;
    }
    // (and the folder it is in on disk: it may leave it now, and a name it held there is free
    // again for a sibling given another local name meanwhile; soak seed 10012 r14)
    if (only) touched.add(e.rparent).add(o.parentID).add(e.lparent);
    if (isFixed(pl, e) || o.eTag === e.setag) continue;
    if (o.name !== e.rname)
      notes.push({ id: e.id, kind: 'renamed', detail: `renamed on the NAS: ${JSON.stringify(e.rname)} -> ${JSON.stringify(o.name)}` });
    if (o.parentID !== e.rparent) notes.push({ id: e.id, kind: 'moved', detail: 'moved on the NAS to another folder' });
    if (o.name === e.rname && o.parentID === e.rparent)
      notes.push({ id: e.id, kind: 'metadata', detail: `metadata changed on the NAS (eTag ${e.etag} -> ${o.eTag})` });
    baseBefore.set(e.id, { rname: e.rname, rparent: e.rparent, etag: e.etag, setag: e.setag, mtime: e.mtime });
    model.update(e.id, { rname: o.name, rparent: o.parentID, etag: o.eTag, setag: o.eTag, mtime: o.mTime });
  }
  return { removedIds, baseBefore, touched, checked };
}

/** New objects join the model (only under a folder the model has, or will have): every new object, put or not. */
function addNew(
  pl: Planning,
  remote: ReadonlyMap<string, RemoteObject>,
  creating: ReadonlySet<string> | undefined,
  touched: Set<string>,
): RemoteObject[] {
  const { model, rootId } = pl;
  const added: RemoteObject[] = [];
  for (const o of remote.values()) if (!model.get(o.id) && !(creating?.has(`${o.parentID}\0${o.name}`) ?? false)) added.push(o);
  for (const o of added) {
    if (!hasChain(o.id, remote, model, rootId)) continue;
    const kind = o.mimeType === FOLDER_MIME ? 'dir' : 'file';
    model.put({
      id: o.id,
      kind,
      lparent: o.parentID,
      lname: '',
      ino: null,
      filled: false,
      rparent: o.parentID,
      rname: o.name,
      etag: o.eTag,
      mtime: o.mTime,
      setag: o.eTag,
      state: 'ok',
    });
    if (pl.only) touched.add(o.parentID);
    pl.notes.push({ id: o.id, kind: 'added', detail: `added on the NAS (${kind})` });
  }
  return added;
}

/**
 * The top-most removed entries: removed now, or deferred while something under them has a
 * change of the user's; and what under them goes back where the NAS still has it (`carried`).
 */
function planRemovals(
  pl: Planning,
  removedIds: readonly string[],
  removed: ReadonlySet<string>,
): { removals: string[]; deferred: string[]; carried: string[] } {
  const { model, rootId, pending, stale } = pl;
  // What the user moved into a folder the NAS deleted and the NAS still has elsewhere goes back
  // where the NAS has it (placed below like any move; the writer takes it out before the folder goes).
  const remotelyGone = (id: string): boolean => {
    let cur = model.get(id)?.rparent;
    for (let guard = 0; cur !== undefined && cur !== rootId && guard < 10_000; guard++) {
      if (removed.has(cur) || !model.get(cur)) return true;
      cur = model.get(cur)!.rparent;
    }
    return false;
  };
  // A folder the NAS deleted waits while something under it here has a change of the user's not
  // yet answered (a move into it meets 404 and the object goes back where the NAS still has it:
  // removing the folder now would take that object off the disk). Planned again (`deferred`).
  const deferred: string[] = [];
  const removals: string[] = [];
  const carried: string[] = [];
  for (const id of removedIds) {
    if (removed.has(model.get(id)!.lparent)) continue; // top-most only
    const below = model.descendants(id);
    if (below.some((d) => pending.has(d) || (stale?.has(d) ?? false))) {
      deferred.push(id);
      continue;
    }
    removals.push(id);
    pl.notes.push({ id, kind: 'removed', detail: 'deleted on the NAS' });
    for (const d of below) if (!removed.has(d) && !remotelyGone(d)) carried.push(d);
  }
  return { removals, deferred, carried };
}

/** What a partial plan assigns names again for: the entries it covers, the new ones, the carried ones, the folders touched. */
interface Scope {
  checked: readonly LocalEntry[];
  added: readonly RemoteObject[];
  carried: readonly string[];
  touched: Set<string>;
}

/** Each entry's desired local place (its NAS folder, a local name), assigned folder by folder. */
function desiredNames(
  pl: Planning,
  traits: FsTraits,
  removed: ReadonlySet<string>,
  { checked, added, carried, touched }: Scope,
): Map<string, { parent: string; name: string }> {
  const { model, rootId } = pl;
  const desired = new Map<string, { parent: string; name: string }>();
  const byParent = new Map<string, LocalEntry[]>();
  const fixedNames = new Map<string, string[]>();
  const group = (e: LocalEntry, onlyIn?: string): void => {
    if (e.id === rootId || removed.has(e.id)) return;
    if (isFixed(pl, e)) {
      if (e.ino !== null && e.state === 'ok' && (onlyIn === undefined || e.lparent === onlyIn))
        (fixedNames.get(e.lparent) ?? fixedNames.set(e.lparent, []).get(e.lparent)!).push(e.lname);
      return;
    }
    if (onlyIn === undefined || e.rparent === onlyIn) (byParent.get(e.rparent) ?? byParent.set(e.rparent, []).get(e.rparent)!).push(e);
  };
  if (!pl.only) for (const e of model.entries()) group(e);
  else {
    // A touched folder's siblings: what is placed in it locally, and what the NAS moves into it now.
    const movingIn = new Map<string, string[]>();
    // (the entries as they are now: step 1 replaced the objects of those it updated)
    for (const id of [...checked.map((e) => e.id), ...added.map((o) => o.id), ...carried]) {
      const e = model.get(id);
      if (e) (movingIn.get(e.rparent) ?? movingIn.set(e.rparent, []).get(e.rparent)!).push(e.id);
    }
    for (const id of carried) touched.add(model.get(id)!.rparent);
    for (const parent of touched) {
      const members = new Set([...model.children(parent), ...(movingIn.get(parent) ?? [])]);
      for (const id of members) {
        const e = model.get(id);
        if (e) group(e, parent);
      }
    }
  }
  for (const [parent, sibs] of byParent) {
    const taken = [...(fixedNames.get(parent) ?? []), ...(parent === rootId ? [RESERVED_DIR] : [])];
    const names = assignLocalNames(
      sibs.map((s) => ({ id: s.id, name: s.rname })),
      traits,
      taken,
    );
    for (const s of sibs) desired.set(s.id, { parent, name: names.get(s.id)! });
  }
  return desired;
}

/**
 * Placements, parents first; only under a live placed-or-placing folder. What is not placed
 * because its folder chain loops (through an entry the user holds in place) waits.
 */
function placeAll(
  pl: Planning,
  desired: ReadonlyMap<string, { parent: string; name: string }>,
  removed: ReadonlySet<string>,
): { placements: Placement[]; waiting: string[] } {
  const { model, rootId } = pl;
  const live = new Map<string, boolean>();
  // being decided (a chain that meets one of these again loops) / decided false because of a loop
  const visiting = new Set<string>();
  const loops = new Set<string>();
  const isLive = (id: string): boolean => {
    if (id === rootId) return true;
    const c = live.get(id);
    if (c !== undefined) return c;
    if (visiting.has(id)) {
      loops.add(id);
      return false;
    }
    visiting.add(id);
    const e = model.get(id);
    const d = desired.get(id);
    const parent = d ? d.parent : e?.lparent;
    const v =
      !!e &&
      e.state === 'ok' &&
      !removed.has(id) &&
      parent !== undefined &&
      model.get(parent)?.kind !== 'file' &&
      isLive(parent) &&
      !(parent !== rootId && !model.get(parent));
    visiting.delete(id);
    if (!v && parent !== undefined && loops.has(parent)) loops.add(id);
    live.set(id, v);
    return v;
  };
  const placements: Placement[] = [];
  const depthOf = (id: string): number => {
    let n = 0;
    for (let cur = id; cur !== rootId && n < 10_000; n++) cur = desired.get(cur)?.parent ?? model.get(cur)?.lparent ?? rootId;
    return n;
  };
  const waiting: string[] = [];
  for (const [id, d] of desired) {
    const e = model.get(id)!;
    if (!isLive(id)) {
      if (loops.has(id)) waiting.push(id);
      continue;
    }
    if (e.ino === null) placements.push({ id, parent: d.parent, name: d.name, how: 'create' });
    else if (e.lparent !== d.parent || e.lname !== d.name) placements.push({ id, parent: d.parent, name: d.name, how: 'move' });
  }
  const depth = new Map(placements.map((p) => [p.id, depthOf(p.id)]));
  placements.sort((a, b) => depth.get(a.id)! - depth.get(b.id)!);
  return { placements, waiting };
}

function hasChain(id: string, remote: ReadonlyMap<string, RemoteObject>, model: LocalModel, rootId: string): boolean {
  let cur = remote.get(id)?.parentID;
  for (let guard = 0; cur !== undefined && guard < 10_000; guard++) {
    if (cur === rootId || model.get(cur)) return true;
    cur = remote.get(cur)?.parentID;
  }
  return false;
}
