/**
 * Where the space goes, offline, from the mirrored sizes (ObjectFacts). Subtree totals of
 * every folder (bytes, files, bytes by kind) are computed in one pass once (files onto
 * their folder, then folders onto their parents, deepest first), then kept INCREMENTALLY:
 * each change moves a file's size (or a folder's whole subtree totals) off its old
 * ancestors and onto its new ones. The rest of a folder's view (by year, largest files,
 * duplicates by name + size) is one pass over that subtree (folder-view.ts), cached until a
 * change. Both passes run in chunks that yield to the event loop in the engine
 * (`viewReady`), or in one go (`view`: the command line, tests). In memory, next to the
 * facts; nothing is written to the store.
 */
import { KINDS, type Fact, type ObjectKind } from '../../app/filters/facts.js';
import type { StorageView } from '../../app/contract/organize-shapes.js';
import { AppError } from '../../app/errors.js';
import type { ObjectFacts } from '../index/object-facts.js';
import { folderViewSteps, timeSlice, type Totals } from './folder-view.js';

const KIND_INDEX = new Map<ObjectKind, number>(KINDS.map((k, i) => [k, i]));

function fileDelta(x: Fact): Totals {
  const kinds = new Float64Array(KINDS.length),
    kindFiles = new Float64Array(KINDS.length);
  const k = KIND_INDEX.get(x.kind)!;
  kinds[k] = x.size;
  kindFiles[k] = 1;
  return { bytes: x.size, files: 1, kinds, kindFiles };
}

/** How long a pass may hold the event loop before it yields (ms; checked every 1,024 objects). */
const SLICE_MS = 20;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs a stepwise computation to its end, now. */
function runNow<T>(g: Generator<unknown, T>): T {
  for (let r = g.next(); ; r = g.next()) if (r.done) return r.value;
}

/** Runs it yielding to the event loop at each step. */
async function runYielding<T>(g: Generator<unknown, T>): Promise<T> {
  for (let r = g.next(); ; r = g.next()) {
    if (r.done) return r.value;
    await nextTurn();
  }
}

export class StorageAggregates {
  private of: ObjectFacts | undefined;
  private unlisten: (() => void) | undefined;
  private totals = new Map<string, Totals>();
  private views = new Map<string, StorageView>();

  /** `facts` builds them in one go when needed; `ready` in chunks (the engine's way; defaults to `facts`). */
  constructor(
    private readonly facts: () => ObjectFacts,
    private readonly ready: () => Promise<ObjectFacts> = async () => facts(),
    /** How long one slice of a pass may hold the event loop (0: yield every 1,024 objects, for tests). */
    private readonly sliceMs = SLICE_MS,
  ) {}

  /** Totals for the current facts, computed in one go when they are not. */
  private fresh(): ObjectFacts {
    const f = this.facts();
    if (f !== this.of) this.adopt(f, runNow(this.computing(f)));
    return f;
  }

  /** The same, computed in chunks; a change landing meanwhile starts it again (at most twice, then in one go). */
  private async freshReady(): Promise<ObjectFacts> {
    const f = await this.ready();
    for (let attempt = 0; f !== this.of; attempt++) {
      const version = f.version;
      const totals = attempt < 2 ? await runYielding(this.computing(f)) : runNow(this.computing(f));
      if (f === this.of) break; // a one-go caller won meanwhile
      if (f.version === version) this.adopt(f, totals);
    }
    return f;
  }

  /**
   * Subtree totals of every folder (the root included), one pass: each file onto its
   * folder, then each folder onto its parent, deepest first. Yields every `sliceMs`.
   */
  private *computing(f: ObjectFacts): Generator<void, Map<string, Totals>> {
    const totals = new Map<string, Totals>();
    const entry = (id: string): Totals => {
      let t = totals.get(id);
      if (!t) totals.set(id, (t = emptyTotals()));
      return t;
    };
    entry(f.rootId);
    const folders: { id: string; parent: string; depth: number }[] = [];
    const slice = timeSlice(this.sliceMs);
    for (const x of f.byId.values()) {
      if (x.kind === 'folder') {
        entry(x.id);
        if (x.id !== f.rootId) folders.push({ id: x.id, parent: x.parent, depth: 0 });
      } else {
        const t = entry(x.parent),
          k = KIND_INDEX.get(x.kind)!;
        t.bytes += x.size;
        t.files++;
        t.kinds[k]! += x.size;
        t.kindFiles[k]!++;
      }
      if (slice()) yield;
    }
    const depth = new Map<string, number>([[f.rootId, 0]]);
    const depthOf = (id: string): number => {
      const chain: string[] = [];
      let cur: string | undefined = id,
        d = 0;
      for (let guard = 0; cur !== undefined && guard < 4096; guard++) {
        const known = depth.get(cur);
        if (known !== undefined) {
          d = known;
          break;
        }
        chain.push(cur);
        cur = f.get(cur)?.parent;
      }
      for (let i = chain.length - 1; i >= 0; i--) depth.set(chain[i]!, ++d);
      return depth.get(id)!;
    };
    for (const x of folders) {
      x.depth = depthOf(x.id);
      if (slice()) yield;
    }
    folders.sort((a, b) => b.depth - a.depth);
    for (const x of folders) {
      if (slice()) yield;
      const from = totals.get(x.id)!,
        to = entry(x.parent);
      to.bytes += from.bytes;
      to.files += from.files;
      for (let k = 0; k < KINDS.length; k++) {
        to.kinds[k]! += from.kinds[k]!;
        to.kindFiles[k]! += from.kindFiles[k]!;
      }
    }
    return totals;
  }

  /** Takes totals computed for `f` and follows its changes from now on. */
  private adopt(f: ObjectFacts, totals: Map<string, Totals>): void {
    this.unlisten?.();
    this.totals = totals;
    this.views.clear();
    this.of = f;
    this.unlisten = f.listen({
      leaving: (x) => {
        this.views.clear();
        this.along(f, x.parent, -1, this.deltaOf(x));
      },
      arrived: (x) => {
        if (x.kind === 'folder') this.entry(x.id);
        this.along(f, x.parent, 1, this.deltaOf(x));
      },
      gone: (x) => {
        if (x.kind === 'folder') this.totals.delete(x.id);
      },
    });
  }

  private entry(id: string): Totals {
    let t = this.totals.get(id);
    if (!t) this.totals.set(id, (t = emptyTotals()));
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
      t.bytes += sign * d.bytes;
      t.files += sign * d.files;
      for (let k = 0; k < KINDS.length; k++) {
        t.kinds[k]! += sign * d.kinds[k]!;
        t.kindFiles[k]! += sign * d.kindFiles[k]!;
      }
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

  /** The view of one folder (the root when absent), computed in one go. */
  view(folderId?: string): StorageView {
    const t0 = performance.now();
    const f = this.fresh();
    const id = this.idOf(f, folderId);
    const cached = this.views.get(id);
    if (cached) return cached;
    return this.keep(f, id, f.version, runNow(folderViewSteps(f, id, this.totalsAt(id), this.totals, this.sliceMs)), t0);
  }

  /** The same view, every pass in chunks that yield to the event loop (the engine's way). */
  async viewReady(folderId?: string): Promise<StorageView> {
    const t0 = performance.now();
    const f = await this.freshReady();
    const id = this.idOf(f, folderId);
    const cached = this.views.get(id);
    if (cached) return cached;
    const version = f.version;
    const v = await runYielding(folderViewSteps(f, id, this.totalsAt(id), this.totals, this.sliceMs));
    // changed meanwhile: answered as read, not kept (the next open computes it again)
    return f.version === version && f === this.of ? this.keep(f, id, version, v, t0) : { ...v, computedMs: ms(t0) };
  }

  private idOf(f: ObjectFacts, folderId: string | undefined): string {
    return folderId === undefined || folderId === 'root' ? f.rootId : folderId;
  }

  private totalsAt(id: string): Totals {
    const me = this.totals.get(id);
    if (!me) throw new AppError('NotFound', 'this folder is not in the mirror (any more)');
    return me;
  }

  private keep(f: ObjectFacts, id: string, version: number, v: StorageView, t0: number): StorageView {
    const view = { ...v, computedMs: ms(t0) };
    if (f.version === version) this.views.set(id, view);
    return view;
  }
}

function emptyTotals(): Totals {
  return { bytes: 0, files: 0, kinds: new Float64Array(KINDS.length), kindFiles: new Float64Array(KINDS.length) };
}

const ms = (t0: number): number => Math.round((performance.now() - t0) * 10) / 10;
