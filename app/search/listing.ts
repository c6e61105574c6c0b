/**
 * The order of listings (service.md): `orderBy=name|mTime|cTime|size`, `order=asc|desc`,
 * default name ascending by code point; ties by name, then id. Cursors, not offsets.
 */
import { compareCodePoints } from './order.js';

export const ORDER_BY = ['name', 'mTime', 'cTime', 'size'] as const;
export type OrderBy = (typeof ORDER_BY)[number];

export interface ListingOrder {
  by: OrderBy;
  dir: 'asc' | 'desc';
}

export const DEFAULT_ORDER: ListingOrder = { by: 'name', dir: 'asc' };

/** The fields of an object a listing sorts on: times as epoch ms; size of a folder counts 0. */
export interface ListingSortable {
  id: string;
  name: string;
  mTimeMs: number;
  cTimeMs: number;
  size: number;
}

/** Position of an item in a listing: the sort value (null for name order), name and id. */
export interface ListingCursor {
  value: number | null;
  name: string;
  id: string;
}

export function cursorOf(o: ListingSortable, order: ListingOrder): ListingCursor {
  return { value: sortValue(o, order), name: o.name, id: o.id };
}

function sortValue(o: ListingSortable, order: ListingOrder): number | null {
  switch (order.by) {
    case 'name':
      return null;
    case 'mTime':
      return o.mTimeMs;
    case 'cTime':
      return o.cTimeMs;
    case 'size':
      return o.size;
  }
}

/**
 * Compares two cursors in listing order. The direction applies to the whole key
 * (value, name, id), so `desc` is exactly the reverse of `asc`.
 */
export function compareCursors(a: ListingCursor, b: ListingCursor, order: ListingOrder): number {
  const c = (a.value ?? 0) - (b.value ?? 0) || compareCodePoints(a.name, b.name) || compareCodePoints(a.id, b.id);
  return order.dir === 'asc' ? c : -c;
}

/** Parses `orderBy` / `order` query values; undefined when invalid. */
export function parseListingOrder(orderBy: string | undefined, order: string | undefined): ListingOrder | undefined {
  const by = orderBy === undefined || orderBy === '' ? 'name' : orderBy;
  const dir = order === undefined || order === '' ? 'asc' : order;
  if (!(ORDER_BY as readonly string[]).includes(by) || (dir !== 'asc' && dir !== 'desc')) return undefined;
  return { by: by as OrderBy, dir };
}
