/**
 * The new entries a local batch found (pair moves' local-only finds): which are created on the
 * NAS, which wait for the user's word (a mass upload), and why the others stay local only. Built
 * after the pairing is recorded in the model; `list` runs in the batch's one transaction.
 */
import type { DirScan, DiskEntry } from '../local/analyse.js';
import { BACKUP, type LocalOnlyFind, type PairResult } from '../local/pair-moves.js';
import { safeJoin } from '../local/path-safety.js';
import type { Core } from './core.js';

/** What the new entries' tests use of the engine's context. */
export type NewEntriesPort = Pick<Core, 'root' | 'model' | 'disk' | 'uploads' | 'local' | 'creates' | 'tombstones' | 'threshold'>;

/** A new entry created on the NAS: in a mirrored folder, a folder or a file. */
export type Creatable = LocalOnlyFind & { parent: string; kind: 'dir' | 'file' };

/** New entries that wait for the user's word: the recent rows to hold with them, and why in words. */
export interface MassUpload {
  recent: number[];
  why: string;
}

/**
 * Editors' temporary and backup files (pair-moves' BACKUP, Office's `~$x`, LibreOffice's
 * `.~lock.x#`, partial downloads): never uploaded.
 */
const TEMPORARY = new RegExp(`${BACKUP.source}|^~\\$|\\.(part|crdownload)$`, 'i');

/** More bytes than this in new files at once wait for the user's word (5 GiB). */
export const MASS_UPLOAD_BYTES = 5 * 1024 ** 3;

/** The batch's new entries, each tested once: created on the NAS, or local only and why. */
export class NewEntries {
  /** The entries created on the NAS (decided once per entry: a folder's test reads the disk below it). */
  readonly fresh: Creatable[];
  /** Set when they are many at once: they wait for the user's word before anything goes up. */
  readonly mass: MassUpload | undefined;
  private readonly freshSet: Set<LocalOnlyFind>;
  private readonly suspects: Set<string>;
  /** The scans' entries by path: built only for a batch that found new entries (not for every read). */
  private readonly entryAt = new Map<string, DiskEntry>();
  private readonly placeholderLikeAt = new Map<string, boolean>();

  constructor(
    private readonly core: NewEntriesPort,
    pair: Pick<PairResult, 'uncertain' | 'localOnly'>,
    scans: readonly DirScan[],
    now: number,
  ) {
    // New entries the user made in a mirrored folder are created on the NAS; not a hard link to a
    // known entry, nor an appearance that may be a known entry changed (held: its candidates).
    // (also what an earlier batch named as where a held entry may have gone: until the user says, it may be that entry)
    this.suspects = new Set(pair.uncertain.flatMap((u) => u.candidates));
    if (core.uploads && pair.localOnly.length) for (const h of core.local.held()) for (const c of h.candidates ?? []) this.suspects.add(c);
    // (nor an editor's temporary or backup file, `a~`, `.swp`, `~$doc`, `.~lock`..., as other sync clients skip them)
    // (nor an entry the NAS deleted while it was renamed or moved here: its inode is a tombstone)
    // (nor what looks like placeholders: an empty file, a folder holding only empty files: a copy
    // of placeholders, or placeholders of a folder the NAS deleted while it was renamed here;
    // soak seeds 7000, 7002. An empty folder is created: files are moved into new folders.)
    if (core.uploads && pair.localOnly.length) {
      for (const [ino, until] of core.tombstones) if (until < now) core.tombstones.delete(ino);
      for (const sc of scans) for (const d of sc.entries) this.entryAt.set(sc.path === '' ? d.name : `${sc.path}/${d.name}`, d);
    }
    this.fresh = pair.localOnly.filter((lo): lo is Creatable => this.isCreatable(lo));
    this.freshSet = new Set<LocalOnlyFind>(this.fresh);
    // Many new entries at once (a whole disk copied into the mirror by mistake) wait for the
    // user's word before anything goes up, like mass deletes: this batch's new entries (with
    // everything inside new folders) and those of the last minute not started yet.
    const approved = this.fresh.length ? core.creates.approvedFolders() : new Set<string>();
    this.mass = this.fresh.length
      ? massUpload(
          core,
          this.fresh.filter((f) => !insideApproved(core, approved, f.parent)),
          this.entryAt,
          now,
        )
      : undefined;
  }

  /** Whether this entry is created on the NAS (as decided when the batch was read). */
  creatable(lo: LocalOnlyFind): lo is Creatable {
    return this.freshSet.has(lo);
  }

  /**
   * Lists one new entry as local only and, when it is created on the NAS, records its create
   * (in the batch's transaction): whether a create was added.
   */
  list(lo: LocalOnlyFind): boolean {
    const { creates, local } = this.core;
    if (!this.creatable(lo)) {
      local.addLocalOnly(lo.parent === undefined ? { path: lo.path } : { parent: lo.parent, name: lo.name }, lo.kind, this.whyNot(lo));
      return false;
    }
    const refused = creates.refusedAt(lo.parent, lo.name);
    if (refused !== undefined) {
      local.addLocalOnly({ parent: lo.parent, name: lo.name }, lo.kind, `not on the NAS: ${refused}`);
      return false;
    }
    const { mass } = this;
    const added = creates.add(lo.kind, lo.parent, lo.name, mass !== undefined);
    const waits = mass !== undefined || (!added && creates.isHeld(lo.parent, lo.name));
    local.addLocalOnly(
      { parent: lo.parent, name: lo.name },
      lo.kind,
      waits ? `new here: waits for your OK to upload${mass ? ` (${mass.why})` : ''}` : 'new here: being created on the NAS',
    );
    return added;
  }

  /** The test of a new entry, in the order of its cheap parts first. */
  private isCreatable(lo: LocalOnlyFind): lo is Creatable {
    return (
      this.core.uploads &&
      lo.fresh === true &&
      lo.parent !== undefined &&
      (lo.kind === 'dir' || lo.kind === 'file') &&
      !this.suspects.has(lo.path) &&
      !(lo.kind === 'file' && TEMPORARY.test(lo.name)) &&
      !this.deletedOnNas(lo.path) &&
      !this.placeholderLike(lo)
    );
  }

  /** Why an entry not created on the NAS stays local only, in words. */
  private whyNot(lo: LocalOnlyFind): string {
    if (!this.core.uploads) return 'not on the NAS: new files stay on this computer (uploads are off)';
    if (lo.fresh === true && TEMPORARY.test(lo.name)) return "not on the NAS: an editor's temporary or backup file (not uploaded)";
    if (this.deletedOnNas(lo.path))
      return 'not on the NAS: it was deleted there while you renamed or moved it here (kept here, not created again)';
    if (lo.fresh === true && lo.parent !== undefined && this.placeholderLike(lo))
      return (
        `not on the NAS: ${lo.kind === 'file' ? 'an empty file' : 'a folder holding only empty files'} looks like placeholders ` +
        '(a copy of some, or of a folder the NAS deleted): not uploaded; content put in it goes up'
      );
    if (lo.parent === undefined) return 'not on the NAS: inside a folder the NAS does not have (yet)';
    return 'not on the NAS: it may be an entry of the mirror changed (see held), or a second name of one (a hard link)';
  }

  /** The entry at this path was deleted on the NAS while renamed or moved here (its inode is a tombstone). */
  private deletedOnNas(path: string): boolean {
    const ino = this.entryAt.get(path)?.ino;
    return ino !== undefined && this.core.tombstones.has(ino);
  }

  /** An empty file, or a folder holding only empty files (decided once per path). */
  private placeholderLike(lo: { path: string; kind: string }): boolean {
    let v = this.placeholderLikeAt.get(lo.path);
    if (v === undefined)
      this.placeholderLikeAt.set(
        lo.path,
        (v = lo.kind === 'file' ? (this.entryAt.get(lo.path)?.size ?? 0) === 0 : onlyEmptyFiles(this.core, lo.path)),
      );
    return v;
  }
}

/** In (or below) a folder made from a mass upload the user approved: approved with it. */
function insideApproved(core: Pick<Core, 'model'>, approved: ReadonlySet<string>, parent: string): boolean {
  if (approved.size === 0) return false;
  for (let cur: string | undefined = parent, guard = 0; cur !== undefined && cur !== '' && guard < 10_000; guard++) {
    if (approved.has(cur)) return true;
    cur = core.model.get(cur)?.lparent;
  }
  return false;
}

/**
 * A folder holding files, every one of them empty (read on the disk, up to 10,000 entries; more
 * is not "only placeholders"): what a copy of placeholders, or a renamed placeholder folder,
 * looks like. An empty folder is not (a new folder to move files into).
 */
function onlyEmptyFiles(core: Pick<Core, 'root' | 'disk'>, path: string): boolean {
  let files = 0;
  let seen = 0;
  for (const e of below(core, path)) {
    if (e.size === undefined || ++seen > 10_000) return false;
    if (e.dir) continue;
    if (e.size > 0) return false;
    files++;
  }
  return files > 0;
}

/**
 * What is below folder `path` on the disk, depth first, read as it is asked for: each entry's
 * path, kind and size (a file's lstat; `size` undefined: a folder that cannot be read, or a
 * file gone meanwhile).
 */
function* below(core: Pick<Core, 'root' | 'disk'>, path: string): Generator<{ path: string; dir: boolean; size: number | undefined }> {
  const stack = [path];
  while (stack.length) {
    const dir = stack.pop()!;
    let kids: { name: string; dir: boolean }[];
    try {
      kids = core.disk.readdirKinds(safeJoin(core.root, dir.split('/')));
    } catch {
      yield { path: dir, dir: true, size: undefined };
      continue;
    }
    for (const k of kids) {
      const p = `${dir}/${k.name}`;
      if (k.dir) {
        stack.push(p);
        yield { path: p, dir: true, size: 0 };
        continue;
      }
      let size: number | undefined;
      try {
        size = Number(core.disk.lstat(safeJoin(core.root, p.split('/'))).size);
      } catch {
        size = undefined;
      }
      yield { path: p, dir: false, size };
    }
  }
}

/**
 * Whether these new entries (and everything inside the new folders, read from the disk: the
 * walk stops once over a limit) with the rows of the last minute not started yet make a mass
 * upload: more items than the delete limit's count, or more than MASS_UPLOAD_BYTES. Then the
 * recent rows to hold too, and why in words.
 */
function massUpload(
  core: Pick<Core, 'root' | 'disk' | 'threshold' | 'creates'>,
  fresh: readonly { path: string; kind: string }[],
  entryAt: ReadonlyMap<string, DiskEntry>,
  now: number,
): MassUpload | undefined {
  if (fresh.length === 0) return undefined;
  const limit = core.threshold.count;
  const recent = core.creates.recentPending(new Date(now - 60_000).toISOString());
  let items = recent.length + fresh.length;
  let bytes = 0;
  const over = (): boolean => items > limit || bytes > MASS_UPLOAD_BYTES;
  for (const f of fresh) if (f.kind === 'file') bytes += entryAt.get(f.path)?.size ?? 0;
  for (const f of fresh) {
    if (f.kind !== 'dir') continue;
    for (const e of below(core, f.path)) {
      if (over()) break;
      // (a folder that cannot be read is counted by the batch that finds what is in it)
      if (e.path === f.path || (e.dir && e.size === undefined)) continue;
      items++;
      bytes += e.size ?? 0;
    }
  }
  if (!over()) return undefined;
  const gb = (n: number): string => `${(n / 1024 ** 3).toFixed(1)} GB`;
  return {
    recent,
    why: items > limit ? `more than ${limit} new items at once` : `more than ${gb(MASS_UPLOAD_BYTES)} of new files at once`,
  };
}
