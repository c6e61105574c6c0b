/**
 * The local model: per NAS object id, where its placeholder is on disk (local parent,
 * local name, inode as a decimal bigint string) and what the user last saw of it on the NAS
 * (remote parent, name, eTag). Keyed by id, never by path: a folder rename is one change.
 * A file is a placeholder, or holds content: a NAS version the engine downloaded (`content`,
 * recorded as the engine left it on disk), or the user's own (`filled`: local only).
 * In memory; `local-store.ts` persists it.
 */
import { IdFilter } from '../../app/util/id-filter.js';

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

/**
 * Where the entries not in memory are (the state database: `local-store.ts`). The model is
 * the truth for what it holds in memory (changed entries stay there until flushed); every
 * other entry is read from here on first use. Rows come back as new entries each time.
 */
export interface EntrySource {
  get(id: string): LocalEntry | undefined;
  /** The stored entries whose local folder is `id`. */
  childrenOf(id: string): Iterable<LocalEntry>;
  /** The stored entries with this inode. */
  withIno(ino: string): Iterable<LocalEntry>;
  /** Every stored folder entry. */
  dirs(): Iterable<LocalEntry>;
  /** Every stored entry. */
  all(): Iterable<LocalEntry>;
  count(): number;
  /** Ids of the stored entries holding the user's content (`filled`), and a downloaded NAS version. */
  filledIds(): Iterable<string>;
  contentIds(): Iterable<string>;
}

/**
 * The local model. Without a source (tests, a fresh mirror) every entry is in memory. With
 * one, entries are read on first use (by id, by folder, by inode) and `release` drops the
 * unchanged ones again at the engine's quiet moments: at a million entries the model is a
 * few thousand objects between rounds instead of a million (issue 24), and a restart reads
 * nothing up front. Callers never hold an entry across a `release` (it is called between rounds).
 */
export class LocalModel {
  private loaded = new Map<string, LocalEntry>();
  /** Local children of the folders in memory, by folder id (complete only for `foldersRead`, or when `complete`). */
  private kids = new Map<string, Set<string>>();
  /** Folders whose children are all in memory. */
  private foldersRead = new Set<string>();
  /** Folder ids in memory. */
  private dirIds = new Set<string>();
  /** Every folder is in memory (read by `dirs`, until released). */
  private dirsRead = false;
  /** Id by inode, of the entries in memory. */
  private inoIdx = new Map<string, string>();
  /** Every entry is in memory (no source, or all read). */
  private complete: boolean;
  /** Entries in all: in memory and in the source. */
  private total: number;
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
  /** Over a source that began empty: every id put since, so an id never put is not looked for in the source. */
  private readonly everPut: IdFilter | undefined;

  constructor(
    readonly rootId: string,
    entries: Iterable<LocalEntry> = [],
    private readonly source?: EntrySource,
  ) {
    this.total = source?.count() ?? 0;
    // an empty source (a first run) has nothing to read until a release: the first walk's puts ask it nothing
    this.complete = source === undefined || this.total === 0;
    if (source && this.total === 0) this.everPut = new IdFilter();
    if (source) {
      for (const id of source.filledIds()) this.withFilled.add(id);
      for (const id of source.contentIds()) this.withContent.add(id);
    }
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

  setStamp(id: string, stamp: string | undefined): void {
    if (this.stamps.get(id) === stamp) return;
    if (stamp === undefined) this.stamps.delete(id);
    else this.stamps.set(id, stamp);
    this.dirtyStamps.add(id);
  }

  /** Number of entries (the root included). */
  get size(): number {
    return this.total;
  }

  /** Entries whose placeholder holds the user's own content. */
  get filledCount(): number {
    return this.withFilled.size;
  }

  /** Entries in memory now (what `release` brings down). */
  get inMemory(): number {
    return this.loaded.size;
  }

  get(id: string): LocalEntry | undefined {
    return this.loaded.get(id) ?? this.read(id);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** The entry if it is in memory, without reading the source (what a flush writes). */
  peek(id: string): LocalEntry | undefined {
    return this.loaded.get(id);
  }

  /** Every entry (all are read into memory first). Changing entries meanwhile is allowed; adding is not seen. */
  entries(): IterableIterator<LocalEntry> {
    this.readAll();
    return this.loaded.values();
  }

  /** Every folder entry (all folders are read into memory first). */
  dirs(): LocalEntry[] {
    if (!this.complete && !this.dirsRead && this.source) for (const e of this.source.dirs()) this.admit(e);
    this.dirsRead = true;
    return [...this.dirIds].flatMap((id) => {
      const e = this.loaded.get(id);
      return e ? [e] : [];
    });
  }

  /** Adds a stored entry while loading (no dirty or touched tracking: nothing changed). */
  load(e: LocalEntry): void {
    const old = this.loaded.get(e.id);
    if (old) this.unindex(old);
    else this.total++;
    this.loaded.set(e.id, e);
    this.everPut?.add(e.id);
    this.index(e);
  }

  /** Inserts or replaces an entry, keeping the indexes right. */
  put(e: LocalEntry): void {
    const old = this.get(e.id);
    if (old) this.unindex(old);
    else this.total++;
    this.loaded.set(e.id, e);
    this.everPut?.add(e.id);
    this.changed(e.id);
    this.index(e);
  }

  remove(id: string): LocalEntry | undefined {
    const old = this.get(id);
    if (!old) return undefined;
    this.unindex(old);
    this.loaded.delete(id);
    this.total--;
    this.changed(id);
    this.setStamp(id, undefined);
    return old;
  }

  /** Updates fields of an entry (re-indexing). */
  update(id: string, patch: Partial<Omit<LocalEntry, 'id'>>): LocalEntry {
    const old = this.get(id);
    if (!old) throw new Error(`no entry ${id}`);
    const next = { ...old, ...patch };
    this.put(next);
    return next;
  }

  /** Records where an entry's placeholder now is on disk, in place (the hot path of a first fill). */
  place(id: string, lparent: string, lname: string, ino: string | null): void {
    const e = this.get(id);
    if (!e) throw new Error(`no entry ${id}`);
    this.unindex(e);
    e.lparent = lparent;
    e.lname = lname;
    e.ino = ino;
    this.index(e);
    this.changed(id);
  }

  /** Records the inode (and content state) an entry has on this mount, in place: a read by place re-binds a million at a time. */
  rebind(id: string, ino: string, filled: boolean): void {
    const e = this.get(id);
    if (!e) throw new Error(`no entry ${id}`);
    this.unindex(e);
    e.ino = ino;
    e.filled = filled;
    // a download recognised by place (its size and time checked there) is the same file under a new number
    if (e.content !== undefined) e.content = filled ? undefined : { ...e.content, ino };
    this.index(e);
    this.changed(id);
  }

  /**
   * Drops from memory the entries not changed since the last flush (they are read again on
   * use). Only between rounds: no caller may hold an entry across it. Without a source, nothing.
   */
  release(): void {
    if (!this.source) return;
    const keep = [...this.dirty].flatMap((id) => {
      const e = this.loaded.get(id);
      return e ? [e] : [];
    });
    this.loaded = new Map();
    this.kids = new Map();
    this.dirIds = new Set();
    this.inoIdx = new Map();
    this.foldersRead = new Set();
    this.dirsRead = false;
    this.complete = false;
    for (const e of keep) {
      this.loaded.set(e.id, e);
      this.link(e);
    }
  }

  /** The entry the source holds for an id not in memory (none when removed since the last flush). */
  private read(id: string): LocalEntry | undefined {
    if (this.complete || !this.source || this.dirty.has(id)) return undefined;
    if (this.everPut?.mayHold(id) === false) return undefined;
    const e = this.source.get(id);
    return e && this.admit(e);
  }

  /** Takes a stored entry into memory unless memory already says what it is (there, or removed). */
  private admit(e: LocalEntry): LocalEntry | undefined {
    const known = this.loaded.get(e.id);
    if (known) return known;
    if (this.dirty.has(e.id)) return undefined;
    this.loaded.set(e.id, e);
    this.link(e);
    return e;
  }

  private readAll(): void {
    if (this.complete || !this.source) return;
    for (const e of this.source.all()) this.admit(e);
    this.complete = true;
  }

  /** Reads the children of a folder into memory (once per folder until released). */
  private readFolder(id: string): void {
    if (this.complete || !this.source || this.foldersRead.has(id)) return;
    for (const e of this.source.childrenOf(id)) this.admit(e);
    this.foldersRead.add(id);
  }

  private changed(id: string): void {
    this.version++;
    this.dirty.add(id);
    this.touched.add(id);
  }

  /** The indexes of an entry in memory (where it is, by inode), without counting it as a change. */
  private link(e: LocalEntry): void {
    let s = this.kids.get(e.lparent);
    if (!s) this.kids.set(e.lparent, (s = new Set()));
    s.add(e.id);
    if (e.kind === 'dir') this.dirIds.add(e.id);
    if (e.ino !== null) this.inoIdx.set(e.ino, e.id);
  }

  private index(e: LocalEntry): void {
    this.version++;
    if (e.filled) this.withFilled.add(e.id);
    if (e.content !== undefined) this.withContent.add(e.id);
    this.link(e);
  }

  private unindex(e: LocalEntry): void {
    this.version++;
    this.withFilled.delete(e.id);
    this.withContent.delete(e.id);
    this.kids.get(e.lparent)?.delete(e.id);
    this.dirIds.delete(e.id);
    if (e.ino !== null && this.inoIdx.get(e.ino) === e.id) this.inoIdx.delete(e.ino);
  }

  /** Local children ids of a folder id (the root id for the mirror root). */
  children(id: string): string[] {
    this.readFolder(id);
    return [...(this.kids.get(id) ?? [])];
  }

  byIno(ino: string): LocalEntry | undefined {
    const id = this.inoIdx.get(ino);
    const e = id === undefined ? undefined : this.loaded.get(id);
    if (e?.ino === ino) return e;
    if (this.complete || !this.source) return undefined;
    for (const s of this.source.withIno(ino)) {
      const x = this.admit(s);
      if (x?.ino === ino) return x;
    }
    return undefined;
  }

  /** The entries of a folder by their NFC name, for `byInoIn`: what is still in place is found there without an inode lookup. */
  placeLookup(id: string): Map<string, LocalEntry> {
    const out = new Map<string, LocalEntry>();
    for (const k of this.children(id)) {
      const e = this.loaded.get(k);
      if (e) out.set(e.lname.normalize('NFC'), e);
    }
    return out;
  }

  /** The entry with inode `ino`: the one named `name` in `here` if its inode matches, else the inode lookup's. */
  byInoIn(here: ReadonlyMap<string, LocalEntry> | undefined, name: string, ino: string): LocalEntry | undefined {
    const e = here?.get(name.normalize('NFC'));
    return e !== undefined && e.ino === ino ? e : this.byIno(ino);
  }

  /** The folder on disk at these local path segments ([] = the root), by NFC name: placed and not held or deleting. */
  dirAt(segments: readonly string[]): LocalEntry | undefined {
    let cur = this.get(this.rootId);
    for (const seg of segments) {
      const name = seg.normalize('NFC');
      let next: LocalEntry | undefined;
      for (const k of cur ? this.children(cur.id) : []) {
        const e = this.loaded.get(k);
        if (e && e.kind === 'dir' && e.state === 'ok' && e.ino !== null && e.lname.normalize('NFC') === name) {
          next = e;
          break;
        }
      }
      if (!(cur = next)) return undefined;
    }
    return cur;
  }

  /** The folder at a local path ('' = the root) with inode `ino`: the model's entry at that path if its inode matches, else by inode. */
  dirByIno(path: string, ino: string): LocalEntry | undefined {
    let cur: LocalEntry | undefined = this.get(this.rootId);
    if (path !== '') {
      for (const seg of path.split('/')) {
        const name = seg.normalize('NFC');
        let next: LocalEntry | undefined;
        for (const k of cur ? this.children(cur.id) : []) {
          const e = this.loaded.get(k);
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
      const e = this.get(cur);
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
      cur = this.get(cur)?.lparent;
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
    return this.has(this.rootId) ? this.total - 1 : this.total;
  }
}

/** The local path of an id for people ('/'-joined), or `(id)` when unknown. */
export const pathOrId = (model: LocalModel, id: string): string => model.pathOf(id) ?? `(${id})`;
