/**
 * The limits and the validation of search and listing requests (service.md, search.md),
 * in one place for the service's routes and the offline index: the same input gives the
 * same BadRequest (status 400) with the same message on both sides.
 */
import { AppError } from '../errors.js';
import { HIDDEN_VALUES } from '../model/remote-object.js';
import { parseListingOrder, type ListingCursor, type ListingOrder } from './listing.js';
import { decodeListingToken, decodeSearchToken } from './page-token.js';
import { parseQuery, type ParsedQuery } from './query.js';
import type { SortKey } from './order.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from './select.js';

/** Folders one listing may name. */
export const MAX_LIST_IDS = 100;
/** Items per listing page: the most, and the default. */
export const MAX_LIST_LIMIT = 1000;
export const DEFAULT_LIST_LIMIT = 1000;

export const badRequest = (message: string): AppError => new AppError('BadRequest', message, { status: 400 });

/**
 * `limit`: absent or empty gives `def`; else a positive integer (at most 9 digits as text),
 * clamped to `max`.
 */
export function parseLimit(v: string | number | null | undefined, def: number, max: number): number {
  if (v === null || v === undefined || v === '') return def;
  const n = typeof v === 'number' ? v : /^\d{1,9}$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw badRequest('limit must be a positive integer');
  return Math.min(n, max);
}

/**
 * `ids` of a listing: split on commas (or given as a list), trimmed, empty ones dropped,
 * duplicates dropped BEFORE the count is checked against MAX_LIST_IDS.
 */
export function parseListingIds(raw: string | readonly string[]): string[] {
  const parts = typeof raw === 'string' ? raw.split(',') : raw;
  const ids = [...new Set(parts.map((s) => s.trim()).filter((s) => s !== ''))];
  if (ids.length === 0) throw badRequest('ids is required');
  if (ids.length > MAX_LIST_IDS) throw badRequest(`ids holds more than ${MAX_LIST_IDS} ids`);
  return ids;
}

export interface ListingRequest {
  order: ListingOrder;
  limit: number;
  /** The cursor of the page token; null on the first page. */
  after: ListingCursor | null;
  /** The OS whose hidden objects are left out; undefined keeps all. */
  hide: string | undefined;
}

/** The options of a listing (everything but `ids`), checked in the service's order. */
export function parseListingRequest(o: {
  orderBy?: string | null | undefined;
  order?: string | null | undefined;
  limit?: string | number | null | undefined;
  pageToken?: string | null | undefined;
  hidden?: string | null | undefined;
}): ListingRequest {
  const order = parseListingOrder(o.orderBy ?? undefined, o.order ?? undefined);
  if (!order) throw badRequest('orderBy must be name, mTime, cTime or size and order asc or desc');
  const limit = parseLimit(o.limit, DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT);
  const after = decodeListingToken(o.pageToken ?? '', order);
  if (after === undefined) throw badRequest('pageToken is not valid for this listing');
  const hidden = o.hidden ?? '';
  if (hidden !== '' && !(HIDDEN_VALUES as readonly string[]).includes(hidden))
    throw badRequest('hidden must be mac, linux, windows or none');
  return { order, limit, after, hide: hidden === '' || hidden === 'none' ? undefined : hidden };
}

export interface SearchRequest {
  query: ParsedQuery;
  limit: number;
  after: SortKey | null;
}

/** A text search's `q`, `limit` and `pageToken` (search.md rules 1 and 8). */
export function parseSearchRequest(
  q: string | null | undefined,
  limit: string | number | null | undefined,
  pageToken: string | null | undefined,
): SearchRequest {
  if (q === null || q === undefined) throw badRequest('q is required');
  const parsed = parseQuery(q);
  if (!parsed.ok) throw badRequest(parsed.message);
  const lim = parseLimit(limit, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT);
  const after = decodeSearchToken(pageToken ?? '');
  if (after === undefined) throw badRequest('pageToken is not valid');
  return { query: parsed.query, limit: lim, after };
}
