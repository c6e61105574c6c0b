/**
 * Page tokens: opaque cursors on the sort key, the same bytes from the service and the
 * offline index. `""` means no more pages. A token that does not decode is a BadRequest.
 */
import { decodeOpaque, encodeOpaque } from '../util/base64url.js';
import type { SortKey } from './order.js';
import type { ListingCursor, ListingOrder } from './listing.js';

/** Encodes the key of the last match of a page. */
export function encodeSearchToken(key: SortKey): string {
  return 's' + encodeOpaque([key.field, key.wordStart ? 1 : 0, key.index, key.nameLength, key.name, key.id]);
}

/** Decodes a search token; `""` gives null (first page); undefined when malformed. */
export function decodeSearchToken(token: string): SortKey | null | undefined {
  if (token === '') return null;
  if (token[0] !== 's') return undefined;
  const v = decodeOpaque(token.slice(1));
  if (!Array.isArray(v) || v.length !== 6) return undefined;
  const [field, ws, index, nameLength, name, id] = v as unknown[];
  if (!isNat(field) || (ws !== 0 && ws !== 1) || !isNat(index) || !isNat(nameLength) || typeof name !== 'string' || typeof id !== 'string')
    return undefined;
  return { field, wordStart: ws === 1, index, nameLength, name, id };
}

/** Encodes the position after the last item of a listing page. */
export function encodeListingToken(order: ListingOrder, c: ListingCursor): string {
  return 'l' + encodeOpaque([order.by, order.dir, c.value, c.name, c.id]);
}

/** Decodes a listing token made for the same order; `""` gives null; undefined when malformed or for another order. */
export function decodeListingToken(token: string, order: ListingOrder): ListingCursor | null | undefined {
  if (token === '') return null;
  if (token[0] !== 'l') return undefined;
  const v = decodeOpaque(token.slice(1));
  if (!Array.isArray(v) || v.length !== 5) return undefined;
  const [by, dir, value, name, id] = v as unknown[];
  if (by !== order.by || dir !== order.dir || typeof name !== 'string' || typeof id !== 'string') return undefined;
  if (order.by === 'name' ? value !== null : typeof value !== 'number') return undefined;
  return { value: value as number | null, name, id };
}

const isNat = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
