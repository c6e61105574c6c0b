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

export interface SearchEngine {
  page(query: ParsedQuery, limit: number, after: SortKey | null): EnginePage;
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
