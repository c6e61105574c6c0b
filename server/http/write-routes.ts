/**
 * Patch (`POST files/<id>/patch`, `PATCH files/<id>`) and delete (`DELETE files/<id>`).
 * Order of checks: scope (403), body (413/400), object visible (404), permission (403),
 * If-Match / If-None-Match (412), then the store validates and applies in one transaction.
 */
import { AppError } from '../../app/errors.js';
import { parseDate } from '../../app/model/dates.js';
import { encodeETag, parseETagList } from '../../app/model/etag.js';
import { HIDDEN_VALUES, type Hidden } from '../../app/model/remote-object.js';
import type { PatchChanges } from '../store/store.js';
import { forbidden } from '../store/store.js';
import { PERM } from '../store/tree-index.js';
import type { Ctx } from './context.js';
import { resolveReadable } from './context.js';
import { parseJsonObject, readBody } from './request.js';
import { sendEmpty } from './respond.js';

const bad = (m: string): AppError => new AppError('BadRequest', m, { status: 400 });

export function requireWriteScope(ctx: Ctx): void {
  if (ctx.principal.scope !== 'nas_read_write') throw forbidden('this operation needs a token with scope nas_read_write');
}

/** Applies If-Match / If-None-Match (strong comparison) to the current eTag; 412 when they fail. */
export function checkConditions(ctx: Ctx, current: string): void {
  const failed = (): AppError => new AppError('PreconditionFailed', 'Precondition Failed', { status: 412 });
  const im = ctx.req.headers['if-match'];
  if (im !== undefined) {
    const list = parseETagList(im);
    if (list !== '*' && !list.includes(current)) throw failed();
  }
  const inm = ctx.req.headers['if-none-match'];
  if (inm !== undefined) {
    const list = parseETagList(inm);
    if (list === '*' || list.includes(current)) throw failed();
  }
}

/** Type-checks a patch body. */
function parsePatch(body: Record<string, unknown>): { name?: string; parentID?: string; changes: Omit<PatchChanges, 'parent' | 'name'> } {
  const out: { name?: string; parentID?: string; changes: Omit<PatchChanges, 'parent' | 'name'> } = { changes: {} };
  const str = (k: string): string | undefined => {
    const v = body[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw bad(`${k} must be a string`);
    return v;
  };
  const name = str('name');
  if (name !== undefined) out.name = name;
  const parentID = str('parentID');
  if (parentID !== undefined) {
    if (parentID === '') throw bad('parentID must not be empty');
    out.parentID = parentID;
  }
  const mime = str('mimeType');
  if (mime !== undefined) out.changes.mime = mime;
  const hidden = str('hidden');
  if (hidden !== undefined) {
    if (!(HIDDEN_VALUES as readonly string[]).includes(hidden)) throw bad('hidden must be mac, linux, windows or none');
    out.changes.hidden = hidden as Hidden;
  }
  for (const [k, col] of [
    ['mTime', 'mtime'],
    ['cTime', 'ctime'],
  ] as const) {
    const v = str(k);
    if (v === undefined) continue;
    const ms = parseDate(v);
    if (ms === undefined || ms < 0 || ms > 253402300799999) throw bad(`${k} is not an ISO 8601 date`);
    out.changes[col] = ms;
  }
  return out;
}

export async function patchObject(ctx: Ctx, id: string): Promise<void> {
  requireWriteScope(ctx);
  const body = parsePatch(parseJsonObject(await readBody(ctx.req)));
  // From here on everything is synchronous: the checks and the write are atomic.
  const [row, level] = resolveReadable(ctx, id);
  if (level < PERM.WriteFile) throw forbidden('you may not change this object');
  if (ctx.store.index.isRoot(row)) throw forbidden('the root folder cannot be patched');
  const cur = ctx.store.get(row)!;
  checkConditions(ctx, encodeETag(cur.version));
  const changes: PatchChanges = { ...body.changes };
  if (body.name !== undefined) changes.name = body.name;
  if (body.parentID !== undefined) {
    const [parent, plevel] = resolveReadable(ctx, body.parentID);
    if (!ctx.store.index.isDir(parent)) throw bad('parentID is not a folder');
    if (parent !== cur.parent && plevel < PERM.WriteFile) throw forbidden('you may not write into the target folder');
    changes.parent = parent;
  }
  const after = ctx.store.patch(row, changes);
  sendEmpty(ctx.res, 204, { ETag: encodeETag(after.version) });
}

export async function deleteObject(ctx: Ctx, id: string): Promise<void> {
  requireWriteScope(ctx);
  const [row, level] = resolveReadable(ctx, id);
  if (level < PERM.WriteFile) throw forbidden('you may not delete this object');
  if (ctx.store.index.isRoot(row)) throw forbidden('the root folder cannot be deleted');
  const cur = ctx.store.get(row)!;
  checkConditions(ctx, encodeETag(cur.version));
  const how = ctx.store.remove(row);
  if (how === 'async') ctx.onAsyncDelete();
  sendEmpty(ctx.res, how === 'async' ? 202 : 204);
  await Promise.resolve();
}
