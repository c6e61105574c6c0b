/**
 * `GET files/<id>/content` (content.md, Read): the bytes of a complete file, streamed from
 * disk (or generated), with its eTag; `Range` -> 206/416, `If-None-Match` -> 304, a stale
 * `If-Range` -> the whole body, `download=true` -> an attachment. Same permissions as a
 * metadata read; a folder is 400, an unfinished upload 409.
 */
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../app/errors.js';
import { unfinished } from '../content/errors.js';
import { etagOf } from '../store/wire-format.js';
import type { Ctx } from './context.js';
import { resolveReadable } from './context.js';
import { attachment, parseRange, type RangeAnswer } from './range.js';
import { COMMON, noneMatch, sendError } from './respond.js';

const isTrue = (v: string | null): boolean => v === 'true' || v === '1';

export async function getContent(ctx: Ctx, id: string): Promise<void> {
  const { req, res } = ctx;
  const [row] = resolveReadable(ctx, id);
  const r = ctx.store.get(row)!;
  if (r.dir === 1) throw new AppError('BadRequest', 'a folder has no content', { status: 400 });
  if (r.partial === 1) throw unfinished();
  const etag = etagOf(r.version);
  if (noneMatch(req, etag)) {
    res.writeHead(304, { ...COMMON, ETag: etag });
    res.end();
    return;
  }
  let range: RangeAnswer = parseRange(req.headers.range, r.size);
  const h = req.headers['if-range'];
  const ifRange = Array.isArray(h) ? h[0] : h;
  // a stale validator (or a date: this service sends no Last-Modified) means "send it all"
  if (ifRange !== undefined && ifRange.trim() !== etag) range = { kind: 'whole' };
  if (range.kind === 'unsatisfiable') {
    sendError(res, 416, 'Range Not Satisfiable', `the file has ${r.size} bytes`, { 'Content-Range': `bytes */${r.size}` });
    return;
  }
  const [start, end] = range.kind === 'part' ? [range.start, range.end] : [0, r.size];
  const headers: Record<string, string | number> = {
    ...COMMON,
    'Content-Type': r.mime,
    'Content-Length': end - start,
    ETag: etag,
    'Accept-Ranges': 'bytes',
  };
  if (range.kind === 'part') headers['Content-Range'] = `bytes ${start}-${end - 1}/${r.size}`;
  if (isTrue(ctx.query.get('download'))) headers['Content-Disposition'] = attachment(r.name);
  if (req.method === 'HEAD') {
    res.writeHead(range.kind === 'part' ? 206 : 200, headers);
    res.end();
    return;
  }
  const body = ctx.content.read(r, start, end);
  res.writeHead(range.kind === 'part' ? 206 : 200, headers);
  try {
    await pipeline(body, res);
  } catch {
    // the client went away mid-body: nothing to answer
    body.destroy();
    res.destroy();
  }
}
