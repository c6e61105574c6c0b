/**
 * GETs over plain HTTP (transport.ts sends every GET of an `http:` URL here: content reads, and
 * listings and objects, whose requests through node's client cost ~100 us each, most of a
 * 1M-object walk's CPU): the answer is read into ONE buffer of the connection's (net's
 * `onread`) and parsed here (HTTP/1.1: status line, headers, a body by Content-Length,
 * chunked, or up to the close), its bytes handed to the sink's `copy` (a download's partial
 * file copies them into blocks of its own), else copied into 512 KiB blocks handed to its
 * `write`. Node's HTTP client reads into a
 * fresh 64 KiB buffer per socket read: for a GiB, 16,000 buffers and some 70 full collections,
 * half the CPU of a download; and for each small file its request and answer objects (a Keep
 * of 10,000 files: bench:content). Same contract as the HTTP client's exchange: the sink's
 * writes pause the answer while one is pending, the outcome is told once every write handed
 * on settled, `timeoutMs` is an idle limit, a 200/206 goes to the sink and any other answer is
 * read whole (up to `maxBytes`). Connections are kept between reads (`RawConnections`: an
 * answer read to its end, HTTP/1.1, not `Connection: close`); a kept one the server closed
 * before answering is tried again once on a new connection (a GET: nothing was done).
 */
import { AppError, type Delivery } from '../../app/errors.js';
import { RawConnection, READ_BYTES, RawConnections, type ConnectionUser } from './raw-connections.js';

export { RawConnections };

/** Where a streamed answer goes (transport.ts `BodySink`). */
interface Sink {
  begin(status: number, headers: Record<string, string | undefined>): void | Promise<void>;
  write(chunk: Buffer): Promise<void>;
  /** Takes a copy of bytes valid only during the call (then the body goes there, not in blocks). */
  copy?(bytes: Buffer): Promise<void> | undefined;
}

/** The request (transport.ts `TransportRequest`: a GET, no body). */
export interface RawRequest {
  method: string;
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  sink?: Sink | undefined;
}

/** The answer (transport.ts `TransportResponse`). */
export interface RawResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

/**
 * The blocks the body is handed on in (to a sink without `copy`): larger than a read of the
 * connection's (READ_BYTES), so nothing is handed on before the sink's begin settled (the
 * connection is paused after the read that held the head).
 */
const BLOCK_BYTES = 2 * READ_BYTES;
/** The most a status line and headers may take. */
const MAX_HEAD_BYTES = 64 * 1024;

export interface RawOutcome {
  resolve: (res: RawResponse) => void;
  reject: (e: AppError) => void;
}

/** How the body ends: after `left` bytes, chunk by chunk, or at the close. */
type Framing =
  { kind: 'length'; left: number } | { kind: 'chunked'; left: number; state: 'size' | 'data' | 'data-end' | 'trailer' } | { kind: 'close' };

/** Sends `req` (a GET with a sink) to `url` over a connection of `pool` and reads the answer as described above. */
export function rawRead(url: URL, req: RawRequest, maxBytes: number, outcome: RawOutcome, pool: RawConnections): void {
  new RawExchange(url, req, maxBytes, outcome, pool).start();
}

class RawExchange implements ConnectionUser {
  private conn: RawConnection | undefined;
  /** Tried again on a new connection once (a kept one the server had closed). */
  private retried = false;
  /** The answer's HTTP version is 1.1 and it does not close the connection: kept for the next read once this one is whole. */
  private keep = false;
  private settled = false;
  /** The request's head as sent (sent again as it was on a new connection). */
  private requestText = '';
  private timer: ReturnType<typeof setTimeout>;
  /** The head as it arrives (copied out of the read buffer), until it is whole. */
  private head: Buffer[] = [];
  private headBytes = 0;
  private status = 0;
  private headers: Record<string, string | undefined> = {};
  private framing: Framing | undefined;
  /** Streaming into the sink (a 200/206), or reading a whole answer (`whole`). */
  private streaming = false;
  private whole: Buffer[] = [];
  private wholeBytes = 0;
  /** Body bytes read before the sink's begin settled (handed on then). */
  private early: Buffer[] | undefined = [];
  /** The block being filled, and writes handed to the sink and not settled (the begin counts as one). */
  private block: Buffer | undefined;
  private fill = 0;
  private pending = 0;
  private paused = false;
  private failed = false;
  private done = false;
  private waiting: (() => void)[] = [];
  /** A chunk-size line being read (chunked framing). */
  private line = '';
  private readonly onAbort = (): void => this.fail(new AppError('Cancelled', 'request cancelled', { delivery: this.delivery() }));

  constructor(
    private readonly url: URL,
    private readonly req: RawRequest,
    private readonly maxBytes: number,
    private readonly outcome: RawOutcome,
    private readonly pool: RawConnections,
  ) {
    this.timer = setTimeout(() => this.timedOut(), req.timeoutMs);
  }

  start(): void {
    const { req } = this;
    if (req.signal?.aborted) {
      this.onAbort();
      return;
    }
    const head = this.requestHead();
    if (head === undefined) return;
    req.signal?.addEventListener('abort', this.onAbort);
    this.send(this.pool.take(this.url), head);
  }

  /**
   * The request's head, or undefined (the exchange failed, nothing sent) when a header holds a
   * line break: a value from the NAS sent back (an ETag) is never a line of its own, as node's
   * client refuses it too.
   */
  private requestHead(): string | undefined {
    const { req, url } = this;
    const lines = [`${req.method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
    for (const [k, v] of Object.entries(req.headers)) {
      if (/[\r\n\0]/.test(k) || /[\r\n\0]/.test(v)) {
        this.fail(
          new AppError('BadRequest', `a header of ${req.method} ${url.pathname} holds a line break: not sent`, {
            delivery: 'not-sent',
            retry: 'fatal',
          }),
        );
        return undefined;
      }
      lines.push(`${k}: ${v}`);
    }
    lines.push('', '');
    return lines.join('\r\n');
  }

  /** Writes the request's `head` on `conn`, which this exchange uses from now on. */
  private send(conn: RawConnection, head: string): void {
    this.conn = conn;
    conn.user = this;
    this.requestText = head;
    conn.sock.write(head);
  }

  /** A kept connection that failed before any byte of the answer: the server closed it meanwhile; once more on a new one. */
  private againOnNew(): boolean {
    if (this.retried || !this.conn?.reused || this.headBytes > 0 || this.framing !== undefined || this.settled || this.failed) return false;
    this.retried = true;
    this.conn.user = undefined;
    this.conn.destroy();
    this.send(this.pool.take(this.url, true), this.requestText);
    return true;
  }

  onError(e: NodeJS.ErrnoException): void {
    if (this.againOnNew()) return;
    const { req, url } = this;
    this.fail(new AppError('NetworkError', `${req.method} ${url.host}: ${e.code ?? e.message}`, { cause: e, delivery: this.delivery() }));
  }

  /** Bytes `[0, n)` of the connection's buffer (valid only during this call); false pauses the connection. */
  onRead(buf: Buffer, n: number): boolean {
    if (this.settled || this.failed) return false;
    this.idle();
    let at = 0;
    if (this.framing === undefined) {
      at = this.readHead(buf, n);
      if (this.failed) return false;
      if (at < 0) return true; // the head goes on in the next read
    }
    const end = this.readBody(buf, at, n);
    if (this.failed) return false;
    if (this.done) {
      // whole: the connection is kept for the next read, unless bytes followed the answer
      this.release(end === n);
      return true;
    }
    if (this.pending > 0) this.paused = true;
    return !this.paused;
  }

  /** The answer is read to its end: the connection goes back to the pool (or is closed). */
  private release(clean: boolean): void {
    const c = this.conn;
    if (c === undefined || c.user !== this) return;
    this.conn = undefined;
    if (clean && this.keep && this.framing?.kind !== 'close') this.pool.give(this.url, c);
    else {
      c.user = undefined;
      c.destroy();
    }
  }

  /** Takes the head; the offset in `buf` where the body starts, or -1 while the head is not whole. */
  private readHead(buf: Buffer, n: number): number {
    const before = this.headBytes;
    // (the whole head in this read, the usual case: read where it is, nothing copied)
    const here = before === 0 ? buf.subarray(0, n) : undefined;
    const all = here ?? Buffer.concat([...this.head, buf.subarray(0, n)]);
    this.headBytes += n;
    const end = all.indexOf('\r\n\r\n');
    if (end < 0) {
      if (this.headBytes > MAX_HEAD_BYTES) this.bad('an answer whose headers never end');
      this.head = [here ? Buffer.from(here) : all];
      return -1;
    }
    this.head = [];
    const lines = all.toString('latin1', 0, end).split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '');
    if (!m) {
      this.bad('an answer that is not HTTP/1.1');
      return -1;
    }
    const status = Number(m[2]);
    const headers: Record<string, string | undefined> = {};
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      if (i <= 0) continue;
      const k = l.slice(0, i).trim().toLowerCase();
      const v = l.slice(i + 1).trim();
      headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
    }
    const bodyAt = end + 4 - before;
    // an interim answer (100 Continue): the real one follows
    if (status >= 100 && status < 200) {
      this.headBytes = 0;
      const next = bodyAt < n ? this.readHead(buf.subarray(bodyAt), n - bodyAt) : -1;
      return next < 0 ? -1 : next + bodyAt;
    }
    this.status = status;
    this.headers = headers;
    this.keep = m[1] === '1' && !/(^|,)\s*close\s*(,|$)/i.test(headers['connection'] ?? '');
    const te = headers['transfer-encoding']?.toLowerCase();
    const len = headers['content-length'];
    if (status === 204 || status === 304) this.framing = { kind: 'length', left: 0 };
    else if (te !== undefined && te !== 'identity') {
      if (!/(^|,)\s*chunked\s*$/.test(te)) {
        this.bad(`an answer in a transfer coding the client does not read (${te})`);
        return -1;
      }
      this.framing = { kind: 'chunked', left: 0, state: 'size' };
    } else if (len !== undefined) {
      if (!/^\d{1,15}$/.test(len)) {
        this.bad('an answer with an unreadable Content-Length');
        return -1;
      }
      this.framing = { kind: 'length', left: Number(len) };
    } else this.framing = { kind: 'close' };
    this.streaming = this.req.sink !== undefined && (status === 200 || status === 206);
    if (this.streaming) this.begin(this.req.sink!);
    else if (this.framing.kind === 'length' && this.framing.left > this.maxBytes) {
      this.tooLarge();
      return -1;
    }
    return bodyAt;
  }

  /** The sink's begin, as one pending write: nothing is handed on before it settled. */
  private begin(sink: Sink): void {
    this.pending++;
    let began: void | Promise<void>;
    try {
      began = sink.begin(this.status, this.headers);
    } catch (e) {
      began = Promise.reject(e as Error);
    }
    Promise.resolve(began).then(
      () => {
        const early = this.early ?? [];
        this.early = undefined;
        for (const b of early) if (!this.failed) this.hand(b, 0, b.length);
        // (a body that ended within the head's read ends now)
        if (this.done && this.streaming) this.handOn();
        this.settledOne();
      },
      (e: unknown) => this.broke(e),
    );
  }

  /** The body's bytes in `buf[at, n)`, by its framing; the offset after the last byte of the answer it read. */
  private readBody(buf: Buffer, at: number, n: number): number {
    const f = this.framing!;
    while (at < n && !this.failed && !this.done) {
      if (f.kind === 'close') {
        this.take(buf, at, n);
        return n;
      }
      if (f.kind === 'length') {
        const k = Math.min(f.left, n - at);
        this.take(buf, at, at + k);
        f.left -= k;
        at += k;
        if (f.left === 0) this.end();
        continue;
      }
      at = this.readChunked(f, buf, at, n);
    }
    if (f.kind === 'length' && f.left === 0 && !this.done) this.end();
    return at;
  }

  /** One step of a chunked body; the offset after what it read. */
  private readChunked(f: Extract<Framing, { kind: 'chunked' }>, buf: Buffer, at: number, n: number): number {
    if (f.state === 'data') {
      const k = Math.min(f.left, n - at);
      this.take(buf, at, at + k);
      f.left -= k;
      if (f.left === 0) f.state = 'data-end';
      return at + k;
    }
    const nl = buf.indexOf(10, at);
    const stop = nl < 0 || nl >= n ? n : nl + 1;
    this.line += buf.toString('latin1', at, stop);
    if (this.line.length > 4096) this.bad('a chunk line that never ends');
    if (!this.line.endsWith('\n')) return stop;
    const line = this.line.trim();
    this.line = '';
    if (f.state === 'data-end') f.state = 'size';
    else if (f.state === 'trailer') {
      if (line === '') this.end();
    } else {
      const size = /^([0-9a-fA-F]{1,12})(;.*)?$/.exec(line);
      if (!size) this.bad('an unreadable chunk size');
      else {
        f.left = parseInt(size[1]!, 16);
        f.state = f.left === 0 ? 'trailer' : 'data';
      }
    }
    return stop;
  }

  /** Body bytes `buf[from, to)`: copied into the block being filled (streaming) or kept (a whole answer). */
  private take(buf: Buffer, from: number, to: number): void {
    if (to <= from) return;
    if (!this.streaming) {
      this.wholeBytes += to - from;
      if (this.wholeBytes > this.maxBytes) this.tooLarge();
      else this.whole.push(Buffer.from(buf.subarray(from, to)));
      return;
    }
    if (this.early !== undefined) this.early.push(Buffer.from(buf.subarray(from, to)));
    else this.hand(buf, from, to);
  }

  /** Streamed bytes `buf[from, to)` to the sink: a copy taken at once, or into blocks handed to `write`. */
  private hand(buf: Buffer, from: number, to: number): void {
    const copy = this.req.sink!.copy;
    if (copy !== undefined) {
      let took: Promise<void> | undefined;
      try {
        took = copy.call(this.req.sink, buf.subarray(from, to));
      } catch (e) {
        took = Promise.reject(e as Error);
      }
      if (took !== undefined) {
        this.pending++;
        took.then(
          () => this.settledOne(),
          (e: unknown) => this.broke(e),
        );
      }
      return;
    }
    while (from < to) {
      this.block ??= Buffer.allocUnsafe(BLOCK_BYTES);
      const k = Math.min(to - from, BLOCK_BYTES - this.fill);
      buf.copy(this.block, this.fill, from, from + k);
      this.fill += k;
      from += k;
      if (this.fill === BLOCK_BYTES) this.handOn();
    }
  }

  /** The filled part of the block to the sink (which keeps it); the answer waits while a write is pending. */
  private handOn(): void {
    if (this.fill === 0) return;
    const chunk = this.fill === BLOCK_BYTES ? this.block! : this.block!.subarray(0, this.fill);
    this.block = undefined;
    this.fill = 0;
    this.pending++;
    let wrote: Promise<void>;
    try {
      wrote = this.req.sink!.write(chunk);
    } catch (e) {
      wrote = Promise.reject(e as Error);
    }
    wrote.then(
      () => this.settledOne(),
      (e: unknown) => this.broke(e),
    );
  }

  private settledOne(): void {
    if (--this.pending > 0) return;
    const then = this.waiting;
    this.waiting = [];
    for (const t of then) t();
    if (this.paused && !this.failed && !this.done) {
      this.paused = false;
      this.conn?.sock.resume();
    }
  }

  /** A sink's write (or begin) failed: the request fails (its connection dropped) once the rest settled. */
  private broke(e: unknown): void {
    this.fail(
      e instanceof AppError ? e : new AppError('DiskError', `writing the download failed: ${(e as Error).message}`, { cause: e }),
      true,
    );
    this.settledOne();
  }

  /** The body is whole (the connection is released by the read that ended it, or is gone). */
  private end(): void {
    if (this.done) return;
    this.done = true;
    if (this.streaming) {
      this.handOn();
      this.whenSettled(() => {
        if (!this.failed) this.succeed('');
      });
    } else this.succeed(Buffer.concat(this.whole).toString('utf8'));
  }

  onClose(): void {
    if (this.done || this.settled || this.failed) return;
    // a body read up to the close ends there; any other is cut off
    if (this.framing?.kind === 'close') {
      this.end();
      this.release(false);
      return;
    }
    if (this.againOnNew()) return;
    this.fail(new AppError('NetworkError', `response from ${this.url.host} aborted`, { delivery: 'maybe-sent' }));
  }

  private whenSettled(then: () => void): void {
    if (this.pending === 0) then();
    else this.waiting.push(then);
  }

  private bad(what: string): void {
    this.fail(new AppError('BadResponse', `${this.url.host} sent ${what}`, { retry: 'fatal' }));
  }

  private tooLarge(): void {
    const { req, url } = this;
    this.fail(
      new AppError(
        'BadResponse',
        `response from ${url.host} to ${req.method} ${url.pathname} is larger than ${this.maxBytes} bytes: refused`,
        {
          detail: 'the response is larger than the client accepts',
          retry: 'fatal',
        },
      ),
    );
  }

  private idle(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.timedOut(), this.req.timeoutMs);
  }

  private timedOut(): void {
    const { req, url } = this;
    this.fail(
      new AppError('Timeout', `${req.method} ${url.pathname} timed out after ${req.timeoutMs} ms`, {
        delivery: this.delivery(),
      }),
    );
  }

  /** Fails the exchange (once), drops the connection, and tells it once every write handed on settled. */
  private fail(e: AppError, bySink = false): void {
    if (this.settled || this.failed) return;
    // what came before the answer broke is handed on (a resumed read asks from what the sink holds)
    if (this.streaming && !bySink && this.early === undefined) this.handOn();
    this.failed = true;
    this.cleanup();
    this.release(false);
    this.whenSettled(() => {
      this.settled = true;
      this.outcome.reject(e);
    });
  }

  private succeed(body: string): void {
    if (this.settled) return;
    this.settled = true;
    this.cleanup();
    this.outcome.resolve({ status: this.status, headers: this.headers, body });
  }

  /** Whether the request may have reached the server (transport.ts MAYBE_SENT / NOT_SENT). */
  private delivery(): Delivery {
    return this.conn?.connected === true ? 'maybe-sent' : 'not-sent';
  }

  private cleanup(): void {
    clearTimeout(this.timer);
    this.req.signal?.removeEventListener('abort', this.onAbort);
  }
}
