/**
 * The read endpoints: get by id, parentAndName, listing (`filesSearch/parents`) and text
 * search. Each answers with an ETag; If-None-Match equal to it gets 304.
 */
import { cursorOf } from '../../app/search/listing.js';
import { encodeListingToken } from '../../app/search/page-token.js';
import { badRequest as bad, parseListingIds, parseListingRequest, parseSearchRequest } from '../../app/search/requests.js';
import { pickFields } from '../store/object-row.js';
import { wireFromIndex, wireJsonFromIndex } from '../store/wire-index.js';
import { notFound } from '../store/store.js';
import { searchText } from '../search/text-search.js';
import type { Ctx } from './context.js';
import { resolveReadable } from './context.js';
import { isPretty, parseFields, required } from './request.js';
import { sendRead, sendReadJson } from './respond.js';

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
  const ids = parseListingIds(raw);
  const {
    order,
    limit,
    after: cursor,
    hide,
  } = parseListingRequest({
    orderBy: q.get('orderBy'),
    order: q.get('order'),
    limit: q.get('limit'),
    pageToken: q.get('pageToken'),
    hidden: q.get('hidden'),
  });
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
  const pageToken =
    more && last !== undefined
      ? encodeListingToken(
          order,
          cursorOf(
            { id: ix.ids[last]!, name: ix.names[last]!, mTimeMs: ix.mtime[last]!, cTimeMs: ix.ctime[last]!, size: ix.size[last]! },
            order,
          ),
        )
      : '';
  const fields = parseFields(q.get('fields'));
  if (fields === undefined) {
    // The common case: the JSON is written straight from the index.
    sendReadJson(
      ctx.req,
      ctx.res,
      `{"pageToken":${JSON.stringify(pageToken)},"files":[${page.map((r) => wireJsonFromIndex(ix, r)).join(',')}]}`,
      isPretty(q),
    );
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
  const { query, limit, after } = parseSearchRequest(q.get('q'), q.get('limit'), q.get('pageToken'));
  const result = searchText(ctx.store.index, ctx.store.names, ctx.principal.userId, query, limit, after);
  const fields = parseFields(q.get('fields'));
  const matches = result.items.map((i) => ({
    file: pickFields(wireFromIndex(ctx.store.index, i.value), fields),
    fragments: i.match.fragments,
  }));
  sendRead(ctx.req, ctx.res, { pageToken: result.pageToken, matches }, isPretty(q));
}
