/**
 * The storage view of one folder from the facts and the subtree totals (aggregates.ts):
 * its children by size, totals by kind, and one pass over its subtree for the years, the
 * largest files and the duplicates (same name AND size, biggest reclaimable first). The pass
 * is a generator that yields once it has run `sliceMs`, so the engine can run it without
 * holding the event loop; objects that vanish mid-pass are skipped.
 */
import { KINDS, type Fact } from '../../app/filters/facts.js';
import type { StorageView } from '../../app/contract/organize-shapes.js';
import type { ObjectFacts } from '../index/object-facts.js';

/** Subtree totals of a folder; by kind in KINDS order. */
export interface Totals {
  bytes: number;
  files: number;
  kinds: Float64Array;
  kindFiles: Float64Array;
}

const CHILDREN_MAX = 2000;
const LARGEST = 50;
const DUPLICATES = 50;

/** True once `ms` have passed since the last time it said true (looks at the clock every 1,024 calls). */
export function timeSlice(ms: number): () => boolean {
  let n = 0,
    since = performance.now();
  return () => {
    if ((++n & 1023) !== 0) return false;
    const now = performance.now();
    if (now - since < ms) return false;
    since = now;
    return true;
  };
}

export function* folderViewSteps(
  f: ObjectFacts,
  id: string,
  me: Totals,
  totals: ReadonlyMap<string, Totals>,
  sliceMs: number,
): Generator<void, StorageView> {
  const slice = timeSlice(sliceMs);
  const children = childrenBySize(f, id, totals);
  const tally: SubtreeTally = { years: new Map(), largest: [], bySize: new Map() };
  const stack = f.children(id);
  while (stack.length) {
    if (slice()) yield;
    const x = f.get(stack.pop()!);
    if (!x) continue;
    if (x.kind === 'folder') {
      for (const c of f.children(x.id)) stack.push(c);
      continue;
    }
    tallyFile(tally, x);
  }
  const groups = yield* duplicateGroups(f, tally.bySize, slice);
  const duplicates = groups
    .sort((a, b) => b.bytes * (b.ids.length - 1) - a.bytes * (a.ids.length - 1))
    .slice(0, DUPLICATES)
    .map((d) => ({ name: d.name, bytes: d.bytes, count: d.ids.length, paths: d.ids.slice(0, 20).map((i) => '/' + f.pathOf(i)) }));
  const crumbs = crumbsOf(f, id);
  return {
    folder: { id, name: id === f.rootId ? 'NAS' : (f.get(id)?.name ?? '?'), path: '/' + f.pathOf(id) },
    crumbs,
    bytes: me.bytes,
    files: me.files,
    children,
    byKind: KINDS.filter((k) => k !== 'folder').map((k) => ({
      key: k,
      bytes: me.kinds[KINDS.indexOf(k)]!,
      files: me.kindFiles[KINDS.indexOf(k)]!,
    })),
    byYear: [...tally.years.entries()].sort((a, b) => a[0] - b[0]).map(([y, v]) => ({ key: y ? String(y) : 'undated', ...v })),
    largest: tally.largest.flatMap((l) => {
      const x = f.get(l.id);
      return x ? [{ id: l.id, name: x.name, path: '/' + f.pathOf(l.id), bytes: l.bytes }] : [];
    }),
    duplicates,
    computedMs: 0,
  };
}

/** The folder's children, biggest first (folders with their subtree totals), at most CHILDREN_MAX. */
function childrenBySize(f: ObjectFacts, id: string, totals: ReadonlyMap<string, Totals>): StorageView['children'] {
  return f
    .children(id)
    .flatMap((c) => {
      const x = f.get(c);
      if (!x) return [];
      const t = x.kind === 'folder' ? totals.get(c) : undefined;
      return [
        x.kind === 'folder'
          ? { id: c, name: x.name, folder: true, bytes: t?.bytes ?? 0, files: t?.files ?? 0 }
          : { id: c, name: x.name, bytes: x.size, files: 1 },
      ];
    })
    .sort((a, b) => b.bytes - a.bytes || (a.name < b.name ? -1 : 1))
    .slice(0, CHILDREN_MAX);
}

/** What the pass over the subtree gathers from its files. */
interface SubtreeTally {
  years: Map<number, { bytes: number; files: number }>;
  largest: { id: string; bytes: number }[];
  // duplicates: grouped by size first (a number key, no string built per file), by name only among equal sizes
  bySize: Map<number, string | string[]>;
}

/** Counts one file of the subtree: its year, among the largest, in its size's group. */
function tallyFile(t: SubtreeTally, x: Fact): void {
  const { years, largest, bySize } = t;
  const y = x.day ? Math.floor(x.day / 10_000) : 0;
  const b = years.get(y);
  if (b) {
    b.bytes += x.size;
    b.files++;
  } else years.set(y, { bytes: x.size, files: 1 });
  if (largest.length < LARGEST || x.size > largest[largest.length - 1]!.bytes) {
    largest.push({ id: x.id, bytes: x.size });
    largest.sort((p, q) => q.bytes - p.bytes);
    if (largest.length > LARGEST) largest.pop();
  }
  if (x.size > 0) {
    const l = bySize.get(x.size);
    if (l === undefined) bySize.set(x.size, x.id);
    else if (typeof l === 'string') bySize.set(x.size, [l, x.id]);
    else l.push(x.id);
  }
}

/** The files of the same name and size (groups of 2 or more), yielding when the slice is up. */
function* duplicateGroups(
  f: ObjectFacts,
  bySize: ReadonlyMap<number, string | string[]>,
  slice: () => boolean,
): Generator<void, { name: string; bytes: number; ids: string[] }[]> {
  const groups: { name: string; bytes: number; ids: string[] }[] = [];
  for (const [size, ids] of bySize) {
    if (slice()) yield;
    if (typeof ids === 'string') continue;
    const byName = new Map<string, string[]>();
    for (const i of ids) {
      const name = f.get(i)?.name;
      if (name === undefined) continue;
      const l = byName.get(name);
      if (l) l.push(i);
      else byName.set(name, [i]);
    }
    for (const [name, same] of byName) if (same.length > 1) groups.push({ name, bytes: size, ids: same });
  }
  return groups;
}

/** The folders from the root down to `id` (the root named NAS). */
function crumbsOf(f: ObjectFacts, id: string): { id: string; name: string }[] {
  const crumbs: { id: string; name: string }[] = [];
  for (let cur: string | undefined = id, guard = 0; cur !== undefined && guard < 1024; guard++) {
    crumbs.unshift({ id: cur, name: cur === f.rootId ? 'NAS' : (f.get(cur)?.name ?? '?') });
    if (cur === f.rootId) break;
    cur = f.get(cur)?.parent;
  }
  return crumbs;
}
