/**
 * Typed client of every endpoint of the service (service.md). Concurrency-limited, with
 * timeouts and retries (exponential backoff + jitter, honouring Retry-After) for the errors
 * whose retry class is `backoff` (network errors, timeouts, 5xx, 429). Reads are retried
 * freely; a patch or delete only when it certainly did not reach the server (connection
 * refused, 429, 503): otherwise the error is surfaced with `delivery: 'maybe-sent'` so the
 * outbox checks on the NAS before resending.
 */
import { AppError, type Delivery, type ErrorCode } from '../../app/errors.js';
import { FOLDER_MIME, type Hidden, type RemoteObject, type SearchPage } from '../../app/model/remote-object.js';
import { DEFAULT_SEARCH_LIMIT } from '../../app/search/select.js';
import { DeviceQuirks } from './device-quirks.js';
import { parseJson, parseListing, parseObject, parseSearch, type CheckedListing } from './parse.js';
import { Limiter, defaultSleep } from './limiter.js';
import { redactError, redactSecrets } from './redact.js';
import {
  HttpTransport,
  NOT_SENT,
  type BodySink,
  type FileBody,
  type HttpMethod,
  type RequestBody,
  type Transport,
  type TransportResponse,
} from './transport.js';
import { contentRangeOf, type ContentRead, type ContentTarget } from './content-read.js';
import { relatedBody } from './related-body.js';

export type { ContentRead, ContentTarget };

/** What a create answered: the new object's id, and the object when the answer carried it. */
export interface Created {
  id: string;
  object: RemoteObject | undefined;
}

/** Pages `pages()` follows at most (2M objects at 1000 a page). */
const MAX_PAGES = 2000;

/** A strong entity tag (RFC 9110 8.8.3): a quoted run of visible characters other than `"`. */
const STRONG_ETAG = /^"[\x21\x23-\x7e\x80-\xff]{0,1024}"$/;

/** `delivery` of an error after which a patch/delete may or may not have been applied. */
export const OUTCOME_UNKNOWN: Delivery = 'maybe-sent';

export interface ServiceClientOptions {
  /** e.g. `http://nas.local:8080` (no trailing `/sdk/v2`). */
  baseUrl: string;
  /** The bearer token, or a function giving it (never logged; redacted from every error the client throws). */
  token: string | (() => string);
  /** Other secrets to redact from errors (a refresh token). */
  secrets?: () => readonly string[];
  transport?: Transport;
  /** Requests in flight at once (default 8). */
  concurrency?: number;
  /** Per attempt (default 30 s). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 5). */
  retries?: number;
  /** First backoff (default 200 ms); doubles each retry, capped at `backoffMaxMs` (default 10 s). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Path prefix (default `/sdk/v2`). */
  prefix?: string;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told once about a device behaving unlike the interface (e.g. it ignores If-Match). */
  onWarning?: (message: string) => void;
  /** Observes every attempt (tests, logs): no headers, never the token. */
  onAttempt?: (e: AttemptEvent) => void;
}

/** One attempt of a request: its HTTP status, or the error that left it without an answer. */
export interface AttemptEvent {
  method: HttpMethod;
  path: string;
  attempt: number;
  status?: number;
  error?: ErrorCode;
}

export interface ListOptions {
  limit?: number;
  pageToken?: string;
  orderBy?: 'name' | 'mTime' | 'cTime' | 'size';
  order?: 'asc' | 'desc';
  fields?: readonly string[];
  hidden?: 'mac' | 'linux' | 'windows' | 'none';
  signal?: AbortSignal;
}

export interface SearchOptions {
  limit?: number;
  pageToken?: string;
  fields?: readonly string[];
  signal?: AbortSignal;
}

/** The patch body: every field optional (seed). */
export interface PatchBody {
  name?: string;
  parentID?: string;
  mimeType?: string;
  hidden?: Hidden;
  cTime?: string;
  mTime?: string;
}

export interface ConditionalOptions {
  ifMatch?: string;
  ifNoneMatch?: string;
  signal?: AbortSignal;
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  412: 'PreconditionFailed',
  413: 'PayloadTooLarge',
  429: 'RateLimited',
  503: 'Unavailable',
  507: 'NasFull',
};

/** Seconds or an HTTP date -> milliseconds; undefined when absent or unreadable. */
export function parseRetryAfter(v: string | undefined, now = Date.now()): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Number(v.trim()) * 1000;
  const t = Date.parse(v);
  return Number.isFinite(t) ? Math.max(0, t - now) : undefined;
}

export class ServiceClient {
  readonly baseUrl: string;
  private readonly transport: Transport;
  private readonly limiter: Limiter;
  private readonly o: Required<Omit<ServiceClientOptions, 'transport' | 'onAttempt' | 'token' | 'baseUrl' | 'onWarning' | 'secrets'>>;
  /** What this device does unlike the reference service (device-quirks.ts). */
  readonly quirks = new DeviceQuirks();
  private readonly observers = new Set<(e: AttemptEvent) => void>();

  constructor(private readonly opts: ServiceClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.transport = opts.transport ?? new HttpTransport({ maxSockets: opts.concurrency ?? 8 });
    this.limiter = new Limiter(opts.concurrency ?? 8);
    this.o = {
      concurrency: opts.concurrency ?? 8,
      timeoutMs: opts.timeoutMs ?? 30_000,
      retries: opts.retries ?? 5,
      backoffBaseMs: opts.backoffBaseMs ?? 200,
      backoffMaxMs: opts.backoffMaxMs ?? 10_000,
      prefix: opts.prefix ?? '/sdk/v2',
      random: opts.random ?? Math.random,
      sleep: opts.sleep ?? defaultSleep,
    };
  }

  /**
   * Observes every attempt from now on (the engine: a NAS that stops answering is said at the
   * first failed attempt, not after the retries); returns the unsubscribe function.
   */
  observe(listener: (e: AttemptEvent) => void): () => void {
    this.observers.add(listener);
    return () => this.observers.delete(listener);
  }

  private attempted(e: AttemptEvent): void {
    this.opts.onAttempt?.(e);
    for (const l of this.observers) {
      try {
        l(e);
      } catch {
        /* an observer's failure is its own */
      }
    }
  }

  /** One page of the children of `ids` (a folder id, `root`, or several). */
  async list(ids: string | readonly string[], opts: ListOptions = {}): Promise<CheckedListing> {
    const q = new URLSearchParams();
    q.set('ids', typeof ids === 'string' ? ids : ids.join(','));
    q.set('limit', String(opts.limit ?? 1000));
    q.set('pageToken', opts.pageToken ?? '');
    if (opts.orderBy) q.set('orderBy', opts.orderBy);
    if (opts.order) q.set('order', opts.order);
    if (opts.fields) q.set('fields', opts.fields.join(','));
    if (opts.hidden) q.set('hidden', opts.hidden);
    const res = await this.send('GET', `/filesSearch/parents?${q}`, { signal: opts.signal, idempotent: true });
    return this.cleanListing(this.quirked(this.parsed(() => parseListing(parseJson(res.body), opts.fields !== undefined))));
  }

  /**
   * One page of a folder's children (or of several folders' at once, one flat list), conditionally:
   * with `ifNoneMatch` (the page ETag of an earlier answer) an unchanged page comes back as
   * `notModified` with no body (304). The page's ETag is returned either way, to send next time.
   */
  async listIfChanged(
    folderIds: string | readonly string[],
    opts: ListOptions & { ifNoneMatch?: string },
  ): Promise<{ notModified: true; etag: string | undefined } | { notModified: false; etag: string | undefined; page: CheckedListing }> {
    const q = new URLSearchParams();
    q.set('ids', typeof folderIds === 'string' ? folderIds : folderIds.join(','));
    q.set('limit', String(opts.limit ?? 1000));
    q.set('pageToken', opts.pageToken ?? '');
    const headers: Record<string, string> = opts.ifNoneMatch !== undefined ? { 'if-none-match': opts.ifNoneMatch } : {};
    const res = await this.send('GET', `/filesSearch/parents?${q}`, {
      signal: opts.signal,
      idempotent: true,
      headers,
      notModifiedOk: true,
    });
    const etag = res.headers['etag'];
    if (res.status === 304) return { notModified: true, etag: etag ?? opts.ifNoneMatch };
    return { notModified: false, etag, page: this.cleanListing(this.quirked(this.parsed(() => parseListing(parseJson(res.body))))) };
  }

  /** Every page of a listing, in order, fetched one after the other. */
  async *pages(ids: string | readonly string[], opts: ListOptions = {}): AsyncGenerator<CheckedListing> {
    let token = opts.pageToken ?? '';
    const sent = new Set<string>();
    for (;;) {
      sent.add(token);
      const page = await this.list(ids, { ...opts, pageToken: token });
      yield page;
      if (page.pageToken === '' || page.pageToken === token) return;
      // a cycle of page tokens, or a listing that never ends: refused, never followed forever
      if (sent.has(page.pageToken) || sent.size >= MAX_PAGES)
        throw new AppError(
          'BadResponse',
          `listing of ${typeof ids === 'string' ? ids : ids.join(',')} ` +
            (sent.has(page.pageToken) ? 'repeats an earlier page token' : `takes more than ${MAX_PAGES} pages`),
        );
      token = page.pageToken;
    }
  }

  /** One object by id (`root` accepted). */
  async get(id: string, opts: { signal?: AbortSignal } = {}): Promise<RemoteObject> {
    const res = await this.send('GET', `/files/${encodeURIComponent(id)}`, { signal: opts.signal, idempotent: true });
    return this.parsed(() => parseObject(parseJson(res.body)));
  }

  /** The child of `parentId` named exactly `name`; NotFound when there is none. */
  async parentAndName(parentId: string, name: string, opts: { signal?: AbortSignal } = {}): Promise<RemoteObject> {
    const q = new URLSearchParams({ parentID: parentId, name });
    const res = await this.send('GET', `/filesSearch/parentAndName?${q}`, { signal: opts.signal, idempotent: true });
    return this.parsed(() => parseObject(parseJson(res.body)));
  }

  async searchText(text: string, opts: SearchOptions = {}): Promise<SearchPage> {
    const q = new URLSearchParams({ q: text });
    if (opts.limit !== undefined) q.set('limit', String(opts.limit));
    if (opts.pageToken !== undefined) q.set('pageToken', opts.pageToken);
    if (opts.fields) q.set('fields', opts.fields.join(','));
    const res = await this.send('GET', `/filesSearch/text?${q}`, { signal: opts.signal, idempotent: true });
    return this.quirks.search(
      this.parsed(() => parseSearch(parseJson(res.body), opts.fields !== undefined)),
      opts.limit ?? DEFAULT_SEARCH_LIMIT,
    );
  }

  /**
   * Patches metadata; the new eTag when the service sent a usable one (a strong entity tag:
   * anything else, garbage or a weak `W/` tag, is not kept, and the caller reads the object).
   */
  async patch(id: string, body: PatchBody, opts: ConditionalOptions = {}): Promise<{ eTag: string | undefined }> {
    await this.guardIfMatch(id, opts);
    const res = await this.send('POST', `/files/${encodeURIComponent(id)}/patch`, {
      signal: opts.signal,
      idempotent: false,
      body: JSON.stringify(body),
      headers: conditional(opts),
    });
    const tag = res.headers['etag'];
    return { eTag: tag !== undefined && STRONG_ETAG.test(tag) ? tag : undefined };
  }

  /** Deletes: `deleted` (204) or `accepted` (202, a non-empty folder deleted in the background). */
  async delete(id: string, opts: ConditionalOptions = {}): Promise<'deleted' | 'accepted'> {
    await this.guardIfMatch(id, opts);
    const res = await this.send('DELETE', `/files/${encodeURIComponent(id)}`, {
      signal: opts.signal,
      idempotent: false,
      headers: conditional(opts),
    });
    if (res.status === 202) this.quirks.deletedInBackground(id);
    return res.status === 202 ? 'accepted' : 'deleted';
  }

  /**
   * A device that ignores If-Match would apply a stale change blindly. The first conditional
   * write probes it: an empty patch (it changes nothing) with an If-Match no object has must
   * get 412. If it succeeds, the client warns once and from then on re-reads the object
   * right before each conditional write: an eTag other than the expected one is a 412 here.
   */
  private async guardIfMatch(id: string, opts: ConditionalOptions): Promise<void> {
    if (opts.ifMatch === undefined) return;
    if (this.quirks.ifMatch === 'unknown') await this.probeIfMatch(id, opts.signal);
    if (this.quirks.ifMatch !== 'ignored') return;
    const current = await this.get(id, { signal: opts.signal });
    if (current.eTag !== opts.ifMatch)
      throw new AppError('PreconditionFailed', 'Precondition Failed', {
        status: 412,
        detail: 'the object changed on the NAS (re-read before sending: this NAS ignores If-Match)',
      });
  }

  /**
   * The probe: an empty patch (a no-op, service.md) with an If-Match no object has. It is sent
   * as `PATCH /files/<id>` (the vendor's current form; `POST .../patch` when that is 405), so
   * it is never mistaken for one of the user's changes.
   */
  private async probeIfMatch(id: string, signal: AbortSignal | undefined): Promise<void> {
    const headers = { 'if-match': '"nas-mirror-if-match-probe"' };
    for (const [method, path] of [
      ['PATCH', `/files/${encodeURIComponent(id)}`],
      ['POST', `/files/${encodeURIComponent(id)}/patch`],
    ] as const) {
      try {
        await this.send(method, path, { signal, idempotent: true, body: '{}', headers });
        this.quirks.ifMatch = 'ignored';
        this.opts.onWarning?.(
          'this NAS ignores If-Match: every rename, move or delete now re-reads the object first, ' +
            'so a change made on the NAS meanwhile is still never overwritten',
        );
        return;
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        if (e.code === 'PreconditionFailed') {
          this.quirks.ifMatch = 'honoured';
          return;
        }
        if (e.status !== 405) return; // 404, offline...: not known yet; the real request says what it says
      }
    }
  }

  /**
   * Creates a folder (content.md, "Create a folder"): its id and object (`created`). A taken
   * name is 409 (`Conflict`): no `resolveNameConflict`, so a retry after a lost answer finds
   * the folder by its name instead of making a second one.
   */
  async createFolder(parentID: string, name: string, opts: { mTime?: string; signal?: AbortSignal } = {}): Promise<Created> {
    const res = await this.send('POST', '/files', {
      signal: opts.signal,
      idempotent: false,
      body: JSON.stringify({ name, parentID, mimeType: FOLDER_MIME, ...(opts.mTime === undefined ? {} : { mTime: opts.mTime }) }),
    });
    return this.created(res, 'POST files');
  }

  /** Starts a file's resumable upload (content.md, "Create a file"): the new object (`created`). A taken name is 409. */
  async startUpload(parentID: string, name: string, opts: { mTime?: string; signal?: AbortSignal } = {}): Promise<Created> {
    const res = await this.send('POST', '/files/resumable?done=false', {
      signal: opts.signal,
      idempotent: false,
      body: JSON.stringify({ name, parentID, ...(opts.mTime === undefined ? {} : { mTime: opts.mTime }) }),
    });
    return this.created(res, 'POST files/resumable');
  }

  /**
   * Creates a file with all of its bytes in the one request that names it (content.md, "Create
   * a file": the create's content part and `done=true`): the new object (`created`).
   * The NAS keeps nothing of such a request that failed (it never told the id); a taken name is
   * 409. Not retried after it may have reached the NAS: the caller looks for it by its name.
   */
  async createWhole(parentID: string, name: string, bytes: Buffer, opts: { mTime?: string; signal?: AbortSignal } = {}): Promise<Created> {
    const { body, contentType } = relatedBody({ name, parentID, ...(opts.mTime === undefined ? {} : { mTime: opts.mTime }) }, bytes);
    const res = await this.send('POST', '/files/resumable?done=true', {
      signal: opts.signal,
      idempotent: false,
      body,
      headers: { 'content-type': contentType },
    });
    return this.created(res, 'POST files/resumable');
  }

  /**
   * Starts a new version of file `id` (content.md, "Replace a file's content"): readers keep
   * the old content until the upload is done. `ifMatch`: 412 (`PreconditionFailed`) when the
   * NAS's version is not that one any more. Starting again restarts the upload from zero.
   */
  async startVersion(id: string, opts: { ifMatch: string; mTime?: string; signal?: AbortSignal }): Promise<void> {
    await this.send('POST', `/files/${encodeURIComponent(id)}/resumable?done=false&truncate=true&offset=0`, {
      signal: opts.signal,
      idempotent: false,
      headers: { 'if-match': opts.ifMatch },
      body: JSON.stringify(opts.mTime === undefined ? {} : { mTime: opts.mTime }),
    });
  }

  /**
   * Appends `bytes` at `offset` to an unfinished upload (or a file's bytes read as they go);
   * `done` finishes it. A wrong offset is 409 with the offset the NAS holds (`detail` of the
   * Conflict error is not parsed here: the caller asks `uploadOffset`). Not retried here: the
   * caller resumes from the NAS's offset.
   */
  async putContent(
    id: string,
    offset: number,
    bytes: Buffer | FileBody,
    done: boolean,
    opts: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await this.send('PUT', `/files/${encodeURIComponent(id)}/resumable/content?offset=${offset}&done=${done}`, {
      signal: opts.signal,
      idempotent: false,
      body: bytes,
      headers: { 'content-type': 'application/octet-stream' },
      retries: 0,
    });
  }

  /**
   * The bytes an unfinished upload holds on the NAS; undefined when the file has no unfinished
   * upload (finished, or none begun: the service answers 409); NotFound when the file is gone.
   */
  async uploadOffset(id: string, opts: { signal?: AbortSignal } = {}): Promise<number | undefined> {
    const res = await this.send('GET', `/files/${encodeURIComponent(id)}/resumable`, {
      signal: opts.signal,
      idempotent: true,
      alsoOk: [409],
    });
    if (res.status === 409) return undefined;
    const v = this.parsed(() => parseJson(res.body)) as { offset?: unknown } | null;
    const n = v?.offset;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
      throw new AppError('BadResponse', 'the NAS answered an upload offset that is not a byte count', { retry: 'fatal' });
    return n;
  }

  /**
   * The object a 201 made: its id from the `Location` header, and the object itself when the
   * body is that object (the reference service sends it; a device may send no body, and a
   * body that is not the object named by `Location` is not taken for it).
   */
  private created(res: TransportResponse, what: string): Created {
    const loc = res.headers['location'] ?? '';
    const m = /\/files\/([^/?#]+)$/.exec(loc);
    if (!m) throw new AppError('BadResponse', `the NAS answered ${what} without the new object's Location`, { retry: 'fatal' });
    const id = decodeURIComponent(m[1]!);
    if (res.body.trim() === '') return { id, object: undefined };
    try {
      const o = parseObject(parseJson(res.body));
      return { id, object: o.id === id ? o : undefined };
    } catch {
      return { id, object: undefined };
    }
  }

  /**
   * Reads a file's content into `target`, streamed (content.md, Read). Resumes by range from
   * what the target holds (`Range: bytes=N-`, with `If-Range: <eTag>` so a changed file comes
   * whole, 200, and the target restarts); a connection that drops mid-body is asked again from
   * where the bytes stopped, with the client's backoff (a try that moved bytes does not count).
   * 416 (nothing left past the offset) is an answer, not an error: the caller checks the total.
   */
  async readContent(
    id: string,
    target: ContentTarget,
    opts: { ifRange?: string | undefined; signal?: AbortSignal | undefined } = {},
  ): Promise<ContentRead> {
    const path = `/files/${encodeURIComponent(id)}/content`;
    for (let attempt = 0; ; attempt++) {
      const from = target.offset();
      const headers: Record<string, string> = { accept: '*/*' };
      if (from > 0) {
        headers['range'] = `bytes=${from}-`;
        if (opts.ifRange !== undefined) headers['if-range'] = opts.ifRange;
      }
      const read: ContentRead = { status: 200, eTag: undefined, total: undefined };
      const sink: BodySink = {
        begin: async (status, h) => {
          read.status = status === 206 ? 206 : 200;
          read.eTag = h['etag'];
          if (status === 206) {
            const cr = contentRangeOf(h['content-range']);
            if (!cr || cr.start !== from)
              throw new AppError('BadResponse', `the NAS answered a range from ${cr?.start ?? '?'} for bytes from ${from}`, {
                retry: 'fatal',
              });
            read.total = cr.total;
          } else {
            const n = Number(h['content-length']);
            read.total = Number.isSafeInteger(n) && n >= 0 ? n : undefined;
            await target.restart();
          }
        },
        write: (c) => target.write(c),
        ...(target.copy ? { copy: (c: Buffer) => target.copy!(c) } : {}),
      };
      try {
        const res = await this.send('GET', path, { signal: opts.signal, idempotent: true, headers, sink, alsoOk: [416], retries: 0 });
        if (res.status === 416)
          return { status: 416, eTag: res.headers['etag'], total: contentRangeOf(res.headers['content-range'])?.total };
        return read;
      } catch (e) {
        if (!(e instanceof AppError) || e.retry !== 'backoff' || opts.signal?.aborted) throw e;
        if (target.offset() > from) attempt = 0;
        if (attempt >= this.o.retries) throw e;
        const backoff = Math.min(this.o.backoffMaxMs, this.o.backoffBaseMs * 2 ** attempt);
        await this.o.sleep(backoff / 2 + this.o.random() * (backoff / 2), opts.signal);
      }
    }
  }

  close(): void {
    this.transport.close();
  }

  /** A listing without what the device shows but the mirror must not (device-quirks.ts); the skipped objects kept. */
  private quirked(l: CheckedListing): CheckedListing {
    const page = this.quirks.listing(l);
    return page === l ? l : { ...page, ...(l.invalid ? { invalid: l.invalid } : {}) };
  }

  /** The reasons of skipped objects quote the NAS: redacted like errors. */
  private cleanListing(l: CheckedListing): CheckedListing {
    if (!l.invalid) return l;
    const secrets = [this.token(), ...(this.opts.secrets?.() ?? [])];
    return {
      ...l,
      invalid: l.invalid.map((v) => ({
        id: v.id === undefined ? undefined : redactSecrets(v.id, secrets),
        reason: redactSecrets(v.reason, secrets),
      })),
    };
  }

  private token(): string {
    return typeof this.opts.token === 'function' ? this.opts.token() : this.opts.token;
  }

  /** Every error the client throws went through here: no form of the token in its message. */
  private async send(method: HttpMethod, path: string, a: SendOptions): Promise<TransportResponse> {
    try {
      return await this.sendRaw(method, path, a);
    } catch (e) {
      throw e instanceof AppError ? redactError(e, [this.token(), ...(this.opts.secrets?.() ?? [])]) : e;
    }
  }

  /** Redacts parse errors (they may quote what the NAS sent). */
  private parsed<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw e instanceof AppError ? redactError(e, [this.token(), ...(this.opts.secrets?.() ?? [])]) : e;
    }
  }

  private async sendRaw(method: HttpMethod, path: string, a: SendOptions): Promise<TransportResponse> {
    const url = this.baseUrl + this.o.prefix + path;
    for (let attempt = 0; ; attempt++) {
      let retryAfterMs: number | undefined;
      let err: AppError;
      try {
        const res = await this.limiter.run(() =>
          this.transport.request({
            method,
            url,
            timeoutMs: this.o.timeoutMs,
            signal: a.signal,
            body: a.body,
            ...(a.sink ? { sink: a.sink } : {}),
            headers: {
              authorization: `Bearer ${this.token()}`,
              accept: 'application/json',
              ...(a.body !== undefined ? { 'content-type': 'application/json' } : {}),
              ...a.headers,
            },
          }),
        );
        this.attempted({ method, path: path.split('?')[0]!, attempt, status: res.status });
        if ((res.status >= 200 && res.status < 300) || (res.status === 304 && a.notModifiedOk === true) || a.alsoOk?.includes(res.status))
          return res;
        err = statusError(res);
        retryAfterMs = parseRetryAfter(res.headers['retry-after']);
        // Definitely not applied: 429 and 503 (service refusing). Any other 5xx may have applied.
        const safe = a.idempotent || res.status === 429 || res.status === 503;
        if (!safe && res.status >= 500)
          throw new AppError(err.code, err.message, {
            status: res.status,
            ...(err.detail !== undefined ? { detail: err.detail } : {}),
            delivery: OUTCOME_UNKNOWN,
          });
        if (err.retry !== 'backoff') throw err;
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        if (e.code === 'Cancelled' || a.signal?.aborted) throw new AppError('Cancelled', 'cancelled', { cause: e });
        if (e.retry !== 'backoff') throw e;
        this.attempted({ method, path: path.split('?')[0]!, attempt, error: e.code });
        if (!a.idempotent && e.delivery !== NOT_SENT)
          throw new AppError(e.code, `${e.message} (the ${method} may or may not have been applied)`, {
            cause: e,
            delivery: OUTCOME_UNKNOWN,
          });
        err = e;
      }
      if (attempt >= (a.retries ?? this.o.retries)) throw err;
      const backoff = Math.min(this.o.backoffMaxMs, this.o.backoffBaseMs * 2 ** attempt);
      const jittered = backoff / 2 + this.o.random() * (backoff / 2);
      // Retry-After wins over the backoff (capped at two minutes: a device asking for more is retried then).
      await this.o.sleep(Math.max(Math.min(retryAfterMs ?? 0, 120_000), jittered), a.signal);
    }
  }
}

interface SendOptions {
  signal?: AbortSignal | undefined;
  idempotent: boolean;
  body?: RequestBody;
  headers?: Record<string, string>;
  notModifiedOk?: boolean;
  /** Statuses answered as they are (not thrown). */
  alsoOk?: readonly number[];
  /** A streamed answer's destination (content reads). */
  sink?: BodySink;
  /** Overrides the client's retries (a streamed read resumes by itself). */
  retries?: number;
}

function conditional(o: ConditionalOptions): Record<string, string> {
  const h: Record<string, string> = {};
  if (o.ifMatch !== undefined) h['if-match'] = o.ifMatch;
  if (o.ifNoneMatch !== undefined) h['if-none-match'] = o.ifNoneMatch;
  return h;
}

function statusError(res: TransportResponse): AppError {
  let message = `HTTP ${res.status}`;
  let detail: string | undefined;
  try {
    const b = JSON.parse(res.body) as { message?: unknown; detail?: unknown };
    if (typeof b.message === 'string') message = b.message;
    if (typeof b.detail === 'string') detail = b.detail;
  } catch {
    // not JSON: keep the status line
  }
  const code: ErrorCode = STATUS_CODES[res.status] ?? (res.status >= 500 ? 'ServerError' : 'BadResponse');
  // a status the service does not use (3xx, an unknown 4xx) is an answer, not an outage: asking again brings it again
  return new AppError(code, message, {
    status: res.status,
    ...(detail !== undefined ? { detail } : {}),
    ...(res.status < 500 && STATUS_CODES[res.status] === undefined ? { retry: 'fatal' as const } : {}),
  });
}
