/**
 * The read endpoints: get by id, parentAndName, listing (`filesSearch/parents`) and text
 * search. Each answers with an ETag; If-None-Match equal to it gets 304.
 */
import { AppError } from '../../app/errors.js';
import { HIDDEN_VALUES } from '../../app/model/remote-object.js';
import { cursorOf, parseListingOrder } from '../../app/search/listing.js';
import { decodeListingToken, decodeSearchToken, encodeListingToken } from '../../app/search/page-token.js';
import { parseQuery } from '../../app/search/query.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from '../../app/search/select.js';
import { pickFields } from '../store/object-row.js';
import { wireFromIndex, wireJsonFromIndex } from '../store/wire-index.js';
import { notFound } from '../store/store.js';
import { searchText } from '../search/text-search.js';
import type { Ctx } from './context.js';
import { resolveReadable } from './context.js';
import { isPretty, parseFields, parseLimit, required } from './request.js';
import { sendRead, sendReadJson } from './respond.js';

const bad = (m: string): AppError => new AppError('BadRequest', m, { status: 400 });
export const MAX_LIST_LIMIT = 1000;
export const MAX_LIST_IDS = 100;

export function getById(ctx: Ctx, id: string): void {
  const [row] = resolveReadable(ctx, id);
  const r = ctx.store.get(row)!;
  const o = ctx.store.wire(r);
  sendRead(ctx.req, ctx.res, pickFields(o, parseFields(ctx.query.get('fields'))), isPretty(ctx.query), o.eTag);
}

export function parentAndName(ctx: Ctx): void {
  const parentId = required(ctx.query, 'parentID');
  const name = ctx.query.get('name');
  if (name === null || name === '') throw bad('name is required');
  const [parent] = resolveReadable(ctx, parentId);
  const r = ctx.store.child(parent, name);
  if (!r) throw notFound();
  const o = ctx.store.wire(r);
  sendRead(ctx.req, ctx.res, pickFields(o, parseFields(ctx.query.get('fields'))), isPretty(ctx.query), o.eTag);
}

export function listChildren(ctx: Ctx): void {
  const q = ctx.query;
  if (q.get('ids') === '') return listStorageRoots(ctx);
  const raw = required(q, 'ids');
  const ids = [...new Set(raw.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
  if (ids.length === 0) throw bad('ids is required');
  if (ids.length > MAX_LIST_IDS) throw bad(`ids holds more than ${MAX_LIST_IDS} ids`);
  const order = parseListingOrder(q.get('orderBy') ?? undefined, q.get('order') ?? undefined);
  if (!order) throw bad('orderBy must be name, mTime, cTime or size and order asc or desc');
  const limit = parseLimit(q.get('limit'), MAX_LIST_LIMIT, MAX_LIST_LIMIT);
  const cursor = decodeListingToken(q.get('pageToken') ?? '', order);
  if (cursor === undefined) throw bad('pageToken is not valid for this listing');
  const hidden = q.get('hidden');
  if (hidden !== null && hidden !== '' && !(HIDDEN_VALUES as readonly string[]).includes(hidden)) throw bad('hidden must be mac, linux, windows or none');
  const hide = hidden === null || hidden === '' || hidden === 'none' ? undefined : hidden;
  const parents = ids.map((id) => {
    const [row] = resolveReadable(ctx, id);
    if (!ctx.store.index.isDir(row)) throw bad(`${id} is not a folder`);
    return row;
  });
  const ix = ctx.store.index;
  const rows = ctx.store.listRows([...new Set(parents)], order, cursor, limit, hide);
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  const pageToken = more && last !== undefined ? encodeListingToken(order, cursorOf({ id: ix.ids[last]!, name: ix.names[last]!, mTimeMs: ix.mtime[last]!, cTimeMs: ix.ctime[last]!, size: ix.size[last]! }, order)) : '';
  const fields = parseFields(q.get('fields'));
  if (fields === undefined) {
    // The common case: the JSON is written straight from the index.
    sendReadJson(ctx.req, ctx.res, `{"pageToken":${JSON.stringify(pageToken)},"files":[${page.map((r) => wireJsonFromIndex(ix, r)).join(',')}]}`, isPretty(q));
    return;
  }
  const files = page.map((r) => pickFields(wireFromIndex(ix, r), fields));
  sendRead(ctx.req, ctx.res, { pageToken, files }, isPretty(q));
}

/**
 * `ids=` (empty) lists the user's top-level storage roots, as the real service does: here
 * the user's root folder (parentID ""), in one page.
 */
function listStorageRoots(ctx: Ctx): void {
  const [row] = resolveReadable(ctx, 'root');
  const fields = parseFields(ctx.query.get('fields'));
  sendRead(ctx.req, ctx.res, { pageToken: '', files: [pickFields(ctx.store.wire(ctx.store.get(row)!), fields)] }, isPretty(ctx.query));
}

export function textSearch(ctx: Ctx): void {
  const q = ctx.query;
  const text = q.get('q');
  if (text === null) throw bad('q is required');
  const parsed = parseQuery(text);
  if (!parsed.ok) throw bad(parsed.message);
  const limit = parseLimit(q.get('limit'), DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT);
  const after = decodeSearchToken(q.get('pageToken') ?? '');
  if (after === undefined) throw bad('pageToken is not valid');
  const result = searchText(ctx.store.index, ctx.store.names, ctx.principal.userId, parsed.query, limit, after);
  const fields = parseFields(q.get('fields'));
  const matches = result.items.map((i) => ({ file: pickFields(wireFromIndex(ctx.store.index, i.value), fields), fragments: i.match.fragments }));
  sendRead(ctx.req, ctx.res, { pageToken: result.pageToken, matches }, isPretty(q));
}
