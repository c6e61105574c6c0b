/**
 * Helpers of the content tests: byte-exact requests, and `multipart/related` bodies built the
 * way real clients build them (a Go/C++ FUSE client, the Node `request` module, a Python CLI).
 */
import { request, type ClientRequest } from 'node:http';

export interface ByteRes {
  status: number;
  headers: Headers;
  body: Buffer;
  json: unknown;
}

/** Any request; the body as bytes (and parsed as JSON when it is JSON). */
export interface CallOptions {
  body?: Uint8Array | string;
  headers?: Record<string, string>;
}

export async function call(baseUrl: string, token: string, method: string, path: string, opts: CallOptions = {}): Promise<ByteRes> {
  const body0 = typeof opts.body === 'string' || opts.body === undefined ? opts.body : new Uint8Array(opts.body);
  const r = await fetch(baseUrl + path, { method, headers: { Authorization: `Bearer ${token}`, ...opts.headers }, body: body0 });
  const body = Buffer.from(await r.arrayBuffer());
  let json: unknown;
  try {
    json = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, body, json };
}

export type ClientStyle = 'go' | 'node' | 'python';
export interface MultipartBody {
  body: Buffer;
  contentType: string;
}

/**
 * A create body as each client sends it: `go` (CRLF, a JSON part header, no final line end),
 * `node` (the `request` module's `multipart:` option: parts without headers), `python`
 * (bare LF line ends, a preamble line, parts without headers).
 */
export function multipart(style: ClientStyle, meta: Record<string, unknown>, content?: Uint8Array | string): MultipartBody {
  const json = JSON.stringify(meta);
  const data = content === undefined ? undefined : Buffer.from(content);
  const parts: (string | Buffer)[] = [];
  if (style === 'go') {
    const b = '287032381131322';
    parts.push(`--${b}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${json}`);
    if (data) parts.push(`\r\n--${b}\r\nContent-Type: application/octet-stream\r\n\r\n`, data);
    parts.push(`\r\n--${b}--`);
    return { body: Buffer.concat(parts.map((p) => Buffer.from(p))), contentType: `multipart/related; boundary=${b}` };
  }
  if (style === 'node') {
    const b = '5b1a8c37-2f0e-4c61-9a54-0c2d7e1f3a90';
    parts.push(`--${b}\r\n\r\n${json}\r\n`, `--${b}\r\n\r\n`, data ?? '', '\r\n', `--${b}--`);
    return { body: Buffer.concat(parts.map((p) => Buffer.from(p))), contentType: `multipart/related; boundary=${b}` };
  }
  // exactly what the Python CLI posts: its empty second part has no line end of its own
  if (!data) return { body: Buffer.from(`\n--foo\n\n${json}\n--foo\n\n--foo--\n`), contentType: 'multipart/related; boundary=foo' };
  parts.push(`\n--foo\n\n${json}\n--foo\n\n`, data, '\n--foo--\n');
  return { body: Buffer.concat(parts.map((p) => Buffer.from(p))), contentType: 'multipart/related; boundary=foo' };
}

/** The object id at the end of a `Location` header, as clients read it. */
export function idOf(location: string | null): string {
  if (!location) throw new Error('no Location header');
  return decodeURIComponent(location.slice(location.lastIndexOf('/') + 1));
}

/** A PUT whose body the test writes piece by piece (and may cut off). */
export interface OpenPut {
  req: ClientRequest;
  /** Resolves with the status (or 0 when the connection was cut before an answer). */
  done: Promise<{ status: number; body: string }>;
}

export function openPut(baseUrl: string, token: string, path: string, length?: number): OpenPut {
  const headers: Record<string, string | number> = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream' };
  if (length !== undefined) headers['Content-Length'] = length;
  const req = request(baseUrl + path, { method: 'PUT', headers });
  const done = new Promise<{ status: number; body: string }>((resolve) => {
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
  });
  return { req, done };
}

/** Deterministic test bytes. */
export function testBytes(n: number, seed = 1): Buffer {
  const b = Buffer.alloc(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    b[i] = x & 0xff;
  }
  return b;
}
