/**
 * Choosing one page of matches (search.md rules 7 and 8): the `limit` smallest keys after
 * the cursor, plus whether more follow. Candidates may come in any order; a candidate that
 * does not match is skipped. The caller decides which objects are candidates (every object
 * that could match must be among them) and which are visible.
 */
import type { SearchMatch, SearchPage, RemoteObject } from '../model/remote-object.js';
import { matchDoc, type DocMatch, type SearchDoc } from './match.js';
import { compareKeys, type SortKey } from './order.js';
import { encodeSearchToken } from './page-token.js';
import type { ParsedQuery } from './query.js';

export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 1000;

/** Keeps the `capacity` smallest items by key, in order. */
export class TopK<T> {
  private readonly items: { key: SortKey; value: T }[] = [];
  constructor(private readonly capacity: number) {}

  /** The largest key kept once full (nothing at or above it can enter), else undefined. */
  get bound(): SortKey | undefined {
    return this.items.length >= this.capacity ? this.items[this.items.length - 1]!.key : undefined;
  }

  /** True when a key would be kept. */
  accepts(key: SortKey): boolean {
    const b = this.bound;
    return b === undefined || compareKeys(key, b) < 0;
  }

  push(key: SortKey, value: T): void {
    if (!this.accepts(key)) return;
    let lo = 0,
      hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareKeys(this.items[mid]!.key, key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    this.items.splice(lo, 0, { key, value });
    if (this.items.length > this.capacity) this.items.pop();
  }

  get size(): number {
    return this.items.length;
  }

  sorted(): readonly { key: SortKey; value: T }[] {
    return this.items;
  }
}

/** One candidate: the searchable doc, and (lazily) the object to return. */
export interface Candidate<T> {
  doc: SearchDoc;
  folded?: readonly (string | undefined)[];
  value: T;
}

/**
 * Collects a page from candidates: matches with key > `after`, the `limit` smallest.
 * Returns the chosen values with their matches, and the page token (`""` when no more).
 */
export function selectPage<T>(
  candidates: Iterable<Candidate<T>>,
  query: ParsedQuery,
  limit: number,
  after: SortKey | null,
): { items: { value: T; match: DocMatch }[]; pageToken: string } {
  const top = new TopK<{ value: T; match: DocMatch }>(limit + 1);
  for (const c of candidates) {
    const m = matchDoc(c.doc, query, c.folded);
    if (!m) continue;
    if (after && compareKeys(m.key, after) <= 0) continue;
    top.push(m.key, { value: c.value, match: m });
  }
  return takePage(top, limit);
}

/**
 * The page from the `limit + 1` best matches: the first `limit`, and a token on the last of
 * them when one more exists (`""` when not).
 */
export function takePage<T extends { match: DocMatch }>(top: TopK<T>, limit: number): { items: T[]; pageToken: string } {
  const all = top.sorted();
  const items = all.slice(0, limit).map((e) => e.value);
  const pageToken = all.length > limit && items.length > 0 ? encodeSearchToken(items[items.length - 1]!.match.key) : '';
  return { items, pageToken };
}

/** Builds the response shape from chosen items. */
export function toSearchPage(items: readonly { file: RemoteObject; match: DocMatch }[], pageToken: string): SearchPage {
  const matches: SearchMatch[] = items.map((i) => ({ file: i.file, fragments: i.match.fragments }));
  return { pageToken, matches };
}
