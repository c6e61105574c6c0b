/**
 * Organize, step 1 of plan -> apply -> undo: from a search query (operators allowed) or a
 * hand-picked list of object ids, and a rename and/or move pattern, the list of every change,
 * computed offline from the mirror.
 * Nothing is created: a target folder that does not exist makes its items `missing-folder`
 * and is listed once. Collisions are flagged, never resolved: a target name held by any
 * object there now (even one this batch renames away: the outbox sends in order, and a swap
 * would need a name nobody has), or by an earlier item of the batch.
 */
import { MAX_ORGANIZE, type OrganizeArgs, type OrganizePlan, type PlanItem, type PlanStatus } from '../../app/contract/organize-shapes.js';
import { AppError } from '../../app/errors.js';
import { nameProblem } from '../../app/model/names.js';
import { isFolder, type RemoteObject } from '../../app/model/remote-object.js';
import { parseFilters } from '../../app/filters/filters.js';
import { fill, parsePattern, type Pattern } from '../../app/organize/pattern.js';
import { searchFiltered, type DeviceSource } from '../index/filtered-search.js';
import type { ObjectFacts } from '../index/object-facts.js';
import type { OfflineIndex } from '../index/offline-index.js';

const bad = (m: string): AppError => new AppError('BadRequest', m, { status: 400 });

function patternOf(src: string | undefined, what: string): Pattern | undefined {
  if (src === undefined || src.trim() === '') return undefined;
  const p = parsePattern(src);
  if (!p.ok) throw bad(`${what} pattern: ${p.message}`);
  return p.pattern;
}

/**
 * Every object the query finds, in its order, up to one batch. Files only, unless the query
 * asks for folders (`kind:folder`): a pattern meant for photos must not rename their folders.
 * `device`: what an `on:` operator reads (filtered-search.ts).
 */
export function selection(index: OfflineIndex, q: string, device?: DeviceSource): { objects: RemoteObject[]; truncated: boolean } {
  const objects: RemoteObject[] = [];
  const parsed = parseFilters(q);
  const folders = parsed.ok && parsed.query.filters.some((f) => f.op === 'kind' && f.kinds.includes('folder'));
  let token = '';
  for (;;) {
    const page = searchFiltered(index, q, { limit: 1000, pageToken: token, device });
    for (const m of page.matches) {
      if (!folders && isFolder(m.file)) continue;
      if (objects.length === MAX_ORGANIZE) return { objects, truncated: true };
      objects.push(m.file);
    }
    if (page.pageToken === '') return { objects, truncated: false };
    token = page.pageToken;
  }
}

/** A picked id the mirror does not hold: reported in the plan, never thrown. */
interface Unknown {
  unknown: string;
}

/**
 * The picked objects in the given order (files and folders alike: the user chose them), each
 * id once; an id the mirror does not hold (or the top folder) stays in place as a problem.
 */
export function picked(index: OfflineIndex, ids: readonly string[]): (RemoteObject | Unknown)[] {
  const once = [...new Set(ids)];
  const found = index.store.getMany(once);
  const rootId = index.facts().rootId;
  return once.map((id) => {
    const o = found.get(id);
    return o && id !== rootId && index.facts().get(id) ? o : { unknown: id };
  });
}

const unknownItem = (id: string): PlanItem => ({
  id,
  from: '',
  to: '',
  name: null,
  parentId: null,
  status: 'invalid',
  problem: `no object with id ${id} in the mirror (deleted, or never there)`,
});

export function buildPlan(index: OfflineIndex, args: OrganizeArgs, device?: DeviceSource): OrganizePlan {
  const rename = patternOf(args.rename, 'rename');
  const move = patternOf(args.move, 'move');
  if (!rename && !move) throw bad('give a rename pattern, a move pattern, or both');
  const facts = index.facts();
  const picks = args.ids ? picked(index, args.ids) : undefined;
  const { objects, truncated } = picks
    ? { objects: picks.filter((o): o is RemoteObject => !('unknown' in o)), truncated: false }
    : selection(index, args.q ?? '', device);
  const run: PlanRun = {
    facts,
    rename,
    move,
    objects,
    taken: new Map<string, Set<string>>(),
    missing: new Set<string>(),
    counts: { ok: 0, unchanged: 0, collision: 0, invalid: 0, missingFolder: 0 },
  };
  const { counts, missing } = run;
  let n = 0;
  const items: PlanItem[] = picks
    ? picks.map((o) => {
        if ('unknown' in o) {
          counts.invalid++;
          return unknownItem(o.unknown);
        }
        return planOne(run, o, n++);
      })
    : objects.map((o, i) => planOne(run, o, i));
  return { items, counts, missingFolders: [...missing].sort(), ...(truncated ? { truncated: true } : {}) };
}

/** What planning a batch works with and gathers as it goes. */
interface PlanRun {
  readonly facts: ObjectFacts;
  readonly rename: Pattern | undefined;
  readonly move: Pattern | undefined;
  /** The batch's objects (for the collision message). */
  readonly objects: readonly RemoteObject[];
  /** Per target folder: the names held there now, and those taken by earlier items. */
  readonly taken: Map<string, Set<string>>;
  readonly missing: Set<string>;
  readonly counts: OrganizePlan['counts'];
}

/** The names held in a folder now and taken by earlier items of the batch. */
function namesIn(run: PlanRun, folderId: string): Set<string> {
  const { facts, taken } = run;
  let s = taken.get(folderId);
  if (!s) taken.set(folderId, (s = new Set(facts.children(folderId).map((id) => facts.get(id)!.name))));
  return s;
}

/** The change planned for object o, the (i+1)-th of the batch, counted by status. */
function planOne(run: PlanRun, o: RemoteObject, i: number): PlanItem {
  const { facts, rename, move, missing } = run;
  const parentName = facts.get(o.parentID)?.name ?? '';
  const from = facts.pathOf(o.id);
  const newName = rename ? fill(rename, o, i + 1, parentName) : o.name;
  let targetId = o.parentID;
  let targetPath = facts.pathOf(o.parentID);
  let status: PlanStatus = 'ok';
  let problem: string | undefined;
  if (move) {
    targetPath = fill(move, o, i + 1, parentName)
      .split('/')
      .filter((s) => s !== '')
      .join('/');
    const found = facts.folderAt(targetPath);
    if (found === undefined) {
      status = 'missing-folder';
      problem = `no folder /${targetPath} on the NAS (the interface cannot create folders)`;
      missing.add(`/${targetPath}`);
    } else targetId = found;
  }
  const to = targetPath ? `${targetPath}/${newName}` : newName;
  const why = nameProblem(newName);
  if (status === 'ok' && why) {
    status = 'invalid';
    problem = why;
  }
  if (status === 'ok' && isFolder(o) && (targetId === o.id || facts.isUnder(targetId, o.id))) {
    status = 'invalid';
    problem = 'a folder cannot move into itself';
  }
  const sameName = newName === o.name,
    samePlace = targetId === o.parentID;
  if (status === 'ok' && sameName && samePlace) status = 'unchanged';
  if (status === 'ok') {
    const names = namesIn(run, targetId);
    if (names.has(newName)) {
      status = 'collision';
      const ours = run.objects.some((x) => x.name === newName && x.parentID === targetId);
      problem = `/${to} already exists${ours ? ' (held by an object of this batch)' : ''}`;
    } else names.add(newName);
  }
  run.counts[status === 'missing-folder' ? 'missingFolder' : status]++;
  return {
    id: o.id,
    ...(isFolder(o) ? { folder: true } : {}),
    from,
    to,
    name: sameName ? null : newName,
    parentId: samePlace ? null : targetId,
    status,
    ...(problem ? { problem } : {}),
  };
}
