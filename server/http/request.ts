/**
 * Reading requests: the body (at most 64 KiB, else 413), the bearer token, query values,
 * and the small parsers for `limit`, `fields` and JSON bodies. Each bad value is a 400
 * saying what is wrong.
 */
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../app/errors.js';

export const MAX_BODY = 64 * 1024;

const bad = (m: string): AppError => new AppError('BadRequest', m, { status: 400 });

/** Reads the whole body; rejects with 413 past MAX_BODY. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > MAX_BODY)
    return Promise.reject(
      new AppError('PayloadTooLarge', 'Payload Too Large', { status: 413, detail: `the body is over ${MAX_BODY} bytes` }),
    );
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > MAX_BODY) {
        done = true;
        reject(new AppError('PayloadTooLarge', 'Payload Too Large', { status: 413, detail: `the body is over ${MAX_BODY} bytes` }));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!done) {
        done = true;
        resolve(Buffer.concat(chunks));
      }
    });
    req.on('error', (e) => {
      if (!done) {
        done = true;
        reject(new AppError('BadRequest', 'the request body could not be read', { status: 400, cause: e }));
      }
    });
  });
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses a JSON object body; an empty body is `{}`. Invalid UTF-8 is bad JSON (RFC 8259 section 8.1), never replacement characters. */
export function parseJsonObject(buf: Buffer): Record<string, unknown> {
  let decoded: string;
  try {
    decoded = strictUtf8.decode(buf);
  } catch {
    throw bad('the body is not valid UTF-8');
  }
  const text = decoded.trim();
  if (text === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad('the body is not valid JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad('the body must be a JSON object');
  return v as Record<string, unknown>;
}

/** The bearer token of a request, or undefined. */
export function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers['authorization'];
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

/** `limit`: a positive integer, default `def`, clamped to `max`. */

/** `fields`: field names separated by commas and/or spaces (`id, name`, `id+name`), or undefined for all. */
export function parseFields(v: string | null): string[] | undefined {
  if (v === null || v.trim() === '') return undefined;
  return v.split(/[\s,]+/).filter((s) => s.length > 0);
}

/**
 * Parameters whose values are keywords, numbers or id lists. Real clients send stray
 * separators with them (a FUSE client ends every listing with `order=asc;`): white space
 * around the value and trailing `;` are dropped. Free text (`q`, `name`, `pageToken`) is
 * never touched: a name may end with `;`.
 */
const KEYWORD_PARAMS = [
  'order',
  'orderBy',
  'hidden',
  'limit',
  'pretty',
  'fields',
  'ids',
  'parentID',
  'resolveNameConflict',
  'done',
  'offset',
  'truncate',
  'download',
];

export function lenientQuery(q: URLSearchParams): URLSearchParams {
  for (const k of KEYWORD_PARAMS) {
    const v = q.get(k);
    if (v !== null) q.set(k, v.replace(/[\s;]+$/, '').replace(/^\s+/, ''));
  }
  return q;
}

/** A required, non-empty query value. */
export function required(q: URLSearchParams, name: string): string {
  const v = q.get(name);
  if (v === null || v === '') throw bad(`${name} is required`);
  return v;
}

/** A boolean query flag: `true` or `1` (anything else, or absent, is false). */
export const isFlag = (q: URLSearchParams, name: string): boolean => q.get(name) === 'true' || q.get(name) === '1';

export const isPretty = (q: URLSearchParams): boolean => isFlag(q, 'pretty');
