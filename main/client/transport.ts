/**
 * The network under the service client: one HTTP exchange per call, nothing else. The real
 * implementation reads every GET over plain HTTP with the client's own reader (raw-read.ts) and
 * sends the rest with node:http(s) and keep-alive agents. Errors are AppErrors:
 * `Timeout` or `NetworkError`; `sent` in `detail` says the request may have reached the server.
 * A response body larger than `MAX_RESPONSE_BYTES` is cut off: `BadResponse` (detail
 * `too-large`), never an unbounded buffer. A request with a `sink` (content reads) has a 200/206
 * answer's bytes streamed into it instead, with `timeoutMs` as an idle limit between chunks.
 * A `FileBody` (an upload's chunk) is read from its file as it is sent, never held whole, with
 * `timeoutMs` as an idle limit while it goes; the exchange ends only once that read is closed.
 */
import http from 'node:http';
import https from 'node:https';
import { AppError, type Delivery } from '../../app/errors.js';
import { sendFile, type FileBody, type FileSending } from './file-body.js';
import { rawRead, RawConnections } from './raw-read.js';
import { API_READ_BYTES } from './raw-connections.js';

export type { FileBody };

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** JSON text, raw bytes, or bytes of a file read as they go. */
export type RequestBody = string | Buffer | FileBody;

export const isFileBody = (b: RequestBody | undefined): b is FileBody => typeof b === 'object' && !Buffer.isBuffer(b);

export interface TransportRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  /** JSON text, or raw bytes (an upload's chunk), or a chunk read from its file as it goes. */
  body?: RequestBody;
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Streams a 200/206 answer's bytes here (its `body` is then ''); any other answer is read as a
   * body. Over plain HTTP, read by the client's own reader (raw-read.ts), not node's.
   */
  sink?: BodySink;
}

/** Where a streamed answer goes (a download's partial file). */
export interface BodySink {
  /** Before the first byte; throwing refuses the answer (the connection is dropped, nothing written). */
  begin(status: number, headers: Record<string, string | undefined>): void | Promise<void>;
  /**
   * One chunk, in order. The answer flows on while earlier writes have settled and is paused
   * while one is pending; a rejection drops the connection. The exchange ends (either way)
   * only once every write it handed on has settled.
   */
  write(chunk: Buffer): Promise<void>;
  /** Takes a copy of `bytes`, valid only during the call (content-read.ts `ContentTarget.copy`); optional. */
  copy?(bytes: Buffer): Promise<void> | undefined;
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
  /** Connections of the content reads over plain HTTP (raw-read.ts), and of the other GETs (smaller read buffers). */
  private readonly raw = new RawConnections();
  private readonly rawApi = new RawConnections(API_READ_BYTES);

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
      const secure = url.protocol === 'https:';
      // every GET over plain HTTP: the client's own reader (node's costs ~100 us a request: a
      // walk's 15k conditional listings at 1M, most of its CPU)
      if (url.protocol === 'http:' && req.method === 'GET' && req.body === undefined) {
        rawRead(url, req, this.maxBytes, { resolve, reject }, req.sink !== undefined ? this.raw : this.rawApi);
        return;
      }
      const route: Route = { url, mod: secure ? https : http, agent: secure ? this.httpsAgent : this.httpAgent, maxBytes: this.maxBytes };
      new Exchange(req, route, { resolve, reject }).start();
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
    this.raw.close();
    this.rawApi.close();
  }
}

/** Where one request goes and through what: its URL, the module and keep-alive agent of its scheme, the body limit. */
interface Route {
  url: URL;
  mod: typeof http | typeof https;
  agent: http.Agent;
  maxBytes: number;
}

/** How an exchange ends: the answer, or an AppError. */
interface Outcome {
  resolve: (res: TransportResponse) => void;
  reject: (e: AppError) => void;
}

/**
 * One request in flight: its timer (a timeout, or the idle limit of a streamed answer), its
 * abort listener, and whether it reached the server. It ends once: the first outcome wins and
 * the connection of a failed one is dropped.
 */
class Exchange {
  private connected = false;
  private settled = false;
  /** A streamed answer in progress (its writes are waited for before any outcome is told). */
  private stream: Streaming | undefined;
  /** A file body being read (it is closed before any outcome is told: its descriptor is the caller's). */
  private fileRead: FileSending | undefined;
  private readonly r: http.ClientRequest;
  private timer: ReturnType<typeof setTimeout>;
  private readonly onAbort = (): void =>
    this.fail(new AppError('Cancelled', 'request cancelled', { delivery: this.connected ? MAYBE_SENT : NOT_SENT }));

  constructor(
    private readonly req: TransportRequest,
    private readonly route: Route,
    private readonly outcome: Outcome,
  ) {
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(isFileBody(req.body) ? req.body.length : Buffer.byteLength(req.body));
    this.r = route.mod.request(route.url, { method: req.method, headers, agent: route.agent });
    this.timer = setTimeout(() => this.timedOut(), req.timeoutMs);
  }

  /** Sends the request (unless its signal is aborted already) and listens for the answer. */
  start(): void {
    const { req, r } = this;
    if (req.signal?.aborted) {
      this.onAbort();
      return;
    }
    req.signal?.addEventListener('abort', this.onAbort);
    r.on('socket', (s) => {
      // A reused keep-alive socket is already connected.
      if (!s.connecting) this.connected = true;
      else
        s.once('connect', () => {
          this.connected = true;
        });
    });
    r.on('error', (e: NodeJS.ErrnoException) => {
      // A reset on a reused socket may come before the server read anything, but we cannot know.
      const before = !this.connected || e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN';
      this.fail(
        new AppError('NetworkError', `${req.method} ${this.route.url.host}: ${e.code ?? e.message}`, {
          cause: e,
          delivery: before ? NOT_SENT : MAYBE_SENT,
        }),
      );
    });
    r.on('response', (res) => this.onResponse(res));
    if (isFileBody(req.body)) this.sendFile(req.body);
    else r.end(req.body);
  }

  /** Sends the file's bytes as they are read (the socket's pace: paused while it is full); each chunk restarts the idle limit. */
  private sendFile(b: FileBody): void {
    if (b.length === 0) {
      this.r.end();
      return;
    }
    this.fileRead = sendFile(b, this.r, {
      progress: () => this.restartTimer(),
      failed: (e) =>
        this.fail(e instanceof AppError ? e : new AppError('DiskError', `reading the file to upload failed: ${e.message}`, { cause: e })),
      // a file that got shorter: its declared length is never met, the request is dropped
      short: () => new AppError('DiskError', 'the file got shorter while it was sent', { delivery: MAYBE_SENT }),
    });
  }

  private restartTimer(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.timedOut(), this.req.timeoutMs);
  }

  /** Fails the exchange (once) and drops its connection. */
  private fail(e: AppError): void {
    if (this.settled) return;
    this.settled = true;
    this.cleanup();
    this.r.destroy();
    this.afterWrites(() => this.outcome.reject(e));
  }

  /** Ends the exchange with its answer (once); a body still being sent (an early answer) is dropped with its connection. */
  private succeed(res: TransportResponse): void {
    if (this.settled) return;
    this.settled = true;
    this.cleanup();
    if (this.fileRead !== undefined && !this.r.writableFinished) this.r.destroy();
    this.afterWrites(() => this.outcome.resolve(res));
  }

  /** `then` once every write handed to the sink has settled and a file body's read is closed (at once when neither is going). */
  private afterWrites(then: () => void): void {
    const afterRead = (): void => {
      if (this.stream) this.stream.whenSettled(then);
      else then();
    };
    if (this.fileRead === undefined) afterRead();
    else void this.fileRead.stop().then(afterRead);
  }

  private cleanup(): void {
    clearTimeout(this.timer);
    this.req.signal?.removeEventListener('abort', this.onAbort);
  }

  private timedOut(): void {
    const { req, route } = this;
    this.fail(
      new AppError('Timeout', `${req.method} ${route.url.pathname} timed out after ${req.timeoutMs} ms`, {
        delivery: this.connected ? MAYBE_SENT : NOT_SENT,
      }),
    );
  }

  /** The answer: a 200/206 streamed into the request's sink, any other read whole. */
  private onResponse(res: http.IncomingMessage): void {
    const sink = this.req.sink;
    if (sink && (res.statusCode === 200 || res.statusCode === 206)) {
      const idle = (): void => this.restartTimer();
      this.stream = streamTo(
        res,
        sink,
        this.route.url.host,
        idle,
        (e) => this.fail(e),
        (status, headers) => this.succeed({ status, headers, body: '' }),
      );
      return;
    }
    this.readWhole(res);
  }

  /** Reads a whole answer as text, refused past `maxBytes` (declared or counted). */
  private readWhole(res: http.IncomingMessage): void {
    const { req, route } = this;
    const { host } = route.url;
    const chunks: Buffer[] = [];
    let size = 0;
    const tooLarge = (): void =>
      this.fail(
        new AppError(
          'BadResponse',
          `response from ${host} to ${req.method} ${route.url.pathname} is larger than ${route.maxBytes} bytes: refused`,
          { detail: TOO_LARGE, retry: 'fatal' },
        ),
      );
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > route.maxBytes) {
      tooLarge();
      return;
    }
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > route.maxBytes) {
        chunks.length = 0;
        tooLarge();
        return;
      }
      chunks.push(c);
    });
    res.on('error', (e) =>
      this.fail(new AppError('NetworkError', `response from ${host} broke: ${e.message}`, { cause: e, delivery: MAYBE_SENT })),
    );
    res.on('aborted', () => this.fail(new AppError('NetworkError', `response from ${host} aborted`, { delivery: MAYBE_SENT })));
    res.on('end', () => {
      if (this.settled) return;
      this.succeed({ status: res.statusCode ?? 0, headers: headersOf(res), body: Buffer.concat(chunks).toString('utf8') });
    });
  }
}

function headersOf(res: http.IncomingMessage): Record<string, string | undefined> {
  const h: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(res.headers)) h[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return h;
}

/** A streamed answer: the outcome of its exchange waits for the writes it handed on. */
interface Streaming {
  /** `then` at once when no write is pending, else when the last one settles. */
  whenSettled(then: () => void): void;
}

/**
 * Streams an answer into a sink, each chunk handed on in order as it comes. The answer keeps
 * flowing while the sink keeps up (a write settled before the next chunk came), and is paused
 * while a write is pending: a slow disk holds the socket, never memory (at most two chunks
 * handed on and unsettled). `idle` restarts the timeout at each chunk. A sink error or a
 * broken answer fails the request at once (the connection is dropped); the answer is done
 * once every write of it settled, none failing. The exchange tells its outcome (either)
 * through `whenSettled`: the caller reads what the sink holds after every write settled (a
 * resumed read asks from there); what the sink wrote stays written.
 */
function streamTo(
  res: http.IncomingMessage,
  sink: BodySink,
  host: string,
  idle: () => void,
  fail: (e: AppError) => void,
  done: (status: number, headers: Record<string, string | undefined>) => void,
): Streaming {
  const headers = headersOf(res);
  const status = res.statusCode ?? 0;
  let failed = false;
  let paused = true;
  // writes (and the begin) handed to the sink and not settled
  let pending = 1;
  let waiting: (() => void)[] = [];
  const broke = (e: unknown): void => {
    if (failed) return;
    failed = true;
    res.destroy();
    fail(e instanceof AppError ? e : new AppError('DiskError', `writing the download failed: ${(e as Error).message}`, { cause: e }));
  };
  const settled = (): void => {
    if (--pending > 0) return;
    const then = waiting;
    waiting = [];
    for (const t of then) t();
    if (!then.length && paused && !failed) {
      paused = false;
      res.resume();
    }
  };
  const rejected = (e: unknown): void => {
    broke(e);
    settled();
  };
  res.pause();
  Promise.resolve(sink.begin(status, headers)).then(settled, rejected);
  res.on('data', (c: Buffer) => {
    if (failed) return;
    idle();
    if (pending > 0 && !paused) {
      paused = true;
      res.pause();
    }
    pending++;
    let wrote: Promise<void>;
    try {
      wrote = sink.write(c);
    } catch (e) {
      wrote = Promise.reject(e as Error);
    }
    wrote.then(settled, rejected);
  });
  res.on('error', (e) =>
    broke(new AppError('NetworkError', `response from ${host} broke: ${e.message}`, { cause: e, delivery: MAYBE_SENT })),
  );
  res.on('aborted', () => broke(new AppError('NetworkError', `response from ${host} aborted`, { delivery: MAYBE_SENT })));
  const whenSettled = (then: () => void): void => {
    if (pending === 0) then();
    else waiting.push(then);
  };
  // the answer is whole once every write of it settled, none failing
  res.on('end', () =>
    whenSettled(() => {
      if (!failed) done(status, headers);
    }),
  );
  return { whenSettled };
}
