/**
 * What the test knows of the world during one round, independent of the engine:
 * - the NAS tree at the start of the round (settled and checked equal to the disk);
 * - every intent issued, per object, on each side: the names and parents someone asked for
 *   (the user on disk, "another user" on the NAS: only changes the NAS applied), the user's
 *   renames/moves counted (an upper bound of the PATCHes the engine may apply), the user's
 *   deletes with what the user saw below them, the NAS-side deletes with their subtree;
 * - the held deletes the user approved or rejected;
 * - the user's own new files (local only), across rounds;
 * - which object each disk entry is (by inode, as the round started), so a file the engine
 *   moved meanwhile is never taken for another.
 * And the round's action log, printed on failure.
 */
import type { NasTree } from './nas.js';

export interface LocalDelete {
  /** The object the user removed (rm / rm -rf of its path). */
  root: string;
  path: string;
  /** The objects the user saw at and below it at that moment. */
  seen: Set<string>;
}

export interface NasDelete {
  root: string;
  /** What the NAS held below it just before. */
  subtree: Set<string>;
}

const add = <K, V>(m: Map<K, Set<V>>, k: K, v: V): void => {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  s.add(v);
};

export class RoundWorld {
  readonly log: string[] = [];
  /** All intents (both sides): names and parents an object may end with. */
  readonly names = new Map<string, Set<string>>();
  readonly parents = new Map<string, Set<string>>();
  /** The user's intents only: what the engine may send. */
  readonly localNames = new Map<string, Set<string>>();
  readonly localParents = new Map<string, Set<string>>();
  /** The user's renames/moves per object (each rename(2) the user did that changed it). */
  readonly localChanges = new Map<string, number>();
  readonly localDeletes: LocalDelete[] = [];
  readonly nasDeletes: NasDelete[] = [];
  /** Held deletes (ids) the user rejected / approved in this round. */
  readonly rejected = new Set<string>();
  readonly approved = new Set<string>();
  /** Kinds of actions carried out (coverage). */
  readonly done = new Map<string, number>();
  lastNasDeleteAt = 0;
  readonly t0 = Date.now();

  constructor(
    readonly round: number,
    readonly start: NasTree,
  ) {}

  note(line: string): void {
    this.log.push(`${((Date.now() - this.t0) / 1000).toFixed(2).padStart(6)}s ${line}`);
  }

  count(kind: string): void {
    this.done.set(kind, (this.done.get(kind) ?? 0) + 1);
  }

  localRename(id: string, name: string): void {
    add(this.names, id, name);
    add(this.localNames, id, name);
    this.localChanges.set(id, (this.localChanges.get(id) ?? 0) + 1);
  }

  localMove(id: string, parent: string, name: string | undefined): void {
    add(this.parents, id, parent);
    add(this.localParents, id, parent);
    if (name !== undefined) {
      add(this.names, id, name);
      add(this.localNames, id, name);
    }
    this.localChanges.set(id, (this.localChanges.get(id) ?? 0) + 1);
  }

  localDelete(d: LocalDelete): void {
    this.localDeletes.push(d);
  }

  nasPatch(id: string, body: { name?: string; parentID?: string }): void {
    if (body.name !== undefined) add(this.names, id, body.name);
    if (body.parentID !== undefined) add(this.parents, id, body.parentID);
  }

  nasDelete(d: NasDelete): void {
    this.nasDeletes.push(d);
    this.lastNasDeleteAt = Date.now();
  }

  /** Names `id` may have at the end: where it started, or any name someone asked for. */
  allowedNames(id: string): Set<string> {
    const s = new Set(this.names.get(id) ?? []);
    const n = this.start.byId.get(id);
    if (n) s.add(n.name);
    return s;
  }

  allowedParents(id: string): Set<string> {
    const s = new Set(this.parents.get(id) ?? []);
    const n = this.start.byId.get(id);
    if (n) s.add(n.parent);
    return s;
  }

  /** Every folder `id` may have been below at some point (start tree and every intent, both sides). */
  possibleAncestors(id: string): Set<string> {
    const out = new Set<string>();
    const todo = [...this.allowedParents(id)];
    while (todo.length) {
      const p = todo.pop()!;
      if (out.has(p) || p === '') continue;
      out.add(p);
      todo.push(...this.allowedParents(p));
    }
    return out;
  }
}

/** The user's own new files (local only, never sent), across rounds: found again by their unique names. */
export class LocalCreates {
  readonly files = new Map<string, { round: number; gone: boolean; ino: string | undefined }>();

  add(name: string, round: number, ino: string | undefined): void {
    this.files.set(name, { round, gone: false, ino });
  }

  inode(name: string): string | undefined {
    return this.files.get(name)?.ino;
  }

  /** Removed by the user (inside a folder the user deleted). */
  removed(name: string): void {
    const f = this.files.get(name);
    if (f) f.gone = true;
  }

  live(): string[] {
    return [...this.files].filter(([, f]) => !f.gone).map(([n]) => n);
  }

  has(name: string): boolean {
    return this.files.get(name)?.gone === false;
  }
}

/**
 * Which object a disk entry is, as the round started (inode -> id), and where the test
 * believes each object is now (updated with the user's own moves; looked up again by inode
 * when the engine moved things meanwhile).
 */
export class DiskIndex {
  readonly idByIno = new Map<string, string>();
  readonly inoById = new Map<string, string>();
  readonly pathById = new Map<string, string>();

  set(id: string, path: string, ino: string | undefined): void {
    this.pathById.set(id, path);
    if (ino !== undefined) {
      this.idByIno.set(ino, id);
      this.inoById.set(id, ino);
    }
  }

  /** The user renamed `from` to `to`: everything below follows. */
  moved(from: string, to: string): void {
    for (const [id, p] of this.pathById) {
      if (p === from) this.pathById.set(id, to);
      else if (p.startsWith(`${from}/`)) this.pathById.set(id, `${to}${p.slice(from.length)}`);
    }
  }

  /**
   * The user deleted `path` (what was below it had the inodes `inos`): none of it is looked up
   * again, by path or by inode (the disk reuses a freed inode at once: a new file of the user's
   * must never be taken for the deleted folder).
   */
  removed(path: string, inos: Iterable<string> = []): void {
    const forget = (id: string): void => {
      const ino = this.inoById.get(id);
      this.inoById.delete(id);
      if (ino !== undefined && this.idByIno.get(ino) === id) this.idByIno.delete(ino);
    };
    for (const [id, p] of this.pathById)
      if (p === path || p.startsWith(`${path}/`)) {
        this.pathById.delete(id);
        forget(id);
      }
    for (const ino of inos) {
      const id = this.idByIno.get(ino);
      if (id !== undefined) forget(id);
    }
  }
}
