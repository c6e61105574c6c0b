/**
 * Where the space goes, offline, from the mirrored sizes (ObjectFacts). Subtree totals of
 * every folder (bytes, files, bytes by kind) are computed in one pass once, then kept
 * INCREMENTALLY: each change moves a file's size (or a folder's whole subtree totals) off
 * its old ancestors and onto its new ones. The rest of a folder's view (by year, largest
 * files, duplicates by name + size) is one pass over that subtree, cached until a change.
 * In memory, next to the facts; nothing is written to the store.
 */
import { KINDS, type Fact, type ObjectKind } from '../../app/filters/facts.js';
import type { StorageView } from '../../app/contract/organize-shapes.js';
import { AppError } from '../../app/errors.js';
import type { ObjectFacts } from '../index/object-facts.js';

interface Totals { bytes: number; files: number; kinds: Float64Array; kindFiles: Float64Array }

const KIND_INDEX = new Map<ObjectKind, number>(KINDS.map((k, i) => [k, i]));

function fileDelta(x: Fact): Totals {
  const kinds = new Float64Array(KINDS.length), kindFiles = new Float64Array(KINDS.length);
  const k = KIND_INDEX.get(x.kind)!;
  kinds[k] = x.size; kindFiles[k] = 1;
  return { bytes: x.size, files: 1, kinds, kindFiles };
}

const CHILDREN_MAX = 2000;
const LARGEST = 50;
const DUPLICATES = 50;

export class StorageAggregates {
  private of: ObjectFacts | undefined;
  private unlisten: (() => void) | undefined;
  private totals = new Map<string, Totals>();
  private views = new Map<string, StorageView>();

  constructor(private readonly facts: () => ObjectFacts) {}

  /**
   * Subtree totals of every folder (the root included): computed in one pass the first time
   * (or when the facts are rebuilt), then kept up to date change by change.
   */
  private fresh(): ObjectFacts {
    const f = this.facts();
    if (f === this.of) return f;
    this.unlisten?.();
    this.totals = new Map();
    this.views.clear();
    this.of = f;
    this.entry(f.rootId);
    for (const x of f.byId.values()) {
      if (x.kind === 'folder') this.entry(x.id);
      else this.along(f, x.parent, 1, fileDelta(x));
    }
    this.unlisten = f.listen({
      leaving: (x) => { this.views.clear(); this.along(f, x.parent, -1, this.deltaOf(x)); },
      arrived: (x) => { if (x.kind === 'folder') this.entry(x.id); this.along(f, x.parent, 1, this.deltaOf(x)); },
      gone: (x) => { if (x.kind === 'folder') this.totals.delete(x.id); },
    });
    return f;
  }

  private entry(id: string): Totals {
    let t = this.totals.get(id);
    if (!t) this.totals.set(id, (t = { bytes: 0, files: 0, kinds: new Float64Array(KINDS.length), kindFiles: new Float64Array(KINDS.length) }));
    return t;
  }

  /** What a file or a folder's subtree weighs. */
  private deltaOf(x: Fact): Totals {
    return x.kind === 'folder' ? this.entry(x.id) : fileDelta(x);
  }

  /** Adds (sign 1) or takes away (-1) `d` on every folder from `parent` up to the root. */
  private along(f: ObjectFacts, parent: string, sign: 1 | -1, d: Totals): void {
    let cur: string | undefined = parent;
    for (let guard = 0; cur !== undefined && guard < 4096; guard++) {
      const t = this.entry(cur);
      t.bytes += sign * d.bytes; t.files += sign * d.files;
      for (let k = 0; k < KINDS.length; k++) { t.kinds[k]! += sign * d.kinds[k]!; t.kindFiles[k]! += sign * d.kindFiles[k]!; }
      if (cur === f.rootId) break;
      cur = f.get(cur)?.parent;
    }
  }

  /** Subtree totals of a folder (tests compare them with a fresh computation). */
  totalsOf(id: string): { bytes: number; files: number; kinds: number[] } | undefined {
    const f = this.fresh();
    const t = this.totals.get(id === 'root' ? f.rootId : id);
    return t ? { bytes: t.bytes, files: t.files, kinds: [...t.kinds] } : undefined;
  }

  /** The view of one folder (the root when absent). */
  view(folderId?: string): StorageView {
    const t0 = performance.now();
    const f = this.fresh();
    const id = folderId === undefined || folderId === 'root' ? f.rootId : folderId;
    const cached = this.views.get(id);
    if (cached) return cached;
    const me = this.totals.get(id);
    if (!me) throw new AppError('NotFound', 'this folder is not in the mirror (any more)');
    const children = f.children(id).map((c) => {
      const x = f.get(c)!;
      const t = x.kind === 'folder' ? this.totals.get(c) : undefined;
      return x.kind === 'folder' ? { id: c, name: x.name, folder: true, bytes: t?.bytes ?? 0, files: t?.files ?? 0 } : { id: c, name: x.name, bytes: x.size, files: 1 };
    }).sort((a, b) => b.bytes - a.bytes || (a.name < b.name ? -1 : 1)).slice(0, CHILDREN_MAX);
    // one pass over the subtree: years, largest files, duplicates by name + size
    const years = new Map<number, { bytes: number; files: number }>();
    const largest: { id: string; bytes: number }[] = [];
    const dup = new Map<string, string[]>();
    const stack = f.children(id);
    while (stack.length) {
      const x = f.get(stack.pop()!)!;
      if (x.kind === 'folder') { stack.push(...f.children(x.id)); continue; }
      const y = x.day ? Math.floor(x.day / 10_000) : 0;
      const b = years.get(y) ?? { bytes: 0, files: 0 };
      b.bytes += x.size; b.files++;
      years.set(y, b);
      if (largest.length < LARGEST || x.size > largest[largest.length - 1]!.bytes) {
        largest.push({ id: x.id, bytes: x.size });
        largest.sort((p, q) => q.bytes - p.bytes);
        if (largest.length > LARGEST) largest.pop();
      }
      if (x.size > 0) {
        const k = `${x.size}\u0000${x.name}`;
        const l = dup.get(k);
        if (l) l.push(x.id); else dup.set(k, [x.id]);
      }
    }
    const duplicates = [...dup.entries()].filter(([, ids]) => ids.length > 1)
      .map(([k, ids]) => { const size = Number(k.slice(0, k.indexOf('\u0000'))); return { name: k.slice(k.indexOf('\u0000') + 1), bytes: size, count: ids.length, ids }; })
      .sort((a, b) => b.bytes * (b.count - 1) - a.bytes * (a.count - 1)).slice(0, DUPLICATES)
      .map((d) => ({ name: d.name, bytes: d.bytes, count: d.count, paths: d.ids.slice(0, 20).map((i) => '/' + f.pathOf(i)) }));
    const crumbs: { id: string; name: string }[] = [];
    for (let cur: string | undefined = id, guard = 0; cur !== undefined && guard < 1024; guard++) {
      crumbs.unshift({ id: cur, name: cur === f.rootId ? 'NAS' : f.get(cur)?.name ?? '?' });
      if (cur === f.rootId) break;
      cur = f.get(cur)?.parent;
    }
    const view: StorageView = {
      folder: { id, name: id === f.rootId ? 'NAS' : f.get(id)?.name ?? '?', path: '/' + f.pathOf(id) },
      crumbs, bytes: me.bytes, files: me.files, children,
      byKind: KINDS.filter((k) => k !== 'folder').map((k) => ({ key: k, bytes: me.kinds[KINDS.indexOf(k)]!, files: me.kindFiles[KINDS.indexOf(k)]! })),
      byYear: [...years.entries()].sort((a, b) => a[0] - b[0]).map(([y, v]) => ({ key: y ? String(y) : 'undated', ...v })),
      largest: largest.map((l) => ({ id: l.id, name: f.get(l.id)!.name, path: '/' + f.pathOf(l.id), bytes: l.bytes })),
      duplicates,
      computedMs: Math.round((performance.now() - t0) * 10) / 10,
    };
    this.views.set(id, view);
    return view;
  }
}
