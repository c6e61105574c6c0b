/**
 * The offline index: answers `filesSearch/text`, `filesSearch/parents`,
 * `filesSearch/parentAndName` and `files/<id>` from the mirror store, with the service's
 * semantics and JSON shapes (app/search decides matches, order and tokens; the engine only
 * supplies candidates). Adds word completion and "did you mean" over the word vocabulary.
 * Invariant: the engine holds exactly the store's objects (the root excluded).
 */
import { AppError } from '../../app/errors.js';
import { isFolder, type ListingPage, type RemoteObject, type SearchPage } from '../../app/model/remote-object.js';
import { parseDate } from '../../app/model/dates.js';
import {
  badRequest,
  compareCursors,
  cursorOf,
  encodeListingToken,
  parseListingIds,
  parseListingRequest,
  parseQuery,
  parseSearchRequest,
  toSearchPage,
  type ListingOrder,
  type ParsedQuery,
  type SortKey,
} from '../../app/search/index.js';
import type { RemoteChange } from '../mirror/changes.js';
import type { MirrorStore } from '../mirror/store.js';
import { docOf, type EnginePage, type Named, type Narrowing, type Numbering, type SearchEngine } from './engine.js';
import { FactsKeeper } from './facts-keeper.js';
import type { ObjectFacts } from './object-facts.js';
import type { Vocabulary } from './vocabulary.js';

export interface SearchOpts {
  limit?: number;
  pageToken?: string;
}

export interface ListOpts {
  limit?: number;
  pageToken?: string;
  orderBy?: string;
  order?: string;
  /** Object fields to return (the page wrapper keeps `pageToken`). */
  fields?: readonly string[];
  /** Leave out objects hidden on this OS (`none`: keep all). */
  hidden?: string;
}

const notFound = (): AppError => new AppError('NotFound', 'Not Found', { status: 404 });

export class OfflineIndex {
  constructor(
    readonly store: MirrorStore,
    private engine: SearchEngine,
    private readonly vocabulary?: Vocabulary,
  ) {
    this.objectFacts = new FactsKeeper(store);
  }

  private readonly objectFacts: FactsKeeper;

  /** The facts of every object for filters and the storage view: built on first use (in one pass), then kept up to date. */
  facts(): ObjectFacts {
    return this.objectFacts.get();
  }

  /** The same facts, built in chunks that yield to the event loop when not built yet (the engine's way). */
  factsReady(): Promise<ObjectFacts> {
    return this.objectFacts.ready();
  }

  /** The engine's page for an already parsed query, narrowed to what `narrow` keeps (the filtered search). */
  candidates(query: ParsedQuery, limit: number, after: SortKey | null, narrow?: Narrowing): EnginePage {
    return this.engine.page(query, limit, after, narrow);
  }

  /** The engine's numbered objects, when it numbers them (narrowing.ts maps them to facts). */
  numbering(): Numbering | undefined {
    return this.engine.numbering?.();
  }

  /** The operators-only page's objects (kept-order.ts), when the engine keeps their order; else undefined. */
  firstKept(k: number, after: Named | null, narrow: Narrowing): Named[] | undefined {
    return this.engine.firstKept?.(k, after, narrow);
  }

  /** Builds ahead, in chunks that yield, what the engine's page of `query` (null: operators only) narrowed by `narrow` will use. */
  async prepareNarrowed(query: ParsedQuery | null, narrow: Narrowing): Promise<void> {
    await this.engine.prepareNarrowed?.(query, narrow);
  }

  /** Swaps in a rebuilt engine (compaction). */
  replaceEngine(engine: SearchEngine): void {
    this.engine = engine;
  }

  /** `filesSearch/text`: throws BadRequest like the service (bad q, limit or token). */
  search(q: string, opts: SearchOpts = {}): SearchPage {
    const { query, limit, after } = parseSearchRequest(q, opts.limit, opts.pageToken);
    const page = this.engine.page(query, limit, after);
    const objects = this.store.getMany(page.items.map((i) => i.id));
    const items = page.items.map((i) => {
      const file = objects.get(i.id);
      if (!file) throw new AppError('StateCorrupt', `index holds ${i.id}, the store does not`);
      return { file, match: i.match };
    });
    return toSearchPage(items, page.pageToken);
  }

  /** `filesSearch/parents`: the children of one or more folders, one flat ordered list. */
  list(ids: string | readonly string[], opts: ListOpts = {}): ListingPage {
    const list = parseListingIds(ids);
    const { order, limit, after, hide: hidden } = parseListingRequest(opts);
    const children: RemoteObject[] = [];
    const seen = new Set<string>();
    for (const id of list) {
      const folder = this.store.get(id);
      if (!folder) throw notFound();
      if (!isFolder(folder)) throw badRequest(`${id} is not a folder`);
      if (seen.has(folder.id)) continue;
      seen.add(folder.id);
      children.push(...this.store.children(folder.id));
    }
    const keyed = children.filter((o) => hidden === undefined || o.hidden !== hidden).map((o) => ({ o, c: cursorOf(sortable(o), order) }));
    keyed.sort((a, b) => compareCursors(a.c, b.c, order));
    const start = after ? keyed.findIndex((k) => compareCursors(k.c, after, order) > 0) : 0;
    const from = start < 0 ? keyed.length : start;
    const pageItems = keyed.slice(from, from + limit);
    const more = from + limit < keyed.length;
    const pageToken = more && pageItems.length > 0 ? encodeListingToken(order, pageItems[pageItems.length - 1]!.c) : '';
    return { pageToken, files: pageItems.map((k) => project(k.o, opts.fields)) };
  }

  /** `filesSearch/parentAndName`: exact, case-sensitive; NotFound when absent. */
  parentAndName(parentId: string, name: string): RemoteObject {
    const parent = this.store.get(parentId);
    if (!parent) throw notFound();
    const o = this.store.childByName(parent.id, name);
    if (!o) throw notFound();
    return o;
  }

  /** `files/<id>` (`root` accepted); NotFound when unknown. */
  get(id: string): RemoteObject {
    const o = this.store.get(id);
    if (!o) throw notFound();
    return o;
  }

  /** Words of the library that start like `prefix` (typo-tolerant), best first. */
  suggest(prefix: string, limit = 8): string[] {
    return this.vocabulary?.suggest(prefix, limit) ?? [];
  }

  /** A corrected query when `q` finds nothing and a close one would; else undefined. */
  didYouMean(q: string): string | undefined {
    if (!this.vocabulary) return undefined;
    const parsed = parseQuery(q);
    if (!parsed.ok) return undefined;
    if (this.engine.page(parsed.query, 1, null).items.length > 0) return undefined;
    for (const alt of this.vocabulary.corrections(parsed.query.terms)) {
      const p = parseQuery(alt);
      if (p.ok && this.engine.page(p.query, 1, null).items.length > 0) return alt;
    }
    return undefined;
  }

  /**
   * Follows a batch in the object facts only: while the text engine lags (caught up by
   * rebuilds from the store, open-index.ts), the facts, never rebuilt, must not miss it.
   */
  followFacts(changes: readonly RemoteChange[]): void {
    this.objectFacts.apply(changes);
  }

  /** Follows a batch of remote changes (already applied to the store). */
  applyChanges(changes: readonly RemoteChange[]): void {
    const rootId = this.store.root()?.id;
    const removed: string[] = [];
    const upserts = [];
    for (const c of changes) {
      if (c.kind === 'removed') removed.push(c.before.id);
      else if (c.after.id !== rootId) upserts.push(docOf(c.after));
    }
    if (removed.length) this.engine.remove(removed);
    if (upserts.length) this.engine.upsert(upserts);
    this.vocabulary?.applyChanges(changes);
    this.objectFacts.apply(changes);
  }
}

function sortable(o: RemoteObject): { id: string; name: string; mTimeMs: number; cTimeMs: number; size: number } {
  return {
    id: o.id,
    name: o.name,
    mTimeMs: parseDate(o.mTime) ?? 0,
    cTimeMs: parseDate(o.cTime) ?? 0,
    size: typeof o.size === 'number' ? o.size : 0,
  };
}

function project(o: RemoteObject, fields: readonly string[] | undefined): RemoteObject {
  if (!fields || fields.length === 0) return o;
  const out: Record<string, unknown> = {};
  const src = o as unknown as Record<string, unknown>;
  for (const f of fields) if (f in src) out[f] = src[f];
  return out as unknown as RemoteObject;
}

export type { ListingOrder };
