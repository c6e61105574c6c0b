/**
 * The action generator: a round's plan drawn from the round's own seeded stream and the NAS
 * tree the round starts from (settled: the disk shows the same). Steps name objects by their
 * NAS id; the executor finds them on disk (a step whose object is gone or moved away by then
 * is skipped and logged). The plan is printed on failure, so a round can be read and replayed.
 *
 * A round has a flavour (what happens to the engine, the NAS or the disk besides the
 * user's and the other user's changes) and bursts of changes on a small "hot" set of objects,
 * so both sides often touch the same objects at once.
 */
import type { NasNode, NasTree } from './nas.js';
import { Rng } from './rng.js';

export const FLAVORS = ['live', 'kill9', 'stop', 'remount', 'link-down', 'nas-restart', 'bursts', 'mass-delete'] as const;
export type Flavor = (typeof FLAVORS)[number];

export type LocalOp =
  | { k: 'rename'; id: string; name: string }
  | { k: 'move'; id: string; parent: string; name?: string }
  | { k: 'delete'; id: string; mass?: boolean }
  /** a -> b -> c, in one go */
  | { k: 'chain'; id: string; names: string[] }
  /** a <-> b through a temporary name (three renames) */
  | { k: 'swap'; a: string; b: string; temp: string }
  /** a new file of the user's own (local only) */
  | { k: 'create'; parent: string; name: string };

export type NasOp =
  { k: 'rename'; id: string; name: string } | { k: 'move'; id: string; parent: string; name?: string } | { k: 'delete'; id: string };

export type Step =
  | { t: 'local'; op: LocalOp }
  | { t: 'nas'; op: NasOp }
  /** until the engine has sent `n` more writes this round (at most a few seconds: not an assertion) */
  | { t: 'wait-sent'; n: number }
  | { t: 'kill9' }
  | { t: 'stop' }
  | { t: 'start' }
  | { t: 'remount' }
  | { t: 'link-down' }
  | { t: 'link-up' }
  | { t: 'nas-down' }
  | { t: 'nas-up' }
  | { t: 'bursts'; ms: number }
  | { t: 'await-held' }
  | { t: 'held'; decision: 'approve' | 'reject' };

export interface RoundPlan {
  seed: number;
  round: number;
  flavor: Flavor;
  steps: Step[];
  /** What the user decides for held deletes this round (mass delete, or any held at settle time). */
  heldDecision: 'approve' | 'reject';
}

/** Regular deletes stay well under the delete limit (50 objects): only the mass delete is held. */
const DELETE_BUDGET = 24;
const NAS_DELETE_BUDGET = 30;
/** The mass delete: a folder just above the limit (the library should last many rounds). */
const MASS_MIN = 56;

const WORDS = ['Archive', 'Old', 'Best', 'Keep', 'Draft', 'Final', 'Shared', 'Misc', 'Family', 'Work', 'Backup', 'Sorted'];

export interface PlanOptions {
  /** The service runs in quirks mode (bursts are possible). */
  quirks: boolean;
  /** Force this round's flavour (the fixed seeds choose theirs to cover every kind). */
  flavor?: Flavor;
}

export function planRound(seed: number, round: number, tree: NasTree, opts: PlanOptions): RoundPlan {
  const rng = Rng.forRound(seed, round);
  const flavors = FLAVORS.filter((f) => f !== 'bursts' || opts.quirks);
  // drawn even when forced: forcing the flavour a seed would draw anyway replays the same plan
  const drawn = rng.weighted<Flavor>(
    flavors.map((f) => [
      f,
      ({ live: 3, kill9: 2, stop: 1, remount: 1.5, 'link-down': 1.5, 'nas-restart': 1, bursts: 1, 'mass-delete': 1.5 } as const)[f],
    ]),
  );
  const flavor = opts.flavor ?? drawn;
  const g = new Gen(rng, tree, round);
  const steps: Step[] = [];
  const L = (lo: number, hi: number): void => {
    for (let i = rng.int(lo, hi); i > 0; i--) g.local(steps);
  };
  const N = (lo: number, hi: number): void => {
    for (let i = rng.int(lo, hi); i > 0; i--) g.nas(steps);
  };
  let heldDecision: 'approve' | 'reject' = 'reject';
  switch (flavor) {
    case 'live':
      L(2, 5);
      N(1, 4);
      if (rng.chance(0.6)) {
        steps.push({ t: 'wait-sent', n: rng.int(1, 2) });
        L(1, 3);
        N(0, 2);
      }
      break;
    case 'kill9':
      L(2, 5);
      if (rng.chance(0.6)) steps.push({ t: 'wait-sent', n: rng.int(1, 3) });
      steps.push({ t: 'kill9' });
      L(0, 3);
      N(1, 3);
      steps.push({ t: 'start' });
      break;
    case 'stop':
      L(1, 4);
      steps.push({ t: 'stop' });
      L(1, 3);
      N(1, 3);
      steps.push({ t: 'start' });
      break;
    case 'remount':
      if (rng.chance(0.5)) L(1, 2);
      steps.push({ t: 'stop' }, { t: 'remount' });
      // the issue's case: one rename after a restore; or a few changes; or none
      if (rng.chance(0.4)) g.localKind(steps, 'rename');
      else L(0, 3);
      N(0, 2);
      steps.push({ t: 'start' });
      break;
    case 'link-down':
      L(1, 3);
      steps.push({ t: 'link-down' });
      L(1, 3);
      N(1, 3);
      if (rng.chance(0.35)) {
        steps.push({ t: 'kill9' });
        L(0, 2);
        steps.push({ t: 'start' });
      }
      steps.push({ t: 'link-up' });
      break;
    case 'nas-restart':
      L(1, 3);
      steps.push({ t: 'nas-down' });
      L(1, 3);
      steps.push({ t: 'nas-up' });
      N(1, 3);
      break;
    case 'bursts':
      steps.push({ t: 'bursts', ms: rng.int(1500, 4000) });
      L(2, 4);
      N(1, 3);
      break;
    case 'mass-delete': {
      heldDecision = rng.chance(0.5) ? 'approve' : 'reject';
      const big = g.massFolder();
      if (big) {
        steps.push({ t: 'local', op: { k: 'delete', id: big.id, mass: true } });
        L(0, 2);
        steps.push({ t: 'await-held' });
        N(0, 3);
        steps.push({ t: 'held', decision: heldDecision });
      } else {
        L(2, 4);
        N(1, 3);
      }
      break;
    }
  }
  return { seed, round, flavor, steps, heldDecision };
}

/** Draws single changes; keeps the round's names unique and its deletes small. */
class Gen {
  private k = 0;
  private deleted = 0;
  private nasDeleted = 0;
  private readonly objects: NasNode[];
  private readonly folders: NasNode[];
  private readonly hot: NasNode[];
  private readonly size = new Map<string, number>();
  /** Names the user gave this round (a clash on the NAS reuses one). */
  private readonly localNamesGiven: { id: string; parent: string; name: string }[] = [];

  constructor(
    private readonly rng: Rng,
    private readonly tree: NasTree,
    private readonly round: number,
  ) {
    this.objects = [...tree.byId.values()].filter((n) => n.id !== tree.rootId).sort((a, b) => (a.id < b.id ? -1 : 1));
    this.folders = this.objects.filter((n) => n.dir);
    for (const o of this.objects) this.size.set(o.id, tree.subtree(o.id).size);
    // the hot set: a folder, some of its children, a sibling folder, a few random objects
    const hot: NasNode[] = [];
    if (this.folders.length) {
      const f = rng.pick(this.folders);
      hot.push(f);
      const kids = tree.children(f.id);
      for (let i = Math.min(kids.length, rng.int(2, 4)); i > 0; i--) hot.push(rng.pick(kids));
      const sibs = tree.children(f.parent).filter((s) => s.dir && s.id !== f.id);
      if (sibs.length) hot.push(rng.pick(sibs));
    }
    for (let i = 0; i < 3 && this.objects.length; i++) hot.push(rng.pick(this.objects));
    this.hot = [...new Map(hot.map((h) => [h.id, h])).values()];
  }

  private obj(filter: (n: NasNode) => boolean = () => true): NasNode | undefined {
    const hot = this.hot.filter(filter);
    if (hot.length && this.rng.chance(0.7)) return this.rng.pick(hot);
    const all = this.objects.filter(filter);
    return all.length ? this.rng.pick(all) : undefined;
  }

  private newName(n: NasNode): string {
    const k = ++this.k;
    const dot = n.dir ? -1 : n.name.lastIndexOf('.');
    const ext = dot > 0 ? n.name.slice(dot) : '';
    const stem = (dot > 0 ? n.name.slice(0, dot) : n.name).replace(/ r\d+\.\d+$/, '').slice(0, 40);
    const word = this.rng.chance(0.3) ? `${this.rng.pick(WORDS)} ` : '';
    return `${word}${stem} r${this.round}.${k}${ext}`;
  }

  /** A folder `n` may move into (not itself, not below itself, not where it is). */
  private target(n: NasNode): NasNode | undefined {
    const ok = (f: NasNode): boolean => f.id !== n.parent && f.id !== n.id && !this.tree.isUnder(f.id, n.id);
    const root = this.tree.byId.get(this.tree.rootId)!;
    const hot = this.hot.filter((h) => h.dir && ok(h));
    if (hot.length && this.rng.chance(0.5)) return this.rng.pick(hot);
    const all = [...this.folders, root].filter(ok);
    return all.length ? this.rng.pick(all) : undefined;
  }

  local(steps: Step[]): void {
    const kind = this.rng.weighted<LocalOp['k'] | 'folder-rename' | 'folder-move'>([
      ['rename', 3],
      ['move', 2],
      ['delete', 1.5],
      ['chain', 1],
      ['swap', 1],
      ['create', 1],
      ['folder-rename', 1.5],
      ['folder-move', 1],
    ]);
    this.localKind(steps, kind);
  }

  localKind(steps: Step[], kind: LocalOp['k'] | 'folder-rename' | 'folder-move'): void {
    const push = (op: LocalOp): void => {
      steps.push({ t: 'local', op });
    };
    switch (kind) {
      case 'rename':
      case 'folder-rename': {
        const n = this.obj(kind === 'folder-rename' ? (x) => x.dir : () => true);
        if (!n) return;
        const name = this.newName(n);
        this.localNamesGiven.push({ id: n.id, parent: n.parent, name });
        push({ k: 'rename', id: n.id, name });
        return;
      }
      case 'move':
      case 'folder-move': {
        const n = this.obj(kind === 'folder-move' ? (x) => x.dir : () => true);
        const t = n && this.target(n);
        if (!n || !t) return;
        push({ k: 'move', id: n.id, parent: t.id, ...(this.rng.chance(0.3) ? { name: this.newName(n) } : {}) });
        return;
      }
      case 'delete': {
        const n = this.obj((x) => (this.size.get(x.id) ?? 1) <= Math.min(14, DELETE_BUDGET - this.deleted));
        if (!n) return;
        this.deleted += this.size.get(n.id) ?? 1;
        push({ k: 'delete', id: n.id });
        return;
      }
      case 'chain': {
        const n = this.obj();
        if (!n) return;
        const names = [this.newName(n), this.newName(n)];
        // slowly (the engine sends the first before the second is made) or at once (one batch)
        if (this.rng.chance(0.5)) push({ k: 'chain', id: n.id, names });
        else {
          push({ k: 'rename', id: n.id, name: names[0]! });
          steps.push({ t: 'wait-sent', n: 1 });
          push({ k: 'rename', id: n.id, name: names[1]! });
        }
        return;
      }
      case 'swap': {
        const a = this.obj((x) => this.tree.children(x.parent).length > 1);
        if (!a) return;
        const sibs = this.tree.children(a.parent).filter((s) => s.id !== a.id);
        const b = this.rng.pick(sibs);
        push({ k: 'swap', a: a.id, b: b.id, temp: `${a.name.slice(0, 60)}.swap r${this.round}.${++this.k}` });
        return;
      }
      case 'create': {
        const f = this.obj((x) => x.dir) ?? this.tree.byId.get(this.tree.rootId)!;
        push({ k: 'create', parent: f.id, name: `my note r${this.round}.${++this.k}.txt` });
        return;
      }
    }
  }

  nas(steps: Step[]): void {
    const kind = this.rng.weighted<NasOp['k'] | 'clash' | 'rename-move'>([
      ['rename', 3],
      ['move', 2],
      ['rename-move', 1],
      ['delete', 1],
      ['clash', 1],
    ]);
    const push = (op: NasOp): void => {
      steps.push({ t: 'nas', op });
    };
    switch (kind) {
      case 'rename': {
        const n = this.obj();
        if (n) push({ k: 'rename', id: n.id, name: this.newName(n) });
        return;
      }
      case 'move':
      case 'rename-move': {
        const n = this.obj();
        const t = n && this.target(n);
        if (n && t) push({ k: 'move', id: n.id, parent: t.id, ...(kind === 'rename-move' ? { name: this.newName(n) } : {}) });
        return;
      }
      case 'delete': {
        const n = this.obj((x) => (this.size.get(x.id) ?? 1) <= Math.min(20, NAS_DELETE_BUDGET - this.nasDeleted));
        if (!n) return;
        this.nasDeleted += this.size.get(n.id) ?? 1;
        push({ k: 'delete', id: n.id });
        return;
      }
      case 'clash': {
        // another user gives a sibling the very name the user just gave an object
        const given = this.localNamesGiven.length ? this.rng.pick(this.localNamesGiven) : undefined;
        const sib = given && this.tree.children(given.parent).find((s) => s.id !== given.id);
        if (given && sib) push({ k: 'rename', id: sib.id, name: given.name });
        else {
          const n = this.obj();
          if (n) push({ k: 'rename', id: n.id, name: this.newName(n) });
        }
        return;
      }
    }
  }

  /** The smallest folder above the delete limit (the library lasts longer). */
  massFolder(): NasNode | undefined {
    const big = this.folders
      .filter((f) => (this.size.get(f.id) ?? 0) >= MASS_MIN)
      .sort((a, b) => this.size.get(a.id)! - this.size.get(b.id)! || (a.id < b.id ? -1 : 1));
    if (!big.length) return undefined;
    return this.rng.pick(big.slice(0, 3));
  }
}

/** One line per step, for the action log. */
export function describeStep(s: Step, tree: NasTree): string {
  const p = (id: string): string => `"${tree.path(id) ?? '?'}" (${id})`;
  switch (s.t) {
    case 'local': {
      const o = s.op;
      switch (o.k) {
        case 'rename':
          return `disk: rename ${p(o.id)} -> "${o.name}"`;
        case 'move':
          return `disk: move ${p(o.id)} into ${p(o.parent)}${o.name ? ` as "${o.name}"` : ''}`;
        case 'delete':
          return `disk: ${o.mass ? 'MASS ' : ''}delete ${p(o.id)}`;
        case 'chain':
          return `disk: rename chain ${p(o.id)} -> ${o.names.map((n) => `"${n}"`).join(' -> ')}`;
        case 'swap':
          return `disk: swap ${p(o.a)} <-> ${p(o.b)} via "${o.temp}"`;
        case 'create':
          return `disk: new file "${o.name}" in ${p(o.parent)}`;
      }
      break;
    }
    case 'nas': {
      const o = s.op;
      switch (o.k) {
        case 'rename':
          return `NAS (other user): rename ${p(o.id)} -> "${o.name}"`;
        case 'move':
          return `NAS (other user): move ${p(o.id)} into ${p(o.parent)}${o.name ? ` as "${o.name}"` : ''}`;
        case 'delete':
          return `NAS (other user): delete ${p(o.id)}`;
      }
      break;
    }
    case 'wait-sent':
      return `wait until the engine sent ${s.n} more write(s) (at most 5 s)`;
    case 'bursts':
      return `NAS: 503/502/429 bursts for ${s.ms} ms`;
    case 'held':
      return `nas-mirror held ${s.decision} all`;
    default:
      return s.t;
  }
  return s.t;
}
