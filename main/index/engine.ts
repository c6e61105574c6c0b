/**
 * What a text-search engine gives the offline index: the chosen page (ids in rule-7 order
 * with their matches) for a parsed query after a cursor, and incremental updates. Engines
 * only find candidates; `app/search` decides matches, keys and tokens.
 */
import type { RemoteObject } from '../../app/model/remote-object.js';
import type { DocMatch, ParsedQuery, SearchDoc, SortKey } from '../../app/search/index.js';

export interface EnginePage {
  items: { id: string; match: DocMatch }[];
  pageToken: string;
}

/** A searchable entry: the fields of search.md rule 2. */
export type IndexDoc = SearchDoc;

/**
 * Keeps only some objects in a page (the search filters): `number` answers for the engine's
 * numbered objects (see `numbering`), `id` for any other. Plain text search passes none.
 */
export interface Narrowing {
  number(o: number): boolean;
  id(id: string): boolean;
  /**
   * Every numbered object `number` keeps, ascending (computed on the first call: the engine
   * asks only when a term's candidates are many, and may then visit these instead).
   */
  numbers?: () => Int32Array;
  /** Builds what `numbers` returns ahead, in chunks that yield to the event loop (cached per facts version). */
  numbersReady?: () => Promise<void>;
  /** What `numbers` returns when it is built already (no pass), else undefined. */
  numbersIfBuilt?: () => Int32Array | undefined;
}

/** An object in (name length, name, id) order (kept-order.ts; a page cursor is the last one shown). */
export interface Named {
  name: string;
  id: string;
}

/** The engine's numbered objects (ids by number); `key` is the same object as long as the numbers hold. */
export interface Numbering {
  readonly key: object;
  readonly n: number;
  idAt(o: number): string;
}

export interface SearchEngine {
  /** The page after `after`; with `narrow`, the page of only the objects it keeps (same order). */
  page(query: ParsedQuery, limit: number, after: SortKey | null, narrow?: Narrowing): EnginePage;
  numbering?(): Numbering;
  /**
   * The first `k` objects `narrow` keeps after `after` in (name length, name, id) order
   * (an operators-only page, kept-order.ts), when the engine keeps that order.
   */
  firstKept?(k: number, after: Named | null, narrow: Narrowing): Named[];
  /**
   * Builds, in chunks that yield, what a page of `query` (null: operators only) narrowed by
   * `narrow` will use: a short term's answer order (short-order.ts), the kept numbers.
   */
  prepareNarrowed?(query: ParsedQuery | null, narrow: Narrowing): Promise<void>;
  /** Adds or replaces docs by id. */
  upsert(docs: readonly IndexDoc[]): void;
  remove(ids: readonly string[]): void;
  readonly size: number;
}

/** The searchable doc of an object. */
export function docOf(o: RemoteObject): IndexDoc {
  const d: IndexDoc = { id: o.id, name: o.name, mimeType: o.mimeType };
  const make = o.image?.cameraMake;
  const model = o.image?.cameraModel;
  if (typeof make === 'string') d.cameraMake = make;
  if (typeof model === 'string') d.cameraModel = model;
  return d;
}
