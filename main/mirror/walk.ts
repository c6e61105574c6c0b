/**
 * Step 1 of the remote pipeline (walk -> diff -> apply): lists the NAS breadth-first from
 * `root`, several folders at once, every page of each (1000 per page). Hands each page to
 * `onPage` as it arrives (synchronously, so diff+apply run in page order per folder) and
 * reports progress. Says whether the walk was COMPLETE: only then may deletions be concluded.
 * A folder listed in full before is asked again with If-None-Match, page by page: when every
 * page answers 304 its children are the stored ones (`unchanged`) and nothing is transferred;
 * they are seen as that folder's children, not read id by id (walk-seen.ts).
 * Small folders (by the childCount their parent listed) are listed several in one request
 * (`ids=a,b,c`, one flat page: `unitsOf`), conditionally too: a 15k-folder NAS of a million
 * objects is ~2k requests a walk, not 15k (most of a re-walk's CPU was the requests). A group
 * whose answer would take more than a page, or that the NAS refuses (a folder gone: 404; a device
 * that lists one folder a request: 400), is listed folder by folder instead.
 * Bounded against a hostile NAS: a page token repeated within a folder (a cycle), pages that
 * bring no new object, or more pages than the folder's `childCount` allows fail the walk
 * (incomplete: nothing is deleted); objects the schema refuses are skipped, reported and make
 * the walk incomplete too. The progress says how many items the walk knows exist (walk-total.ts).
 */
import { createHash } from 'node:crypto';
import { AppError, toAppError } from '../../app/errors.js';
import { plural } from '../../app/util/human.js';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import type { CheckedListing } from '../client/parse.js';
import type { ServiceClient } from '../client/service-client.js';
import type { FolderChildren, ListedFolder, ListingChain, StoredListing } from './store.js';
import { WalkSeen } from './walk-seen.js';
import { WalkTotal, type TotalView } from './walk-total.js';

/** Pages one folder may take when its `childCount` is unknown (2M objects at 1000 a page). */
export const MAX_PAGES_PER_FOLDER = 2000;
/** Pages in a row that bring no new object before a folder's listing is given up. */
export const MAX_IDLE_PAGES = 2;
/** The most folders listed in one request (the service takes up to 100 ids). */
export const GROUP_MAX = 50;

/** Small folders listed in one request (`key`: what their stored chains name). */
export interface Group {
  ids: string[];
  key: string;
}

/** A folder to list alone, or a group. */
export type Unit = string | Group;

/** A folder met in its parent's listing, with the childCount listed (or stored). */
export type Subfolder = ListedFolder;

/** Ids that can go in a comma-separated list as they are. */
const GROUPABLE_ID = /^[A-Za-z0-9_.~-]{1,200}$/;

/** FNV-1a of an id: where a group ends, from the ids alone (a folder added or gone moves one group's bounds, not its neighbours'). */
function endsGroup(id: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % 8 === 0;
}

/** The key of a group: what its members' stored chains name (the same folders asked together again). */
export const groupKey = (ids: readonly string[]): string => createHash('sha1').update(ids.join(',')).digest('base64url').slice(0, 16);

/**
 * Folders to list, in units: by id, folders of at most a quarter page of children (as their
 * parent listed them) in groups of up to GROUP_MAX whose children fit in one page, each group
 * ending where an id says so (`endsGroup`, ~8 folders) so that the same folders make the same
 * groups walk after walk; the others (bigger, or of unknown size, or an id a list cannot carry)
 * alone.
 */
export function unitsOf(folders: readonly Subfolder[], pageSize: number): Unit[] {
  const out: Unit[] = [];
  let ids: string[] = [];
  let sum = 0;
  const cut = (): void => {
    if (ids.length === 1) out.push(ids[0]!);
    else if (ids.length > 1) out.push({ ids, key: groupKey(ids) });
    ids = [];
    sum = 0;
  };
  const sorted = [...folders].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const { id, childCount: n } of sorted) {
    if (n === undefined || n > pageSize / 4 || !GROUPABLE_ID.test(id)) {
      out.push(id);
      continue;
    }
    if (ids.length >= GROUP_MAX || sum + n > pageSize) cut();
    ids.push(id);
    sum += n;
    if (endsGroup(id)) cut();
  }
  cut();
  return out;
}

/**
 * The most pages a folder of `childCount` children may take: one object a page at least, plus
 * slack for objects added while it is listed.
 */
export const pagesAllowed = (childCount: number | undefined): number =>
  childCount === undefined ? MAX_PAGES_PER_FOLDER : Math.min(MAX_PAGES_PER_FOLDER, childCount + 10);

export interface WalkProgress extends TotalView {
  /** Folders discovered (queued or listed). */
  folders: number;
  /** Folders fully listed. */
  foldersDone: number;
  /** Of those, folders whose every page answered 304 (unchanged since the last walk). */
  unchanged: number;
  /** Objects seen (each id once; a 304 folder's stored children counted as a whole). */
  objects: number;
  pages: number;
  elapsedMs: number;
  /** Objects per second so far. */
  rate: number;
}

export interface WalkOptions {
  /** Folders listed at once (default 8). */
  concurrency?: number;
  /** Page size (default 1000). */
  pageSize?: number;
  signal?: AbortSignal;
  /** Each page of objects, with the folder it lists. Throwing stops the walk (incomplete). */
  onPage: (objects: RemoteObject[], folderId: string) => void;
  onProgress?: (p: WalkProgress) => void;
  /** Something odd but harmless the NAS did (logged by the caller), e.g. a page token equal to the one sent. */
  onWarning?: (message: string, folderId: string) => void;
  /** The root folder, as soon as it is fetched (before any listing). */
  onRoot?: (root: RemoteObject) => void;
  /** Folders to list (default: the root, fetched first). */
  startFolders?: readonly string[];
  /** What the pass has seen so far (its walks share one; default: a new one). */
  seen?: WalkSeen;
  /**
   * Conditional re-walks: the folders' stored listings (their chains, and what each held
   * then), what a folder holds in the store (for a listing stored without it), and where to
   * record new listings.
   */
  conditional?: {
    known(folderIds: readonly string[]): ReadonlyMap<string, StoredListing>;
    children(folderId: string): FolderChildren;
    listed(folderId: string, chain: ListingChain, children: FolderChildren): void;
    /** The folder's stored childCount (bounds its pages when its parent answered 304, so its own childCount was not listed). */
    childCount?(folderId: string): number | undefined;
  };
}

export type WalkResult =
  | { complete: true; root: RemoteObject | undefined; seen: WalkSeen; progress: WalkProgress }
  | { complete: false; root: RemoteObject | undefined; seen: WalkSeen; progress: WalkProgress; error: AppError };

const NO_PROGRESS: WalkProgress = {
  folders: 0,
  foldersDone: 0,
  unchanged: 0,
  objects: 0,
  pages: 0,
  elapsedMs: 0,
  rate: 0,
  known: null,
  settled: false,
  recentRate: 0,
};

export async function walk(client: ServiceClient, opts: WalkOptions): Promise<WalkResult> {
  const w: WalkState = {
    client,
    opts,
    started: Date.now(),
    pageSize: opts.pageSize ?? 1000,
    seen: opts.seen ?? new WalkSeen(),
    queued: new Set<string>(),
    queue: [],
    ungrouped: false,
    progress: { ...NO_PROGRESS },
    total: new WalkTotal(null, Date.now()),
    root: undefined,
    failure: undefined,
    invalid: [],
    invalidCount: 0,
    childCounts: new Map<string, number>(),
    active: 0,
    wake: undefined,
  };
  try {
    await queueStart(w);
  } catch (e) {
    return { complete: false, root: w.root, seen: w.seen, progress: w.progress, error: toAppError(e) };
  }
  await runWorkers(w, Math.max(1, opts.concurrency ?? 8));
  report(w);
  return resultOf(w);
}

/** What the folder listings of one walk share. */
interface WalkState {
  readonly client: ServiceClient;
  readonly opts: WalkOptions;
  readonly started: number;
  readonly pageSize: number;
  readonly seen: WalkSeen;
  /** Folders queued to list (each once). */
  readonly queued: Set<string>;
  /** Folders to list, alone or in groups. */
  readonly queue: Unit[];
  /** The NAS refused a listing of several folders (400): folder by folder for the rest of this walk. */
  ungrouped: boolean;
  readonly progress: WalkProgress;
  /** The items known to exist so far (a walk from the root only). */
  total: WalkTotal;
  root: RemoteObject | undefined;
  failure: AppError | undefined;
  /** Objects the schema refused (skipped): the walk is then incomplete. */
  readonly invalid: string[];
  invalidCount: number;
  /** Folders' childCount as listed (bounds their pages). */
  readonly childCounts: Map<string, number>;
  /** Folders being listed now. */
  active: number;
  /** Wakes the workers waiting for a folder to list. */
  wake: (() => void) | undefined;
}

/** Hands a copy of the progress so far to `onProgress`. */
function report(w: WalkState): void {
  const { progress } = w;
  const now = Date.now();
  progress.elapsedMs = now - w.started;
  progress.rate = progress.elapsedMs > 0 ? Math.round((progress.objects * 1000) / progress.elapsedMs) : 0;
  w.total.page(progress.objects, now);
  Object.assign(progress, w.total.view(progress.objects, now));
  w.opts.onProgress?.({ ...progress });
}

/** Wakes every worker waiting for a folder to list. */
function wakeAll(w: WalkState): void {
  const wake = w.wake;
  w.wake = undefined;
  wake?.();
}

/**
 * Queues the folders not queued yet, in units (`unitsOf`), and wakes the workers: the
 * subfolders of one listing unit (a folder, or a group) at once, whether it was listed or
 * answered 304, so that the same folders make the same groups at the next walk.
 */
function queueFolders(w: WalkState, folders: readonly Subfolder[]): void {
  const fresh: Subfolder[] = [];
  for (const f of folders) {
    if (w.queued.has(f.id)) continue;
    w.queued.add(f.id);
    w.progress.folders++;
    w.total.met(f.childCount);
    fresh.push(f);
  }
  if (!fresh.length) return;
  w.queue.push(...unitsOf(fresh, w.pageSize));
  wakeAll(w);
}

/** Counts an object a listing brought; a folder's childCount is kept (it bounds the folder's pages). */
function sawListed(w: WalkState, o: RemoteObject): void {
  if (w.seen.add(o.id)) w.progress.objects++;
  if (o.mimeType === FOLDER_MIME && o.childCount !== undefined) w.childCounts.set(o.id, o.childCount);
}

/** The object as a subfolder to walk (queued once its listing unit is whole), or undefined for a file. */
const subfolderOf = (o: RemoteObject): Subfolder | undefined =>
  o.mimeType === FOLDER_MIME ? { id: o.id, childCount: o.childCount } : undefined;

/** Queues a folder to list alone (the root, or a folder a walk starts from) unless it was queued already. */
function queueFolder(w: WalkState, id: string): void {
  if (w.queued.has(id)) return;
  w.queued.add(id);
  w.queue.push(id);
  w.progress.folders++;
}

/** Queues the folders to list first: the ones given, else the root (fetched first). */
async function queueStart(w: WalkState): Promise<void> {
  const { opts } = w;
  if (opts.startFolders) for (const id of opts.startFolders) queueFolder(w, id);
  else {
    const root = (w.root = await w.client.get('root', { signal: opts.signal }));
    if (root.childCount !== undefined) w.childCounts.set(root.id, root.childCount);
    w.total = new WalkTotal(root.childCount, w.started);
    opts.onRoot?.(root);
    queueFolder(w, root.id);
  }
}

/** Lists the queued folders, `concurrency` at once, until none is left or one failed. */
function runWorkers(w: WalkState, concurrency: number): Promise<void> {
  return new Promise<void>((resolve) => {
    void Promise.all(Array.from({ length: concurrency }, () => worker(w))).then(() => resolve());
  });
}

/** Takes folders from the queue and lists them; waits while other folders being listed may queue more. */
async function worker(w: WalkState): Promise<void> {
  for (;;) {
    if (w.failure) return;
    const next = w.queue.shift();
    if (next === undefined) {
      if (w.active === 0) {
        wakeAll(w);
        return;
      }
      await nextWake(w);
      continue;
    }
    w.active++;
    try {
      if (typeof next === 'string') {
        await listFolder(w, next);
        w.progress.foldersDone++;
      } else w.progress.foldersDone += await listGroup(w, next);
    } catch (e) {
      w.failure ??= toAppError(e);
      wakeAll(w);
    } finally {
      w.active--;
    }
    if (w.active === 0 && w.queue.length === 0) wakeAll(w);
  }
}

/** Resolves at the next `wakeAll`. */
function nextWake(w: WalkState): Promise<void> {
  return new Promise<void>((r) => {
    const prev = w.wake;
    w.wake = () => {
      prev?.();
      r();
    };
  });
}

/** One folder's listing under way: where it is in the stored chain and the pages, and the bounds it has used. */
interface FolderListing {
  readonly folderId: string;
  /** The stored listing chain, asked page by page with If-None-Match while `conditional`. */
  readonly known: ListingChain | undefined;
  /** What the folder held when that chain was stored. */
  readonly children: FolderChildren | undefined;
  conditional: boolean;
  token: string;
  /** The page of `known` asked next. */
  i: number;
  /** The chain of this listing, recorded when it ends. */
  readonly chain: ListingChain;
  pages: number;
  // bounds: tokens already sent in this listing, pages without a new object, pages allowed
  readonly sent: Set<string>;
  readonly mine: Set<string>;
  idle: number;
  skipped: boolean;
  allowed: number | undefined;
  /** Its subfolders, queued once its listing is whole (as a 304 queues them: the same groups either way). */
  readonly folders: Subfolder[];
}

type Listed = Awaited<ReturnType<ServiceClient['listIfChanged']>>;

/**
 * Lists one folder, every page. With a stored chain the pages are asked with If-None-Match
 * first: every page 304 = its stored children stand; the first page changed = it is used as
 * the first page of a full listing; a later page changed = listed again from the start
 * (the objects of the 304 pages before it are not at hand).
 */
async function listFolder(w: WalkState, folderId: string): Promise<void> {
  const { opts } = w;
  const stored = opts.conditional?.known([folderId]).get(folderId);
  const known = stored?.chain;
  const f: FolderListing = {
    folderId,
    known,
    children: stored?.children,
    // (a chain of a group stands only for that group asked together: `listGroup`)
    conditional: known !== undefined && known.length > 0 && known[0]!.group === undefined,
    token: '',
    i: 0,
    chain: [],
    pages: 0,
    sent: new Set<string>(),
    mine: new Set<string>(),
    idle: 0,
    skipped: false,
    allowed: undefined,
    folders: [],
  };
  for (;;) {
    if (opts.signal?.aborted) throw new AppError('Cancelled', 'walk cancelled');
    let r: Listed;
    try {
      r = await w.client.listIfChanged(folderId, pageRequest(w, f));
    } catch (e) {
      forgetGone(w, f, e);
      return;
    }
    if (w.failure) return;
    w.progress.pages++;
    if (r.notModified) {
      if (takeNotModified(w, f)) return;
      continue;
    }
    if (f.conditional && f.i > 0) {
      f.conditional = false;
      f.token = '';
      continue;
    }
    f.conditional = false;
    const next = takePage(w, f, r.page, r.etag);
    if (next === '') break;
    checkBounds(w, f, next);
    f.token = next;
  }
  queueFolders(w, f.folders);
  // the chain is kept only when every page carried an ETag and every object was readable
  if (opts.conditional && f.chain.length === f.pages && !f.skipped)
    opts.conditional.listed(folderId, f.chain, { count: f.mine.size, folders: f.folders });
}

/** The request for the listing's next page (with If-None-Match while it is conditional). */
function pageRequest(w: WalkState, f: FolderListing): Parameters<ServiceClient['listIfChanged']>[1] {
  const ifNoneMatch = f.conditional ? f.known![f.i]!.etag : undefined;
  return {
    limit: w.pageSize,
    pageToken: f.token,
    signal: w.opts.signal,
    ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}),
  };
}

/** Rethrows `e` unless it says the folder (not the root) is gone: then neither it nor what its pages brought is seen. */
function forgetGone(w: WalkState, f: FolderListing, e: unknown): void {
  if (!(e instanceof AppError && e.code === 'NotFound') || f.folderId === w.root?.id) throw e;
  // Gone since it was listed in its parent (deleted meanwhile; a device's trash or a
  // lingering delete lists it for a while, also in a parent answered 304): neither it nor
  // what its pages brought counts as seen, so the re-check by id after the walk (sync.ts)
  // takes them out of the store. The walk goes on: one folder gone is not an outage.
  for (const id of [f.folderId, ...f.mine]) {
    w.seen.forget(id);
    w.queued.delete(id);
  }
  w.total.gone(childCountOf(w, f.folderId));
}

/** A page answered 304: on to the next stored page, or after the last one the stored children stand. True when the listing is done. */
function takeNotModified(w: WalkState, f: FolderListing): boolean {
  // a 304 to a request without If-None-Match is not an answer
  if (!f.conditional) throw new AppError('BadResponse', `listing of ${f.folderId} answered 304 to an unconditional request`);
  const known = f.known!;
  f.token = known[f.i]!.next;
  if (++f.i < known.length) return false;
  queueFolders(w, unchanged(w, f.folderId, known, f.children));
  report(w);
  return true;
}

/**
 * A folder whose listing answered 304 in full: its stored children stand (seen as such). Its
 * subfolders. A listing stored without what the folder held gets it from the store, kept
 * with the chain from now on.
 */
function unchanged(w: WalkState, folderId: string, chain: ListingChain, children: FolderChildren | undefined): Subfolder[] {
  const c = w.opts.conditional!;
  let kids = children;
  if (kids === undefined) {
    kids = c.children(folderId);
    c.listed(folderId, chain, kids);
  }
  w.seen.addUnchanged(folderId, kids.count);
  w.progress.objects += kids.count;
  w.progress.unchanged++;
  return kids.folders;
}

/**
 * Lists a group of small folders in one request (conditionally when each one's stored chain is
 * this group's, with the same ETag). 304: every one's stored children stand. A page: split by
 * `parentID`, each folder's part handed on as its whole listing. How many folders it listed: 0
 * when they went back to the queue one by one (a folder of them gone, more than one page, or a
 * NAS that refuses several ids).
 */
async function listGroup(w: WalkState, g: Group): Promise<number> {
  const { opts } = w;
  if (opts.signal?.aborted) throw new AppError('Cancelled', 'walk cancelled');
  const alone = (): number => {
    w.queue.push(...g.ids);
    wakeAll(w);
    return 0;
  };
  if (w.ungrouped) return alone();
  const stored = opts.conditional?.known(g.ids);
  const etag = stored && groupETag(g, stored);
  let r: Listed;
  try {
    r = await w.client.listIfChanged(g.ids, {
      limit: w.pageSize,
      pageToken: '',
      signal: opts.signal,
      ...(etag !== undefined ? { ifNoneMatch: etag } : {}),
    });
  } catch (e) {
    const code = e instanceof AppError ? e.code : undefined;
    if (code === 'BadRequest' && !w.ungrouped) {
      w.ungrouped = true;
      opts.onWarning?.(
        `the NAS refused a listing of ${g.ids.length} folders at once: listed one by one for the rest of this walk`,
        g.ids[0]!,
      );
    }
    if (code === 'NotFound' || code === 'BadRequest') return alone();
    throw e;
  }
  if (w.failure) return 0;
  w.progress.pages++;
  if (r.notModified) {
    if (etag === undefined)
      throw new AppError('BadResponse', `listing of ${g.ids.length} folders answered 304 to an unconditional request`);
    queueFolders(
      w,
      g.ids.flatMap((id) => {
        const s = stored!.get(id)!;
        return unchanged(w, id, s.chain, s.children);
      }),
    );
    report(w);
    return g.ids.length;
  }
  // more than a page (they grew since their parent listed them): each alone, with its own bounds
  if (r.page.pageToken !== '') return alone();
  takeGroupPage(w, g, r.page, r.etag);
  return g.ids.length;
}

/** The ETag to ask a group with: when each folder's stored chain is one page of this group, the same ETag. */
function groupETag(g: Group, stored: ReadonlyMap<string, StoredListing>): string | undefined {
  let etag: string | undefined;
  for (const id of g.ids) {
    const chain = stored.get(id)?.chain;
    const p = chain?.length === 1 ? chain[0] : undefined;
    if (!p || p.group !== g.key || (etag !== undefined && p.etag !== etag)) return undefined;
    etag = p.etag;
  }
  return etag;
}

/** A group's one page: each folder's objects handed on as its whole listing; its chain is the group's page. */
function takeGroupPage(w: WalkState, g: Group, page: CheckedListing, etag: string | undefined): void {
  const parts = new Map<string, RemoteObject[]>(g.ids.map((id) => [id, []]));
  for (const o of page.files) {
    const part = parts.get(o.parentID);
    if (part === undefined) throw broken(g.ids[0]!, `(with ${g.ids.length - 1} others) listed ${o.id} of another folder, ${o.parentID}`);
    sawListed(w, o);
    part.push(o);
  }
  const held = new Map([...parts].map(([id, objs]) => [id, childrenOf(objs)]));
  if (page.invalid) skipInvalid(w, g.ids[0]!, page.invalid);
  // (the progress told per folder, as a listing of each would: what it says of the total counts listings)
  for (const [id, objs] of parts) {
    w.opts.onPage(objs, id);
    report(w);
  }
  queueFolders(
    w,
    [...held.values()].flatMap((h) => h.folders),
  );
  report(w);
  // the chain is kept only when the page carried an ETag and every object was readable
  if (etag !== undefined && !page.invalid && w.opts.conditional)
    for (const [id, h] of held) w.opts.conditional.listed(id, [{ etag, next: '', group: g.key }], h);
}

/** What a folder's whole listing shows it holds (each id once). */
function childrenOf(objs: readonly RemoteObject[]): FolderChildren {
  const ids = new Set<string>();
  const folders: Subfolder[] = [];
  for (const o of objs) {
    if (ids.has(o.id)) continue;
    ids.add(o.id);
    const sub = subfolderOf(o);
    if (sub) folders.push(sub);
  }
  return { count: ids.size, folders };
}

/** Takes a listed page: counts and queues its objects and hands them on. The next page's token ('' after the last page). */
function takePage(w: WalkState, f: FolderListing, page: CheckedListing, etag: string | undefined): string {
  const { folderId, token } = f;
  f.pages++;
  f.sent.add(token);
  const fresh: RemoteObject[] = [];
  let progressed = false;
  for (const o of page.files) {
    if (!f.mine.has(o.id)) {
      f.mine.add(o.id);
      progressed = true;
      const sub = subfolderOf(o);
      if (sub) f.folders.push(sub);
    }
    sawListed(w, o);
    fresh.push(o);
  }
  if (page.invalid) {
    f.skipped = true;
    skipInvalid(w, folderId, page.invalid);
  }
  w.opts.onPage(fresh, folderId);
  report(w);
  if (page.pageToken !== '' && page.pageToken === token)
    w.opts.onWarning?.(`listing of folder ${folderId} answered with the page token it was sent: taken as the last page`, folderId);
  const next = page.pageToken === token ? '' : page.pageToken;
  if (etag !== undefined) f.chain.push({ etag, next });
  // pages in a row without a new object (looked at only when another page follows)
  f.idle = progressed ? 0 : f.idle + 1;
  return next;
}

/** Notes the objects of a page that the schema refused: skipped, reported, and the walk is incomplete. */
function skipInvalid(w: WalkState, folderId: string, invalid: NonNullable<CheckedListing['invalid']>): void {
  w.invalidCount += invalid.length;
  for (const v of invalid) if (w.invalid.length < 5) w.invalid.push(`${v.id ?? '(no id)'}: ${v.reason}`);
  for (const v of invalid) w.opts.onWarning?.(`skipped an invalid object in folder ${folderId}: ${v.reason}`, folderId);
}

/** Fails the listing (the walk is incomplete) when the page `next` would be a cycle, idle, or more than the folder allows. */
function checkBounds(w: WalkState, f: FolderListing, next: string): void {
  if (f.sent.has(next)) throw broken(f.folderId, `repeats an earlier page token after ${f.pages} pages (a cycle)`);
  if (f.idle >= MAX_IDLE_PAGES) throw broken(f.folderId, `brought no new object in ${f.idle} pages in a row`);
  f.allowed ??= pagesAllowed(childCountOf(w, f.folderId));
  if (f.pages >= f.allowed) {
    const count = childCountOf(w, f.folderId);
    const limit = count !== undefined ? `childCount of ${count} allows` : `limit of ${MAX_PAGES_PER_FOLDER} pages`;
    throw broken(f.folderId, `took more pages (${f.pages}) than its ${limit}`);
  }
}

/** A folder's childCount: as listed in this walk, else as stored (asked only when a second page comes: most folders have one). */
function childCountOf(w: WalkState, folderId: string): number | undefined {
  return w.childCounts.get(folderId) ?? w.opts.conditional?.childCount?.(folderId);
}

/** The error of a listing that breaks a bound. */
function broken(folderId: string, why: string): AppError {
  return new AppError('BadResponse', `listing of folder ${folderId} ${why}: the walk is incomplete, nothing is deleted`);
}

/** The walk's result once every worker stopped: complete only without a failure, a skipped object or a cancel. */
function resultOf(w: WalkState): WalkResult {
  const { root, seen, progress } = w;
  if (w.failure) return { complete: false, root, seen, progress, error: w.failure };
  if (w.invalidCount > 0) {
    const error = new AppError(
      'BadResponse',
      `the NAS sent ${plural(w.invalidCount, 'invalid object', 'invalid objects')}, skipped: ` +
        `the walk is incomplete, nothing is deleted (${w.invalid.join('; ')})`,
    );
    return { complete: false, root, seen, progress, error };
  }
  if (w.opts.signal?.aborted) return { complete: false, root, seen, progress, error: new AppError('Cancelled', 'walk cancelled') };
  return { complete: true, root, seen, progress };
}
