/**
 * The network under the service client: one HTTP exchange per call, nothing else. The real
 * implementation uses node:http(s) with keep-alive agents. Errors are AppErrors:
 * `Timeout` or `NetworkError`; `sent` in `detail` says the request may have reached the server.
 * A response body larger than `MAX_RESPONSE_BYTES` is cut off: `BadResponse` (detail
 * `too-large`), never an unbounded buffer. A request with a `sink` (content reads) has a 200/206
 * answer's bytes streamed into it instead, with `timeoutMs` as an idle limit between chunks.
 */
import http from 'node:http';
import https from 'node:https';
import { AppError, type Delivery } from '../../app/errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface TransportRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  /** JSON text, or raw bytes (an upload's chunk). */
  body?: string | Buffer;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Streams a 200/206 answer's bytes here (its `body` is then ''); any other answer is read as a body. */
  sink?: BodySink;
}

/** Where a streamed answer goes (a download's partial file). */
export interface BodySink {
  /** Before the first byte; throwing refuses the answer (the connection is dropped, nothing written). */
  begin(status: number, headers: Record<string, string | undefined>): void | Promise<void>;
  /** One chunk; the answer is paused until it resolves; a rejection drops the connection. */
  write(chunk: Buffer): Promise<void>;
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
      const timedOut = (): void =>
        fail(
          new AppError('Timeout', `${req.method} ${url.pathname} timed out after ${req.timeoutMs} ms`, {
            delivery: connected ? MAYBE_SENT : NOT_SENT,
          }),
        );
      let timer = setTimeout(timedOut, req.timeoutMs);
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
        else
          s.once('connect', () => {
            connected = true;
          });
      });
      r.on('error', (e: NodeJS.ErrnoException) => {
        // A reset on a reused socket may come before the server read anything, but we cannot know.
        const before = !connected || e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN';
        fail(
          new AppError('NetworkError', `${req.method} ${url.host}: ${e.code ?? e.message}`, {
            cause: e,
            delivery: before ? NOT_SENT : MAYBE_SENT,
          }),
        );
      });
      r.on('response', (res) => {
        const sink = req.sink;
        if (sink && (res.statusCode === 200 || res.statusCode === 206)) {
          const idle = (): void => {
            clearTimeout(timer);
            timer = setTimeout(timedOut, req.timeoutMs);
          };
          streamTo(res, sink, url.host, idle, fail, (status, headers) => {
            if (settled) return;
            settled = true;
            cleanup();
            resolve({ status, headers, body: '' });
          });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        const tooLarge = (): void =>
          fail(
            new AppError(
              'BadResponse',
              `response from ${url.host} to ${req.method} ${url.pathname} is larger than ${this.maxBytes} bytes: refused`,
              { detail: TOO_LARGE, retry: 'fatal' },
            ),
          );
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > this.maxBytes) {
          tooLarge();
          return;
        }
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > this.maxBytes) {
            chunks.length = 0;
            tooLarge();
            return;
          }
          chunks.push(c);
        });
        res.on('error', (e) =>
          fail(new AppError('NetworkError', `response from ${url.host} broke: ${e.message}`, { cause: e, delivery: MAYBE_SENT })),
        );
        res.on('aborted', () => fail(new AppError('NetworkError', `response from ${url.host} aborted`, { delivery: MAYBE_SENT })));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          cleanup();
          resolve({ status: res.statusCode ?? 0, headers: headersOf(res), body: Buffer.concat(chunks).toString('utf8') });
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

function headersOf(res: http.IncomingMessage): Record<string, string | undefined> {
  const h: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(res.headers)) h[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return h;
}

/**
 * Streams an answer into a sink: paused while a chunk is written (a slow disk holds the
 * socket, never memory); `idle` restarts the timeout at each chunk. A sink error or a broken
 * answer fails the request (what the sink wrote stays written: the caller resumes from there).
 */
function streamTo(
  res: http.IncomingMessage,
  sink: BodySink,
  host: string,
  idle: () => void,
  fail: (e: AppError) => void,
  done: (status: number, headers: Record<string, string | undefined>) => void,
): void {
  const headers = headersOf(res);
  const status = res.statusCode ?? 0;
  let failed = false;
  let ended = false;
  let writing = Promise.resolve();
  const broke = (e: unknown): void => {
    if (failed) return;
    failed = true;
    res.destroy();
    fail(e instanceof AppError ? e : new AppError('DiskError', `writing the download failed: ${(e as Error).message}`, { cause: e }));
  };
  res.pause();
  writing = Promise.resolve(sink.begin(status, headers)).then(() => {
    if (!failed) res.resume();
  }, broke);
  res.on('data', (c: Buffer) => {
    idle();
    res.pause();
    writing = writing
      .then(() => (failed ? undefined : sink.write(c)))
      .then(() => {
        if (!failed && !ended) res.resume();
      }, broke);
  });
  res.on('error', (e) =>
    broke(new AppError('NetworkError', `response from ${host} broke: ${e.message}`, { cause: e, delivery: MAYBE_SENT })),
  );
  res.on('aborted', () => broke(new AppError('NetworkError', `response from ${host} aborted`, { delivery: MAYBE_SENT })));
  res.on('end', () => {
    ended = true;
    void writing.then(() => {
      if (!failed) done(status, headers);
    });
  });
}
