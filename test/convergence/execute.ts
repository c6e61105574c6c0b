/**
 * Carries out a round's plan. Changes on disk are made with node:fs as a file manager makes
 * them: consecutive ones back to back (no await between them, so the engine sees them
 * together, as one batch or several); the object a step names is found by the inode it had
 * when the round started, so an entry the engine moved meanwhile is never mistaken for
 * another (a step whose object is gone is skipped and logged). NAS-side changes are another
 * user's HTTP requests, straight to the service. Every effect is written into the world.
 */
import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineRunner } from './engine.js';
import type { NasLink } from './link.js';
import type { Nas, NasTree } from './nas.js';
import { inodeOf, restoreFromCopy, scanDisk } from './disk.js';
import { describeStep, type LocalOp, type NasOp, type RoundPlan, type Step } from './plan.js';
import type { DiskIndex, LocalCreates, RoundWorld } from './world.js';

export interface Rig {
  mirror: string;
  nas: Nas;
  link: NasLink;
  engine: EngineRunner;
  creates: LocalCreates;
}

export async function waitUntil(cond: () => boolean | Promise<boolean>, timeoutMs: number, pollMs = 50): Promise<boolean> {
  const t0 = Date.now();
  for (;;) {
    if (await cond()) return true;
    if (Date.now() - t0 > timeoutMs) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

const base = (p: string): string => p.slice(p.lastIndexOf('/') + 1);
const dirOf = (p: string): string => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
const rel = (dir: string, name: string): string => (dir === '' ? name : `${dir}/${name}`);

/** Runs the plan; returns what went wrong on the way (not the end-of-round checks). */
export async function executeRound(rig: Rig, plan: RoundPlan, world: RoundWorld, index: DiskIndex): Promise<string[]> {
  const problems: string[] = [];
  const x = new Executor(rig, world, index, world.start);
  try {
    for (const s of plan.steps) {
      const line = describeStep(s, world.start);
      if (s.t === 'local') {
        world.note(`${line}: ${x.local(s.op)}`);
        continue;
      }
      if (s.t === 'nas') {
        world.note(`${line}: ${await x.nas(s.op)}`);
        continue;
      }
      const r = await x.other(s, problems);
      world.note(`${line}${r ? `: ${r}` : ''}`);
    }
  } finally {
    // whatever the plan did, the round ends with everything back up
    if (!rig.nas.running) {
      await rig.nas.start();
      rig.link.retarget(rig.nas.svc.baseUrl);
      world.note('NAS back (end of round)');
    }
    if (!rig.link.isUp) {
      await rig.link.up();
      world.note('link back (end of round)');
    }
    if (!rig.engine.running) {
      try {
        await rig.engine.start();
        world.note('engine started (end of round)');
      } catch (e) {
        problems.push(`the engine did not start: ${String(e)}`);
      }
    }
  }
  return problems;
}

/** Where `id` is on disk now (checked by the inode it had; looked for by inode when the engine moved it), or undefined. */
export function locateId(mirror: string, index: DiskIndex, rootId: string, id: string): string | undefined {
  if (id === rootId) return '';
  const ino = index.inoById.get(id);
  if (ino === undefined) return undefined;
  const p = index.pathById.get(id);
  if (p !== undefined && inodeOf(mirror, p) === ino) return p;
  for (const e of scanDisk(mirror).values()) {
    const who = index.idByIno.get(e.ino);
    if (who !== undefined) index.pathById.set(who, e.path);
  }
  const q = index.pathById.get(id);
  return q !== undefined && inodeOf(mirror, q) === ino ? q : undefined;
}

/**
 * The user's answer to what the engine holds: a "renamed or deleted?" is answered with the
 * truth (the test knows what the user did: deleted -> approve; renamed to one of the places
 * offered -> `held renamed ID PATH`; otherwise Keep); a delete held over the limit gets the
 * round's decision. Through the command line, as a user in a terminal would.
 */
export async function decideHeld(rig: Rig, world: RoundWorld, index: DiskIndex, decision: 'approve' | 'reject'): Promise<string> {
  const { engine } = rig;
  const held = engine.view().held;
  if (!held.length) return 'nothing held';
  const approve: string[] = [];
  const reject: string[] = [];
  const out: string[] = [];
  for (const h of held) {
    if (!h.candidates) {
      (decision === 'approve' ? approve : reject).push(h.id);
      continue;
    }
    const now = locateId(rig.mirror, index, world.start.rootId, h.id);
    if (world.localDeletes.some((d) => d.seen.has(h.id))) approve.push(h.id);
    else if (now !== undefined && h.candidates.includes(now)) {
      out.push(await engine.held(['renamed', h.id, now]));
      world.count('held "renamed or deleted?": renamed');
    } else {
      reject.push(h.id);
      out.push(
        `"${h.path}" renamed or deleted?: the user has it at ${now === undefined ? '(not found)' : `"${now}"`}, not among ${h.candidates.map((c) => `"${c}"`).join(', ')}: Keep`,
      );
    }
  }
  if (approve.length) {
    for (const id of approve) world.approved.add(id);
    out.push(await engine.held(['approve', ...approve]));
    world.count('held delete approved');
  }
  if (reject.length) {
    for (const id of reject) world.rejected.add(id);
    out.push(await engine.held(['reject', ...reject]));
    world.count('held delete rejected');
  }
  // what the user decided goes; a hold that came after the list they read (a folder delete
  // held for the entry just decided, a mass delete) waits for their next decision (soak seed 9007 r6)
  const decided = new Set(held.map((h) => h.id));
  const stillHeld = (): string[] =>
    engine
      .view()
      .held.filter((h) => decided.has(h.id))
      .map((h) => `"${h.path}"`);
  const ok = await waitUntil(() => stillHeld().length === 0, 15_000, 100);
  if (!ok) out.push(`STILL HELD 15 s later: ${stillHeld().join(', ')}`);
  return `${held.map((h) => `"${h.path}" (${h.id}, ${h.objects} object(s)${h.candidates ? ', renamed or deleted?' : ''})`).join(', ')}: ${out.join('; ')}`;
}

class Executor {
  private readonly rootId: string;
  /** The engine will read the disk by place (restored from a copy, not started since): inodes say nothing. */
  private byPlace = false;

  constructor(
    private readonly rig: Rig,
    private readonly world: RoundWorld,
    private readonly index: DiskIndex,
    private readonly start: NasTree,
  ) {
    this.rootId = start.rootId;
  }

  private get mirror(): string {
    return this.rig.mirror;
  }

  private locate(id: string): string | undefined {
    return locateId(this.mirror, this.index, this.rootId, id);
  }

  /** The id of the one entry in folder `dir`, when it holds exactly one known entry. */
  private onlyItem(dir: string): string | undefined {
    let names: string[];
    try {
      names = readdirSync(join(this.mirror, dir));
    } catch {
      return undefined; // a file
    }
    if (names.length !== 1) return undefined;
    const ino = inodeOf(this.mirror, rel(dir, names[0]!));
    return ino === undefined ? undefined : this.index.idByIno.get(ino);
  }

  /** rename(2) `from` -> `to` (paths from the mirror root); the object moved is told by its inode before and after. */
  private rename(from: string, to: string): { ids: string[] } | string {
    if (existsSync(join(this.mirror, to))) return `skipped: "${to}" exists`;
    if (to.startsWith(`${from}/`)) return 'skipped: a folder cannot go into itself';
    const before = inodeOf(this.mirror, from);
    try {
      renameSync(join(this.mirror, from), join(this.mirror, to));
    } catch (e) {
      return `skipped: ${(e as NodeJS.ErrnoException).code ?? String(e)}`;
    }
    const after = inodeOf(this.mirror, to);
    const ids = new Set<string>();
    for (const ino of [before, after]) {
      const who = ino === undefined ? undefined : this.index.idByIno.get(ino);
      if (who !== undefined) ids.add(who);
    }
    this.index.moved(from, to);
    return { ids: [...ids] };
  }

  local(op: LocalOp): string {
    const w = this.world;
    switch (op.k) {
      case 'rename': {
        const from = this.locate(op.id);
        if (from === undefined || from === '') return 'skipped: not on disk';
        const r = this.rename(from, rel(dirOf(from), op.name));
        if (typeof r === 'string') return r;
        for (const id of r.ids) w.localRename(id, op.name);
        w.count(this.start.byId.get(op.id)?.dir ? 'disk folder rename' : 'disk rename');
        return `done ("${from}")${r.ids.length !== 1 || r.ids[0] !== op.id ? ` [moved ${r.ids.join(', ')}]` : ''}`;
      }
      case 'move': {
        const from = this.locate(op.id);
        const into = this.locate(op.parent);
        if (from === undefined || from === '') return 'skipped: not on disk';
        if (into === undefined) return 'skipped: target folder not on disk';
        const r = this.rename(from, rel(into, op.name ?? base(from)));
        if (typeof r === 'string') return r;
        for (const id of r.ids) w.localMove(id, op.parent, op.name);
        w.count(this.start.byId.get(op.id)?.dir ? 'disk folder move' : 'disk move');
        return `done ("${from}" -> "${rel(into, op.name ?? base(from))}")`;
      }
      case 'chain': {
        let from = this.locate(op.id);
        if (from === undefined || from === '') return 'skipped: not on disk';
        const done: string[] = [];
        for (const name of op.names) {
          const to = rel(dirOf(from), name);
          const r = this.rename(from, to);
          if (typeof r === 'string') {
            done.push(r);
            break;
          }
          for (const id of r.ids) w.localRename(id, name);
          done.push(`"${to}"`);
          from = to;
        }
        w.count('disk rename chain');
        return done.join(' -> ');
      }
      case 'swap': {
        const pa = this.locate(op.a);
        const pb = this.locate(op.b);
        if (pa === undefined || pb === undefined || pa === '' || pb === '') return 'skipped: not on disk';
        if (dirOf(pa) !== dirOf(pb)) return 'skipped: no longer in one folder';
        const tmp = rel(dirOf(pa), op.temp);
        // Read by place, two folders holding one item each that trade names are the same disk
        // as their items trading folders (docs/sync-engine.md, known limits): either reading is
        // the user's, so the items' moves are allowed too (the same tree on the NAS either way).
        const single = this.byPlace ? [this.onlyItem(pa), this.onlyItem(pb)] : [];
        const steps: [string, string][] = [
          [pa, tmp],
          [pb, pa],
          [tmp, pb],
        ];
        const out: string[] = [];
        for (const [f, t] of steps) {
          const r = this.rename(f, t);
          if (typeof r === 'string') {
            out.push(r);
            break;
          }
          for (const id of r.ids) w.localRename(id, base(t));
          out.push(`"${f}" -> "${t}"`);
        }
        w.count('disk swap');
        const [ka, kb] = single;
        if (ka !== undefined && kb !== undefined && out.length === 3 && !out.some((x) => x.startsWith('skipped'))) {
          w.localMove(ka, op.b, undefined);
          w.localMove(kb, op.a, undefined);
          out.push(`(read by place: one item each, so also allowed as ${ka} into ${op.b} and ${kb} into ${op.a})`);
        }
        return out.join('; ');
      }
      case 'delete': {
        const p = this.locate(op.id);
        if (p === undefined || p === '') return 'skipped: not on disk';
        const seen = new Set<string>([op.id]);
        // (the NAS may be down: then the start tree alone says which object is at a path)
        const now = this.rig.nas.running ? [this.rig.nas.tree()] : [];
        const nasByPath = new Map<string, string>();
        for (const t of [this.start, ...now])
          for (const id of t.byId.keys()) {
            const q = t.path(id);
            if (q !== undefined) nasByPath.set(q, id);
          }
        const below = scanDisk(this.mirror, { under: p });
        for (const e of below.values()) {
          const who = this.index.idByIno.get(e.ino);
          if (who !== undefined) seen.add(who);
          // a placeholder the engine made during the round (new inode): the object at that path
          else if (nasByPath.has(e.path)) seen.add(nasByPath.get(e.path)!);
          if (this.rig.creates.has(e.name)) this.rig.creates.removed(e.name);
        }
        try {
          rmSync(join(this.mirror, p), { recursive: true, force: true });
        } catch (e) {
          return `failed: ${String(e)}`;
        }
        w.localDelete({ root: op.id, path: p, seen });
        this.index.removed(
          p,
          [...below.values()].map((e) => e.ino),
        );
        w.count(op.mass ? 'disk mass delete' : 'disk delete');
        return `done ("${p}", ${seen.size} object(s) seen)`;
      }
      case 'create': {
        const dir = this.locate(op.parent);
        if (dir === undefined) return 'skipped: folder not on disk';
        try {
          writeFileSync(join(this.mirror, rel(dir, op.name)), 'my own words\n', { flag: 'wx' });
        } catch (e) {
          return `skipped: ${(e as NodeJS.ErrnoException).code ?? String(e)}`;
        }
        this.rig.creates.add(op.name, w.round, inodeOf(this.mirror, rel(dir, op.name)));
        w.count('disk new file');
        return `done ("${rel(dir, op.name)}")`;
      }
    }
  }

  async nas(op: NasOp): Promise<string> {
    const { nas } = this.rig;
    const w = this.world;
    if (op.k === 'delete') {
      const subtree = nas.tree().subtree(op.id);
      const r = await nas.delete(op.id);
      if (r.applied) {
        w.nasDelete({ root: op.id, subtree });
        w.count('NAS delete');
      }
      return `HTTP ${r.status}`;
    }
    const body = op.k === 'rename' ? { name: op.name } : { parentID: op.parent, ...(op.name !== undefined ? { name: op.name } : {}) };
    const r = await nas.patch(op.id, body);
    if (r.applied) {
      w.nasPatch(op.id, body);
      w.count(op.k === 'rename' ? 'NAS rename' : 'NAS move');
    }
    return `HTTP ${r.status}`;
  }

  async other(s: Exclude<Step, { t: 'local' | 'nas' }>, problems: string[]): Promise<string | undefined> {
    const { engine, link, nas } = this.rig;
    const w = this.world;
    switch (s.t) {
      case 'wait-sent': {
        if (!engine.running || !link.isUp || !nas.running) return 'nothing can be sent now (went on)';
        const target = link.writes.length + s.n;
        const ok = await waitUntil(() => link.writes.length >= target, 5000);
        return ok ? 'sent' : 'not yet (went on)';
      }
      case 'kill9':
        await engine.kill9();
        w.count('kill -9');
        return undefined;
      case 'stop': {
        const r = await engine.stop();
        w.count('clean stop');
        if (r.problem) problems.push(r.problem);
        return `exit ${r.code}`;
      }
      case 'start':
        this.byPlace = false;
        try {
          await engine.start();
        } catch (e) {
          problems.push(`the engine did not start: ${String(e)}`);
        }
        return undefined;
      case 'remount': {
        if (engine.running) {
          const r = await engine.stop();
          if (r.problem) problems.push(r.problem);
        }
        restoreFromCopy(this.rig.mirror);
        this.byPlace = true;
        // every inode changed: the test's own index is rebuilt by place (names did not change)
        this.index.idByIno.clear();
        this.index.inoById.clear();
        for (const [id, p] of [...this.index.pathById]) this.index.set(id, p, inodeOf(this.rig.mirror, p));
        w.count('remount (restore from a copy)');
        return undefined;
      }
      case 'link-down':
        await link.down();
        w.count('NAS unreachable (link down)');
        return undefined;
      case 'link-up':
        await link.up();
        return undefined;
      case 'nas-down':
        await nas.stop();
        w.count('NAS restart');
        return undefined;
      case 'nas-up':
        await nas.start();
        link.retarget(nas.svc.baseUrl);
        return undefined;
      case 'bursts':
        nas.burst(s.ms);
        w.count('NAS 5xx bursts');
        return undefined;
      case 'await-held': {
        const ok = await waitUntil(() => engine.view().held.length > 0, 15_000, 100);
        if (!ok) {
          const sent = link.writes.filter((x) => x.kind === 'delete' && x.at >= w.t0).map((x) => `${x.id} (${x.status})`);
          problems.push(
            `a mass delete over the delete limit was not held within 15 s${sent.length ? `; the engine sent DELETE ${sent.join(', ')}` : ''}`,
          );
          return 'NOT held';
        }
        return `held: ${engine
          .view()
          .held.map((h) => `"${h.path}" (${h.objects})`)
          .join(', ')}`;
      }
      case 'held': {
        const r = await decideHeld(this.rig, w, this.index, s.decision);
        if (r.includes('STILL HELD')) problems.push(`held deletes still listed 15 s after the user's decision: ${r}`);
        return r;
      }
    }
  }
}
