/**
 * Writing responses: JSON bodies (indented with `pretty=true`), ETags with If-None-Match
 * -> 304 on reads, and the one error handler that turns anything thrown into a JSON
 * `{message, detail?}` with the decided status. A 5xx other than 503 (stopping) and 507 (disk full) is a bug and is logged.
 */
import { createHash } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { isAppError, type ErrorCode } from '../../app/errors.js';
import { parseETagList } from '../../app/model/etag.js';
import type { Logger } from '../log.js';
import { UploadConflict } from '../content/errors.js';

const STATUS_OF: Partial<Record<ErrorCode, number>> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  PreconditionFailed: 412,
  PayloadTooLarge: 413,
  RateLimited: 429,
  Unavailable: 503,
};

/** Headers of every answer. */
export const COMMON = { Vary: 'Origin', 'Cache-Control': 'no-cache' };

const started = new WeakMap<IncomingMessage, number>();

/** Notes when the service began handling a request (for the `Server-Timing` header). */
export function markStart(req: IncomingMessage): void {
  started.set(req, performance.now());
}

/** `Server-Timing: app;dur=<ms>` for a request marked with `markStart`. */
function timing(req: IncomingMessage): Record<string, string> {
  const t = started.get(req);
  return t === undefined ? {} : { 'Server-Timing': `app;dur=${(performance.now() - t).toFixed(2)}` };
}

/** A strong ETag for a response body. */
export function bodyETag(json: string): string {
  return `"${createHash('sha1').update(json).digest('base64url').slice(0, 22)}"`;
}

/** True when an If-None-Match header matches `etag` (weak comparison, as HTTP says for GET). */
export function noneMatch(req: IncomingMessage, etag: string): boolean {
  const h = req.headers['if-none-match'];
  if (h === undefined) return false;
  const list = parseETagList(h);
  if (list === '*') return true;
  const strip = (t: string): string => (t.startsWith('W/') ? t.slice(2) : t);
  return list.some((t) => strip(t) === etag);
}

/** Sends a JSON read result with an ETag; 304 when If-None-Match matches. */
export function sendRead(req: IncomingMessage, res: ServerResponse, body: unknown, pretty: boolean, etag?: string): void {
  sendReadJson(req, res, JSON.stringify(body), pretty, etag, body);
}

/** Same, from JSON text already made (`parsed` saves a parse when pretty output is asked for). */
export function sendReadJson(
  req: IncomingMessage,
  res: ServerResponse,
  json: string,
  pretty: boolean,
  etag?: string,
  parsed?: unknown,
): void {
  const tag = etag ?? bodyETag(json);
  if (noneMatch(req, tag)) {
    res.writeHead(304, { ...COMMON, ETag: tag });
    res.end();
    return;
  }
  const text = pretty ? JSON.stringify(parsed ?? JSON.parse(json), null, 2) : json;
  res.writeHead(200, {
    ...COMMON,
    ...timing(req),
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ETag: tag,
  });
  res.end(text);
}

/** Sends a status with no body (204, 202) and optional headers. */
export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...COMMON, ...headers });
  res.end();
}

/** Sends JSON text with a status and optional headers. */
export function sendJson(res: ServerResponse, status: number, json: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...COMMON,
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(json);
}

/** Sends `{message, detail?}` (and `extra` fields, e.g. an upload's `offset`) with a status. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  detail?: string,
  headers: Record<string, string> = {},
  extra: Record<string, number> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, JSON.stringify(detail === undefined ? { message, ...extra } : { message, detail, ...extra }), headers);
}

/** The central error handler. */
export function handleError(e: unknown, res: ServerResponse, log: Logger, where: string): void {
  if (isAppError(e)) {
    const status = e.status ?? STATUS_OF[e.code] ?? 500;
    const reason = STATUS_CODES[status] ?? 'Error';
    if (status === 507) log.warn('no room on the disk', { where, err: e.cause });
    else if (status >= 500 && status !== 503) log.error('request failed', { where, err: e });
    if (status === 400) {
      sendError(res, 400, e.message, e.detail);
      return;
    }
    const detail = e.detail ?? (e.message !== reason ? e.message : undefined);
    const headers: Record<string, string> = {};
    if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
    if (status === 413 || status === 503 || status === 507) headers['Connection'] = 'close';
    const extra = e instanceof UploadConflict && e.offset !== undefined ? { offset: e.offset } : undefined;
    sendError(res, status, reason, detail, headers, extra);
    return;
  }
  log.error('unexpected error', { where, err: e });
  sendError(res, 500, 'Internal Server Error');
}
