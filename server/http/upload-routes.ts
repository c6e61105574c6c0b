/**
 * Creating and writing content (content.md): `POST files` (a folder), `POST files/resumable`
 * (a new file, optionally with its first bytes), `POST files/<id>/resumable?truncate=true`
 * (a new version), `PUT files/<id>/resumable/content` (more bytes; `done=true` completes) and
 * `GET files/<id>/resumable` (the offset to resume at). Bodies are `multipart/related`
 * (first part JSON metadata, optional second part content, streamed) or plain JSON.
 */
import { AppError } from '../../app/errors.js';
import { parseDate } from '../../app/model/dates.js';
import { FOLDER_MIME } from '../../app/model/remote-object.js';
import { nameProblem, utf8Length } from '../../app/model/names.js';
import { noUpload, wrongOffset } from '../content/errors.js';
import { isMediaType } from '../store/mime.js';
import type { Store } from '../store/store.js';
import { forbidden, notFound } from '../store/store.js';
import { PERM } from '../store/tree-index.js';
import { etagOf } from '../store/wire-format.js';
import type { Ctx } from './context.js';
import { resolveReadable } from './context.js';
import { multipartBoundary, readMultipart, type MultipartBody } from './multipart.js';
import { isFlag, isPretty, MAX_BODY, parseJsonObject, readBody } from './request.js';
import { sendEmpty, sendJson, sendRead } from './respond.js';
import { checkConditions, requireWriteScope } from './write-routes.js';

const bad = (m: string): AppError => new AppError('BadRequest', m, { status: 400 });
const location = (id: string): string => `/sdk/v2/files/${encodeURIComponent(id)}`;

/**
 * 201 for a new object: its id in `Location` (what the real device's clients read), and the
 * object itself as the body, as `GET files/<id>` answers it [ours], so a client needs no read.
 */
function sendCreated(ctx: Ctx, row: number, headers: Record<string, string> = {}): void {
  const o = ctx.store.wire(ctx.store.get(row)!);
  sendJson(ctx.res, 201, JSON.stringify(o), { Location: location(o.id), ...headers });
}

interface Incoming {
  meta: Record<string, unknown>;
  /** The rest of a multipart body (its content part), when the body is multipart. */
  parts: MultipartBody | undefined;
}

/** Reads the metadata of a create: a multipart body's first part, or a whole JSON body. */
async function readMetadata(ctx: Ctx, stream: boolean): Promise<Incoming> {
  const boundary = multipartBoundary(ctx.req.headers['content-type']);
  if (boundary === undefined) return { meta: parseJsonObject(await readBody(ctx.req)), parts: undefined };
  const parts = readMultipart(stream ? ctx.req : [await readBody(ctx.req)], boundary);
  const first = await parts.first(MAX_BODY);
  return { meta: parseJsonObject(first ?? Buffer.alloc(0)), parts };
}

interface CreateSpec {
  name: string;
  parentID: string;
  mimeType?: string;
  mtime?: number;
}

function parseCreate(meta: Record<string, unknown>): CreateSpec {
  const { name, parentID, mimeType, mTime } = meta;
  if (typeof name !== 'string') throw bad('name is required (a string)');
  const problem = nameProblem(name);
  if (problem) throw bad(problem);
  if (typeof parentID !== 'string' || parentID === '') throw bad('parentID is required (a folder id or root)');
  const spec: CreateSpec = { name, parentID };
  if (mimeType !== undefined) {
    if (typeof mimeType !== 'string' || !isMediaType(mimeType)) throw bad('mimeType is not a media type');
    spec.mimeType = mimeType;
  }
  if (mTime !== undefined) spec.mtime = parseTime(mTime);
  return spec;
}

function parseTime(v: unknown): number {
  const ms = parseDate(v);
  if (ms === undefined || ms < 0 || ms > 253402300799999) throw bad('mTime is not an ISO 8601 date');
  return ms;
}

/** The row of a folder the user may create objects in. */
function writableFolder(ctx: Ctx, id: string): number {
  const [row, level] = resolveReadable(ctx, id);
  if (!ctx.store.index.isDir(row)) throw bad('parentID is not a folder');
  if (level < PERM.WriteFile) throw forbidden('you may not write into this folder');
  return row;
}

/**
 * With `resolveNameConflict`, a taken name gets the first free `name (1)`, `name (2)`... For a
 * file the number goes before the extension (`IMG (1).JPG`), so the extension, and the
 * mimeType derived from it, stay. Without it the name is kept and a clash is a 409.
 */
export function freeName(store: Store, parent: number, name: string, file: boolean): string {
  if (!store.child(parent, name)) return name;
  const dot = file ? name.lastIndexOf('.') : -1;
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 1; n < 100_000; n++) {
    let cps = [...stem];
    let cand = `${stem} (${n})${ext}`;
    while (utf8Length(cand) > 255 && cps.length > 1) {
      cps = cps.slice(0, -1);
      cand = `${cps.join('')} (${n})${ext}`;
    }
    if (!store.child(parent, cand)) return cand;
  }
  throw new AppError('Conflict', 'Conflict', { status: 409, detail: 'no free name left' });
}

/** `POST files`: creates a folder; 201 with `Location` and the new folder. */
export async function createFolder(ctx: Ctx): Promise<void> {
  requireWriteScope(ctx);
  const { meta, parts } = await readMetadata(ctx, false);
  if (parts) for await (const _ of parts.second()) void _;
  const spec = parseCreate(meta);
  if (spec.mimeType !== FOLDER_MIME) throw bad(`mimeType must be ${FOLDER_MIME}: files are created with POST files/resumable`);
  const parent = writableFolder(ctx, spec.parentID);
  const name = isFlag(ctx.query, 'resolveNameConflict') ? freeName(ctx.store, parent, spec.name, false) : spec.name;
  const r = ctx.store.create(parent, { name, dir: true, ...(spec.mtime === undefined ? {} : { mtime: spec.mtime }) });
  sendCreated(ctx, r.row);
}

/** `POST files/resumable`: creates a file whose upload is unfinished (or complete with `done=true`). */
export async function createUpload(ctx: Ctx): Promise<void> {
  requireWriteScope(ctx);
  const { meta, parts } = await readMetadata(ctx, true);
  const spec = parseCreate(meta);
  if (spec.mimeType === FOLDER_MIME) throw bad('folders are created with POST files');
  const parent = writableFolder(ctx, spec.parentID);
  const name = isFlag(ctx.query, 'resolveNameConflict') ? freeName(ctx.store, parent, spec.name, true) : spec.name;
  const r = ctx.uploads.createFile(parent, {
    name,
    ...(spec.mimeType === undefined ? {} : { mime: spec.mimeType }),
    ...(spec.mtime === undefined ? {} : { mtime: spec.mtime }),
  });
  await ctx.uploads.exclusive(r.row, async () => {
    try {
      if (parts) await ctx.uploads.append(r.row, parts.second());
      if (isFlag(ctx.query, 'done')) await ctx.uploads.complete(r.row);
    } catch (e) {
      ctx.uploads.abandon(r.row); // the client never learnt the id: nothing of this request stays
      throw e;
    }
  });
  sendCreated(ctx, r.row, { ETag: etagOf(ctx.store.get(r.row)!.version) });
}

/** The row of a file the user may write; 403/404/400 otherwise. */
function writableFile(ctx: Ctx, id: string): number {
  requireWriteScope(ctx);
  const [row, level] = resolveReadable(ctx, id);
  if (level < PERM.WriteFile) throw forbidden('you may not change this file');
  if (ctx.store.index.isDir(row)) throw bad('a folder has no content');
  return row;
}

/** `POST files/<id>/resumable?truncate=true&offset=0`: starts a new version (readers keep the old one until done). */
export async function startVersion(ctx: Ctx, id: string): Promise<void> {
  const row = writableFile(ctx, id);
  if (!isFlag(ctx.query, 'truncate')) throw bad('a new version starts empty: send truncate=true');
  const offset = ctx.query.get('offset');
  if (offset !== null && offset !== '0') throw bad('a new version starts at offset 0');
  const version = ctx.store.get(row)!.version;
  checkConditions(ctx, etagOf(version));
  await ctx.uploads.exclusive(row, async () => {
    const { meta, parts } = await readMetadata(ctx, true);
    const mtime = meta['mTime'] === undefined ? null : parseTime(meta['mTime']);
    const now = ctx.store.get(row);
    if (!now || ctx.store.index.access(-1, row) < 0) throw notFound();
    // the object changed while the metadata arrived: If-Match no longer holds
    if (now.version !== version && ctx.req.headers['if-match'] !== undefined) {
      throw new AppError('PreconditionFailed', 'Precondition Failed', { status: 412 });
    }
    ctx.uploads.begin(row, mtime);
    if (parts) await ctx.uploads.append(row, parts.second());
    if (isFlag(ctx.query, 'done')) await ctx.uploads.complete(row);
  });
  sendEmpty(ctx.res, 201, { Location: location(ctx.store.index.ids[row]!), 'Content-Length': '0' });
}

/** The `offset` query value: absent means "where the upload is" (a real client closes with `?done=true` alone). */
function parseOffset(v: string | null, received: number): number {
  if (v === null || v === '') return received;
  if (!/^\d{1,15}$/.test(v)) throw bad('offset must be a non-negative integer');
  return Number(v);
}

/** `PUT files/<id>/resumable/content?offset=N&done=...`: appends the raw body; 204. */
export async function putContent(ctx: Ctx, id: string): Promise<void> {
  const row = writableFile(ctx, id);
  await ctx.uploads.exclusive(row, async () => {
    const up = ctx.uploads.need(row);
    const offset = parseOffset(ctx.query.get('offset'), up.received);
    if (offset !== up.received) throw wrongOffset(offset, up.received);
    await ctx.uploads.append(row, ctx.req);
    if (!ctx.req.complete) throw bad('the request body was cut off');
    if (isFlag(ctx.query, 'done')) await ctx.uploads.complete(row);
  });
  sendEmpty(ctx.res, 204, { ETag: etagOf(ctx.store.get(row)!.version) });
}

/** `GET files/<id>/resumable`: `{"offset": <bytes received>}` of an unfinished upload. */
export function uploadStatus(ctx: Ctx, id: string): void {
  const [row] = resolveReadable(ctx, id);
  const up = ctx.uploads.get(row);
  if (!up) throw noUpload();
  sendRead(ctx.req, ctx.res, { offset: up.received }, isPretty(ctx.query));
}
