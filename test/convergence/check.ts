/**
 * The invariants checked after each settled round. Each violation says what is wrong, on
 * which object, and what the world explains about it, so a failure reads as a divergence,
 * not as a diff:
 * 1. the engine never exited on its own;
 * 2. no NAS object lost that nobody deleted (a delete by the user of it or of a folder the
 *    user saw it in, not rejected; a delete on the NAS of it or of a folder it was or was
 *    meant to be in); no object appears from nowhere;
 * 3. no name or parent on the NAS that no one asked for (the start, or any intent of either
 *    side the NAS accepted: a conflict where the NAS wins is fine);
 * 4. what the engine wrote: only the user's names and folders (or its own temporary swap
 *    name), never more applied PATCHes on an object than the user's changes of it (a second
 *    PATCH applying the same change), at most one applied DELETE per object and only of what
 *    the user deleted;
 * 5. the disk equals the NAS (names as the engine maps them), except the held deletes and
 *    the user's own files, which are in the local-only list until the engine uploaded them
 *    (then the NAS has them where the disk has them), and that list names only what is on
 *    disk; none of the user's own files is lost. An object new on the NAS is one of the
 *    user's own files, uploaded.
 */
import { POSIX_TRAITS } from '../../main/local/fs-traits.js';
import { assignLocalNames, RESERVED_DIR } from '../../main/local/local-names.js';
import { tempName } from '../../main/local/plan.js';
import type { DiskEntry } from './disk.js';
import type { EngineView } from './engine.js';
import type { WriteRecord } from './link.js';
import type { NasTree } from './nas.js';
import type { LocalCreates, RoundWorld } from './world.js';

export interface CheckInput {
  world: RoundWorld;
  end: NasTree;
  /** The mirror folder, `.nas-mirror` excluded. */
  disk: Map<string, DiskEntry>;
  /** The mirror folder with `.nas-mirror` (local-only area). */
  diskAll: Map<string, DiskEntry>;
  view: EngineView;
  /** The engine's writes during the round. */
  writes: readonly WriteRecord[];
  creates: LocalCreates;
  unexpectedExits: readonly string[];
}

const q = (s: string | undefined): string => (s === undefined ? '(unknown)' : `"${s}"`);
const list = (s: Iterable<string>): string => [...s].map((x) => `"${x}"`).join(', ');
const applied = (w: WriteRecord): boolean => w.status >= 200 && w.status < 300;
/** The request may have been applied (answered 2xx, or no answer was seen). */
const maybeApplied = (w: WriteRecord): boolean => applied(w) || w.status === 0;

/** The local paths the NAS tree should have on disk: path -> object (names mapped as the engine maps them). */
export function expectedPaths(t: NasTree, skip: ReadonlySet<string>): Map<string, { id: string; dir: boolean }> {
  const out = new Map<string, { id: string; dir: boolean }>();
  const walk = (id: string, prefix: string): void => {
    const kids = t.children(id).filter((c) => !skip.has(c.id));
    const names = assignLocalNames(
      kids.map((k) => ({ id: k.id, name: k.name })),
      POSIX_TRAITS,
      id === t.rootId ? [RESERVED_DIR] : [],
    );
    for (const k of kids) {
      const p = prefix === '' ? names.get(k.id)! : `${prefix}/${names.get(k.id)!}`;
      out.set(p, { id: k.id, dir: k.dir });
      if (k.dir) walk(k.id, p);
    }
  };
  walk(t.rootId, '');
  return out;
}

export function checkRound(i: CheckInput): string[] {
  const v: string[] = [];
  const { world: w, end } = i;
  const start = w.start;
  for (const e of i.unexpectedExits) v.push(`the engine exited on its own: ${e}`);

  // 2. nothing lost that nobody deleted; nothing from nowhere
  const liveLocalDeletes = w.localDeletes.filter((d) => !w.rejected.has(d.root));
  // deleted by the user: a delete of theirs not rejected, or a held row they approved for
  // something they deleted (a file held inside a folder whose own delete was then rejected)
  const userDeleted = (id: string): boolean =>
    liveLocalDeletes.some((d) => d.seen.has(id)) ||
    ((w.approved.has(id) || [...w.possibleAncestors(id)].some((a) => w.approved.has(a))) && w.localDeletes.some((d) => d.seen.has(id)));
  const deletesSentFor = (id: string): string[] =>
    i.writes
      .filter((x) => x.kind === 'delete' && (x.id === id || w.possibleAncestors(id).has(x.id)))
      .map((x) => `DELETE ${q(start.path(x.id))} (${x.id}) -> ${x.status || 'no answer'}`);
  const lost: string[] = [];
  for (const id of start.byId.keys()) {
    if (end.byId.has(id)) continue;
    if (userDeleted(id)) continue;
    const anc = w.possibleAncestors(id);
    if (w.nasDeletes.some((d) => d.subtree.has(id) || d.root === id || anc.has(d.root))) continue;
    lost.push(id);
  }
  const lostSet = new Set(lost);
  for (const id of lost) {
    // the top-most lost object only: its folder's loss explains the rest
    if (lostSet.has(start.byId.get(id)!.parent)) continue;
    const rejected = w.localDeletes.filter((d) => w.rejected.has(d.root) && d.seen.has(id));
    const sent = deletesSentFor(id);
    v.push(
      `LOST on the NAS: ${q(start.path(id))} (${id}${start.byId.get(id)!.dir ? `, folder of ${start.subtree(id).size - 1}` : ''}) is gone but nobody deleted it or a folder it was in` +
        `${rejected.length ? `; the user's delete of ${list(rejected.map((d) => d.path))} was held and REJECTED` : ''}` +
        `${sent.length ? `; the engine sent: ${sent.join('; ')}` : ''}`,
    );
  }
  // new objects: only the user's own new files, which the engine uploads (issue 23)
  for (const [id, o] of end.byId)
    if (!start.byId.has(id) && (o.dir || !i.creates.files.has(o.name)))
      v.push(`an object appeared on the NAS from nowhere: ${q(end.path(id))} (${id})`);

  // 3. every name and parent on the NAS was asked for by someone
  for (const n of end.byId.values()) {
    if (n.id === end.rootId || !start.byId.has(n.id)) continue;
    const names = w.allowedNames(n.id);
    if (!names.has(n.name))
      v.push(`a name nobody asked for on the NAS: ${q(end.path(n.id))} (${n.id}) is named "${n.name}"; asked for: ${list(names)}`);
    const parents = w.allowedParents(n.id);
    if (!parents.has(n.parent))
      v.push(
        `a folder nobody asked for on the NAS: ${q(end.path(n.id))} (${n.id}) is in ${q(end.path(n.parent))}; asked for: ${list([...parents].map((p) => start.path(p) ?? end.path(p) ?? p))}`,
      );
  }

  // 4. what the engine wrote
  const patches = new Map<string, WriteRecord[]>();
  const deletes = new Map<string, WriteRecord[]>();
  for (const x of i.writes) {
    if (!maybeApplied(x)) continue;
    if (x.kind === 'delete') {
      deletes.set(x.id, [...(deletes.get(x.id) ?? []), x]);
      continue;
    }
    if (!x.body || (x.body.name === undefined && x.body.parentID === undefined)) continue; // the If-Match probe
    const temps = new Set([...w.allowedNames(x.id)].map((n) => tempName(n, x.id)));
    const isTemp = x.body.name !== undefined && temps.has(x.body.name);
    if (x.body.name !== undefined && !isTemp && !(w.localNames.get(x.id)?.has(x.body.name) ?? false)) {
      v.push(
        `the engine sent a name the user never gave: PATCH ${q(start.path(x.id))} (${x.id}) name "${x.body.name}" -> ${x.status || 'no answer'}; the user's names: ${list(w.localNames.get(x.id) ?? [])}`,
      );
    }
    if (x.body.parentID !== undefined && !(w.localParents.get(x.id)?.has(x.body.parentID) ?? false)) {
      v.push(
        `the engine sent a move the user never made: PATCH ${q(start.path(x.id))} (${x.id}) into ${q(start.path(x.body.parentID) ?? end.path(x.body.parentID))} -> ${x.status || 'no answer'}; the user's folders: ${list([...(w.localParents.get(x.id) ?? [])].map((p) => start.path(p) ?? p))}`,
      );
    }
    if (!isTemp) patches.set(x.id, [...(patches.get(x.id) ?? []), x]);
  }
  for (const [id, xs] of patches) {
    const done = xs.filter(applied);
    const allowed = w.localChanges.get(id) ?? 0;
    if (done.length > allowed) {
      v.push(
        `a change applied more than once: ${done.length} applied PATCHes on ${q(start.path(id))} (${id}) but the user changed it ${allowed} time(s): ${done.map((x) => `#${x.n} ${JSON.stringify(x.body)} -> ${x.status}`).join(', ')}`,
      );
    }
  }
  for (const [id, xs] of deletes) {
    const done = xs.filter(applied);
    if (done.length > 1)
      v.push(
        `a delete applied more than once: ${done.length} DELETEs of ${q(start.path(id))} (${id}) answered ${done.map((x) => x.status).join(', ')}`,
      );
    if (!userDeleted(id)) {
      const rej = w.localDeletes.some((d) => w.rejected.has(d.root) && d.seen.has(id));
      v.push(
        `the engine deleted what the user did not delete${rej ? ' (the user REJECTED that held delete)' : ''}: DELETE ${q(start.path(id))} (${id}) -> ${xs.map((x) => x.status || 'no answer').join(', ')}`,
      );
    }
  }

  // 5. the disk equals the NAS, except held deletes and the user's own files
  const heldIds = new Set(i.view.held.map((h) => h.id));
  const want = expectedPaths(end, heldIds);
  const localOnlyPaths = new Set(i.view.localOnly.map((l) => l.path));
  const missing = [...want.keys()].filter((p) => !i.disk.has(p));
  const extra = [...i.disk.keys()].filter((p) => !want.has(p));
  const isMissing = new Set(missing);
  const isExtra = new Set(extra);
  const parentOf = (p: string): string => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
  for (const p of missing) {
    if (isMissing.has(parentOf(p))) continue;
    const o = want.get(p)!;
    const name = p.slice(p.lastIndexOf('/') + 1);
    const elsewhere = extra.filter((x) => x.endsWith(`/${name}`) || x === name);
    v.push(
      `the disk differs from the NAS: the NAS has ${q(p)} (${o.id}${o.dir ? ', folder' : ''}) but the disk does not${elsewhere.length ? `; the disk has ${list(elsewhere)}` : ''}` +
        `; on the NAS at the start of the round it was ${q(start.path(o.id))}`,
    );
  }
  for (const p of extra) {
    if (isExtra.has(parentOf(p))) continue;
    const e = i.disk.get(p)!;
    if (!e.dir && i.creates.has(e.name)) continue; // the user's own file: checked below
    if (localOnlyPaths.has(p)) continue; // the engine lists it as local only (kept when the user chose Keep, say)
    if (isMissing.has(p)) continue;
    const wasNas = [...start.byId.keys()].find((id) => start.path(id) === p);
    v.push(
      `the disk differs from the NAS: the disk has ${q(p)}${e.dir ? ' (folder)' : ''} that the NAS does not${wasNas ? ` (at the start of the round the NAS had ${wasNas} there; now ${q(end.path(wasNas))})` : ''}`,
    );
  }
  for (const p of want.keys()) {
    const e = i.disk.get(p);
    if (e && e.dir !== want.get(p)!.dir)
      v.push(`the disk differs from the NAS: ${q(p)} is a ${e.dir ? 'folder' : 'file'} on disk, a ${e.dir ? 'file' : 'folder'} on the NAS`);
  }
  // the user's own files: still on disk (where the user put them, in a renamed folder, or kept in the local-only area) and listed
  for (const name of i.creates.live()) {
    const found = [...i.diskAll.values()].filter((e) => e.name === name);
    if (found.length === 0) {
      const ino = i.creates.inode(name);
      const same = ino === undefined ? undefined : [...i.diskAll.values()].find((e) => e.ino === ino && !e.dir);
      const asNas = same ? [...want].find(([p]) => p === same.path)?.[1] : undefined;
      v.push(
        `the user's own file "${name}" is gone from the disk${same ? ` under its name: its inode is now ${q(same.path)}${asNas ? `, the placeholder of NAS object ${asNas.id}` : ''}` : ''}`,
      );
      continue;
    }
    // listed itself, or inside a folder listed as local only (a folder the NAS deleted while the user moved it keeps what it holds)
    const listed = (p: string): boolean => localOnlyPaths.has(p) || (p.includes('/') && listed(p.slice(0, p.lastIndexOf('/'))));
    for (const f of found)
      if (!listed(f.path) && !want.has(f.path))
        v.push(
          `the user's own file ${q(f.path)} is not in the local-only list (${i.view.localOnly.length} rows: ${list(i.view.localOnly.map((l) => l.path).slice(0, 8))})`,
        );
  }
  for (const l of i.view.localOnly) {
    if (!i.diskAll.has(l.path)) {
      const name = l.path.slice(l.path.lastIndexOf('/') + 1);
      const now = [...i.diskAll.values()].filter((e) => e.name === name).map((e) => e.path);
      v.push(
        `a stale local-only row: ${q(l.path)} (${l.kind}) is listed but not on disk${now.length ? `; the file is at ${list(now)}` : ''}`,
      );
    }
  }
  return v;
}
