/**
 * The network under the service client: one HTTP exchange per call, nothing else. The real
 * implementation uses node:http(s) with keep-alive agents. Errors are AppErrors:
 * `Timeout` or `NetworkError`; `sent` in `detail` says the request may have reached the server.
 * A response body larger than `MAX_RESPONSE_BYTES` is cut off: `BadResponse` (detail
 * `too-large`), never an unbounded buffer.
 */
import http from 'node:http';
import https from 'node:https';
import { AppError, type Delivery } from '../../app/errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface TransportRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  body: string;
}

export interface Transport {
  request(req: TransportRequest): Promise<TransportResponse>;
  /** Drops idle keep-alive sockets. */
  close(): void;
}

/**
 * The largest response body read (64 MiB). A real listing page of 1000 objects is well under
 * 2 MB; a body past this limit is refused with `BadResponse` (detail `too-large`).
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** `detail` of a response refused for its size (its retry class is `fatal`: the same bytes would come again). */
export const TOO_LARGE = 'the response is larger than the client accepts';

/** `delivery` of a network error after which a request may have reached the server. */
export const MAYBE_SENT: Delivery = 'maybe-sent';
/** `delivery` of a network error that happened before anything was sent (safe to retry). */
export const NOT_SENT: Delivery = 'not-sent';

/** The real transport: node:http / node:https with keep-alive. */
export class HttpTransport implements Transport {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  private readonly maxBytes: number;

  constructor(opts: { maxSockets?: number; maxResponseBytes?: number } = {}) {
    this.maxBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    const o = { keepAlive: true, maxSockets: opts.maxSockets ?? 16, keepAliveMsecs: 10_000 };
    this.httpAgent = new http.Agent(o);
    this.httpsAgent = new https.Agent(o);
  }

  request(req: TransportRequest): Promise<TransportResponse> {
    return new Promise<TransportResponse>((resolve, reject) => {
      let url: URL;
      try {
        url = new URL(req.url);
      } catch (e) {
        reject(new AppError('BadConfig', `bad URL ${req.url}`, { cause: e }));
        return;
      }
      const mod = url.protocol === 'https:' ? https : http;
      const agent = url.protocol === 'https:' ? this.httpsAgent : this.httpAgent;
      let connected = false;
      let settled = false;
      const fail = (e: AppError): void => {
        if (settled) return;
        settled = true;
        cleanup();
        r.destroy();
        reject(e);
      };
      const headers: Record<string, string> = { ...req.headers };
      if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
      const r = mod.request(url, { method: req.method, headers, agent });
      const timer = setTimeout(() => fail(new AppError('Timeout', `${req.method} ${url.pathname} timed out after ${req.timeoutMs} ms`, { delivery: connected ? MAYBE_SENT : NOT_SENT })), req.timeoutMs);
      const onAbort = (): void => fail(new AppError('Cancelled', 'request cancelled', { delivery: connected ? MAYBE_SENT : NOT_SENT }));
      const cleanup = (): void => {
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onAbort);
      };
      if (req.signal?.aborted) {
        onAbort();
        return;
      }
      req.signal?.addEventListener('abort', onAbort);
      r.on('socket', (s) => {
        // A reused keep-alive socket is already connected.
        if (!s.connecting) connected = true;
        else s.once('connect', () => { connected = true; });
      });
      r.on('error', (e: NodeJS.ErrnoException) => {
        // A reset on a reused socket may come before the server read anything, but we cannot know.
        const before = !connected || e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN';
        fail(new AppError('NetworkError', `${req.method} ${url.host}: ${e.code ?? e.message}`, { cause: e, delivery: before ? NOT_SENT : MAYBE_SENT }));
      });
      r.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const tooLarge = (): void => fail(new AppError('BadResponse', `response from ${url.host} to ${req.method} ${url.pathname} is larger than ${this.maxBytes} bytes: refused`, { detail: TOO_LARGE, retry: 'fatal' }));
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > this.maxBytes) { tooLarge(); return; }
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > this.maxBytes) { chunks.length = 0; tooLarge(); return; }
          chunks.push(c);
        });
        res.on('error', (e) => fail(new AppError('NetworkError', `response from ${url.host} broke: ${e.message}`, { cause: e, delivery: MAYBE_SENT })));
        res.on('aborted', () => fail(new AppError('NetworkError', `response from ${url.host} aborted`, { delivery: MAYBE_SENT })));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          cleanup();
          const h: Record<string, string | undefined> = {};
          for (const [k, v] of Object.entries(res.headers)) h[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: res.statusCode ?? 0, headers: h, body: Buffer.concat(chunks).toString('utf8') });
        });
      });
      r.end(req.body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
