/**
 * The local model: per NAS object id, where its placeholder is on disk (local parent,
 * local name, inode as a decimal bigint string) and what the user last saw of it on the NAS
 * (remote parent, name, eTag). Keyed by id, never by path: a folder rename is one change.
 * A file is a placeholder, or holds content: a NAS version the engine downloaded (`content`,
 * recorded as the engine left it on disk), or the user's own (`filled`: local only).
 * In memory; `local-store.ts` persists it.
 */

export type Kind = 'dir' | 'file';

/**
 * The inode of an entry that is on disk (or was) but whose inode is not known on this mount:
 * what is gone after a read by place (pair-by-place.ts), and what was below it. No disk gives
 * it, so no pairing by inode finds such an entry; the next read by place looks for it by place.
 */
export const UNVERIFIED_INO = '?';

/** ok: placed or to be placed; held: deleted locally, delete awaiting approval; deleting: delete queued. */
export type EntryState = 'ok' | 'held' | 'deleting';

/**
 * A NAS version held on this device (downloaded by the engine): its eTag, and the file as the
 * engine left it (size, mtime in whole ms as lstat gives them, inode). While the disk shows
 * exactly that, the content is the NAS's, not the user's.
 */
export interface HeldContent {
  etag: string;
  /** The NAS mTime of that version (with the size, what tells a new version from a rename: the eTag moves for both). */
  nasMtime: string;
  size: number;
  mtimeMs: number;
  ino: string;
}

/**
 * Whether what the disk shows of a file is the download the engine left there (not an edit).
 * `ino` undefined: not compared (a disk read by place, where inodes are not valid).
 */
export function asDownloaded(
  e: Pick<LocalEntry, 'kind' | 'content'>,
  d: { size: number; mtimeMs: number; ino?: string | undefined },
): boolean {
  const c = e.content;
  return e.kind === 'file' && c !== undefined && d.size === c.size && d.mtimeMs === c.mtimeMs && (d.ino === undefined || d.ino === c.ino);
}

export interface LocalEntry {
  id: string;
  kind: Kind;
  /** Local side: the id of the folder holding the placeholder, and its name on disk. */
  lparent: string;
  lname: string;
  /** Inode (bigint as decimal string); null when the placeholder is not on disk yet. */
  ino: string | null;
  /** The user put content into the placeholder: "local only" content. */
  filled: boolean;
  /** Remote base: what the user last saw on the NAS. */
  rparent: string;
  rname: string;
  etag: string;
  mtime: string;
  /** The store eTag last reconciled (a walk reporting it again is not news). */
  setag: string;
  state: EntryState;
  /** Set while the file holds a NAS version the engine downloaded (absent: a placeholder, or the user's content). */
  content?: HeldContent | undefined;
}

export class LocalModel {
  readonly byId = new Map<string, LocalEntry>();
  private kids = new Map<string, Set<string>>();
  /**
   * Id by inode, built on first use: a restart loading 1M entries needs it only once the disk
   * shows a change (pairing a move), so it is not built while the engine gets ready.
   */
  private inoIdx: Map<string, string> | undefined;
  /** The inode index while `indexInodesSoon` fills it (kept up to date with changes meanwhile). */
  private inoFilling: Map<string, string> | undefined;
  /** Ids written or removed since the last `takeDirty` (what the store must persist). */
  private dirty = new Set<string>();
  /** Folder stamps (see dir-stamps.ts), by folder id, and the ids whose stamp changed. */
  private stamps = new Map<string, string>();
  private dirtyStamps = new Set<string>();
  /** Ids changed since the last `takeTouched` (a partial reconcile plans them again). */
  private touched = new Set<string>();
  /** Ids of the files holding a downloaded NAS version (a NAS change to them is checked at each reconcile). */
  readonly withContent = new Set<string>();
  /** Ids of the entries whose placeholder holds the user's own content (`filled`; kept as entries change: status reads it often). */
  readonly withFilled = new Set<string>();
  /** Moves with every change of an entry (what a snapshot of the model, e.g. the search's device view, is checked against). */
  version = 0;

  constructor(
    readonly rootId: string,
    entries: Iterable<LocalEntry> = [],
  ) {
    for (const e of entries) this.put(e);
  }

  /** Ids changed since the last call (present = upsert, absent = delete), and resets. */
  takeDirty(): string[] {
    const d = [...this.dirty];
    this.dirty.clear();
    return d;
  }

  /** Marks an entry to be planned again, though nothing of it changed. */
  touch(id: string): void {
    this.touched.add(id);
  }

  /** Ids put, updated or removed since the last call (by anyone), and resets. */
  takeTouched(): Set<string> {
    const t = this.touched;
    this.touched = new Set();
    return t;
  }

  /** Ids whose folder stamp changed since the last call, and resets. */
  takeDirtyStamps(): string[] {
    const d = [...this.dirtyStamps];
    this.dirtyStamps.clear();
    return d;
  }

  stamp(id: string): string | undefined {
    return this.stamps.get(id);
  }

  /** Sets (or, with undefined, forgets) a folder's stamp. */
  setStamp(id: string, stamp: string | undefined): void {
    if (this.stamps.get(id) === stamp) return;
    if (stamp === undefined) this.stamps.delete(id);
    else this.stamps.set(id, stamp);
    this.dirtyStamps.add(id);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Entries whose placeholder holds the user's own content. */
  get filledCount(): number {
    return this.withFilled.size;
  }

  get(id: string): LocalEntry | undefined {
    return this.byId.get(id);
  }

  /** Adds a stored entry while loading (no dirty or touched tracking: nothing changed). */
  load(e: LocalEntry): void {
    this.byId.set(e.id, e);
    this.index(e);
  }

  /** Inserts or replaces an entry, keeping the indexes right. */
  put(e: LocalEntry): void {
    const old = this.byId.get(e.id);
    if (old) this.unindex(old);
    this.byId.set(e.id, e);
    this.dirty.add(e.id);
    this.touched.add(e.id);
    this.index(e);
  }

  remove(id: string): LocalEntry | undefined {
    const old = this.byId.get(id);
    if (!old) return undefined;
    this.unindex(old);
    this.byId.delete(id);
    this.dirty.add(id);
    this.touched.add(id);
    this.setStamp(id, undefined);
    return old;
  }

  /** Updates fields of an entry (re-indexing). */
  update(id: string, patch: Partial<Omit<LocalEntry, 'id'>>): LocalEntry {
    const old = this.byId.get(id);
    if (!old) throw new Error(`no entry ${id}`);
    const next = { ...old, ...patch };
    this.put(next);
    return next;
  }

  /** Records where an entry's placeholder now is on disk, in place (the hot path of a first fill). */
  place(id: string, lparent: string, lname: string, ino: string | null): void {
    const e = this.byId.get(id);
    if (!e) throw new Error(`no entry ${id}`);
    this.unindex(e);
    e.lparent = lparent;
    e.lname = lname;
    e.ino = ino;
    this.index(e);
    this.dirty.add(id);
    this.touched.add(id);
  }

  /** Records the inode (and content state) an entry has on this mount, in place: a read by place re-binds a million at a time. */
  rebind(id: string, ino: string, filled: boolean): void {
    const e = this.byId.get(id);
    if (!e) throw new Error(`no entry ${id}`);
    this.unindex(e);
    e.ino = ino;
    e.filled = filled;
    // a download recognised by place (its size and time checked there) is the same file under a new number
    if (e.content !== undefined) e.content = filled ? undefined : { ...e.content, ino };
    this.index(e);
    this.dirty.add(id);
    this.touched.add(id);
  }

  private index(e: LocalEntry): void {
    this.version++;
    if (e.filled) this.withFilled.add(e.id);
    if (e.content !== undefined) this.withContent.add(e.id);
    let s = this.kids.get(e.lparent);
    if (!s) this.kids.set(e.lparent, (s = new Set()));
    s.add(e.id);
    if (e.ino !== null) (this.inoIdx ?? this.inoFilling)?.set(e.ino, e.id);
  }

  private unindex(e: LocalEntry): void {
    this.version++;
    this.withFilled.delete(e.id);
    this.withContent.delete(e.id);
    this.kids.get(e.lparent)?.delete(e.id);
    const inos = this.inoIdx ?? this.inoFilling;
    if (e.ino !== null && inos?.get(e.ino) === e.id) inos.delete(e.ino);
  }

  /**
   * Builds the inode index in slices between other work (the engine calls it once ready), so
   * the first change the disk shows finds it built. A `byIno` call before the end builds it at once.
   */
  async indexInodesSoon(slice = 50_000): Promise<void> {
    if (this.inoIdx || this.inoFilling) return;
    const filling = (this.inoFilling = new Map());
    let n = 0;
    for (const e of this.byId.values()) {
      if (this.inoFilling !== filling) return; // built at once meanwhile
      if (e.ino !== null) filling.set(e.ino, e.id);
      if (++n % slice === 0) await new Promise((r) => setImmediate(r));
    }
    if (this.inoFilling !== filling) return;
    this.inoFilling = undefined;
    this.inoIdx = filling;
  }

  /** Local children ids of a folder id (the root id for the mirror root). */
  children(id: string): string[] {
    return [...(this.kids.get(id) ?? [])];
  }

  /** Whether the inode index is built (lookups by place do not build it). */
  get inodesIndexed(): boolean {
    return this.inoIdx !== undefined;
  }

  byIno(ino: string): LocalEntry | undefined {
    if (!this.inoIdx) {
      this.inoFilling = undefined;
      this.inoIdx = new Map();
      for (const e of this.byId.values()) if (e.ino !== null) this.inoIdx.set(e.ino, e.id);
    }
    const id = this.inoIdx.get(ino);
    return id === undefined ? undefined : this.byId.get(id);
  }

  /**
   * The entries of a folder by their NFC name, for `byInoIn`: a folder read from disk finds
   * what is still in place without the inode index, so a restart's few changed folders do not
   * build it for a million entries. Undefined once the index is built (a lookup there is cheaper).
   */
  placeLookup(id: string): Map<string, LocalEntry> | undefined {
    if (this.inoIdx) return undefined;
    const out = new Map<string, LocalEntry>();
    for (const k of this.kids.get(id) ?? []) {
      const e = this.byId.get(k);
      if (e) out.set(e.lname.normalize('NFC'), e);
    }
    return out;
  }

  /** The entry with inode `ino`: the one named `name` in `here` if its inode matches, else the inode index's. */
  byInoIn(here: ReadonlyMap<string, LocalEntry> | undefined, name: string, ino: string): LocalEntry | undefined {
    const e = here?.get(name.normalize('NFC'));
    return e !== undefined && e.ino === ino ? e : this.byIno(ino);
  }

  /** The folder on disk at these local path segments ([] = the root), by NFC name: placed and not held or deleting. */
  dirAt(segments: readonly string[]): LocalEntry | undefined {
    let cur = this.byId.get(this.rootId);
    for (const seg of segments) {
      const name = seg.normalize('NFC');
      let next: LocalEntry | undefined;
      for (const k of this.kids.get(cur?.id ?? '') ?? []) {
        const e = this.byId.get(k);
        if (e && e.kind === 'dir' && e.state === 'ok' && e.ino !== null && e.lname.normalize('NFC') === name) {
          next = e;
          break;
        }
      }
      if (!(cur = next)) return undefined;
    }
    return cur;
  }

  /**
   * The folder at a local path ('' = the root) with inode `ino`: the model's entry at that path
   * if its inode matches (while the inode index is not built), else the index's.
   */
  dirByIno(path: string, ino: string): LocalEntry | undefined {
    if (this.inoIdx) return this.byIno(ino);
    let cur: LocalEntry | undefined = this.byId.get(this.rootId);
    if (path !== '') {
      for (const seg of path.split('/')) {
        const name = seg.normalize('NFC');
        let next: LocalEntry | undefined;
        for (const k of this.kids.get(cur?.id ?? '') ?? []) {
          const e = this.byId.get(k);
          if (e && e.kind === 'dir' && e.lname.normalize('NFC') === name) {
            next = e;
            break;
          }
        }
        if (!(cur = next)) break;
      }
    }
    return cur !== undefined && cur.ino === ino ? cur : this.byIno(ino);
  }

  /** The local path segments of an entry ([] for the root); undefined if the chain is broken. */
  segments(id: string): string[] | undefined {
    const out: string[] = [];
    let cur = id;
    for (let guard = 0; cur !== this.rootId; guard++) {
      const e = this.byId.get(cur);
      if (!e || guard > 10_000) return undefined;
      out.push(e.lname);
      cur = e.lparent;
    }
    return out.reverse();
  }

  /** The local path, '/'-joined, relative to the mirror root ('' for the root). */
  pathOf(id: string): string | undefined {
    return this.segments(id)?.join('/');
  }

  /** True when `id` is `anc` or below it locally. */
  isUnder(id: string, anc: string): boolean {
    let cur: string | undefined = id;
    for (let guard = 0; cur !== undefined && guard < 10_000; guard++) {
      if (cur === anc) return true;
      if (cur === this.rootId) return false;
      cur = this.byId.get(cur)?.lparent;
    }
    return false;
  }

  /** Ids of every entry strictly below `id` locally. */
  descendants(id: string): string[] {
    const out: string[] = [];
    const stack = this.children(id);
    while (stack.length) {
      const c = stack.pop()!;
      out.push(c);
      for (const k of this.children(c)) stack.push(k);
    }
    return out;
  }

  /** Number of objects mirrored (the root not counted). */
  objectCount(): number {
    return this.byId.has(this.rootId) ? this.byId.size - 1 : this.byId.size;
  }
}

/** The local path of an id for people ('/'-joined), or `(id)` when unknown. */
export const pathOrId = (model: LocalModel, id: string): string => model.pathOf(id) ?? `(${id})`;
