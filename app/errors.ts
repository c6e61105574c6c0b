/**
 * Errors are values with a code, a retry class and a cause. Boundaries (HTTP, IPC) carry
 * `{code, message}`. Never throw strings. The retry class is the ONE input of every retry
 * decision (the client's own retries, the outbox, the walk's outcome): nobody matches codes
 * or message text to decide whether to try again. Machine facts live in typed fields
 * (`delivery`), never in `detail`, which is human text only.
 */

/** How a caller should react: retry later with backoff, ask the user, or give up. */
export type RetryClass = 'backoff' | 'user' | 'fatal';

/**
 * Whether a failed request may have reached the NAS: `not-sent` is safe to send again (even a
 * PATCH or DELETE); after `maybe-sent` a change is checked on the NAS before it is resent.
 */
export type Delivery = 'not-sent' | 'maybe-sent';

export type ErrorCode =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'Conflict'
  | 'PreconditionFailed'
  | 'PayloadTooLarge'
  | 'RateLimited'
  | 'ServerError'
  | 'Unavailable'
  | 'NetworkError'
  | 'Timeout'
  | 'Cancelled'
  | 'BadResponse'
  | 'NoKeychain'
  | 'BadConfig'
  | 'StateCorrupt'
  | 'UnsafeName'
  | 'DiskError'
  | 'NasLooksEmpty'
  /** The app's own pauses (not the NAS's): its sync engine restarting after a crash, a mirror being swapped. */
  | 'EngineRestarting'
  | 'MirrorSwitching'
  /** The NAS answers content reads with 404/405 for files it lists: it has no content interface (content.md). */
  | 'NoContentInterface'
  /** A download's bytes are not the version asked for (size or eTag): never put in place. */
  | 'ContentMismatch'
  /** The NAS has no room for what is sent (507): it keeps nothing of it; sent again once it has room. */
  | 'NasFull'
  | 'Internal';

const RETRY: Record<ErrorCode, RetryClass> = {
  BadRequest: 'fatal',
  Unauthorized: 'user',
  Forbidden: 'user',
  NotFound: 'fatal',
  Conflict: 'user',
  PreconditionFailed: 'user',
  PayloadTooLarge: 'fatal',
  RateLimited: 'backoff',
  ServerError: 'backoff',
  Unavailable: 'backoff',
  NetworkError: 'backoff',
  Timeout: 'backoff',
  Cancelled: 'fatal',
  BadResponse: 'backoff',
  NoKeychain: 'user',
  BadConfig: 'user',
  StateCorrupt: 'fatal',
  UnsafeName: 'fatal',
  DiskError: 'backoff',
  NasLooksEmpty: 'user',
  EngineRestarting: 'backoff',
  MirrorSwitching: 'backoff',
  NoContentInterface: 'fatal',
  ContentMismatch: 'backoff',
  NasFull: 'backoff',
  Internal: 'fatal',
};

/** The one error type of the project. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retry: RetryClass;
  /** HTTP status when the error came from (or goes to) HTTP. */
  readonly status: number | undefined;
  /** More words for a person (the service's own `detail`, say): never a flag a program reads. */
  readonly detail: string | undefined;
  /** The form field the error is about (settings, set-up), so the window can show it there. */
  readonly field: string | undefined;
  /** Set on request failures: whether the request may have reached the NAS. */
  readonly delivery: Delivery | undefined;

  /**
   * `retry` overrides the code's class when this error knows better (a response refused for
   * its size is `fatal`: asking again brings the same bytes).
   */
  constructor(
    code: ErrorCode,
    message: string,
    opts: { cause?: unknown; status?: number; detail?: string; field?: string; retry?: RetryClass; delivery?: Delivery } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.retry = opts.retry ?? RETRY[code];
    this.status = opts.status;
    this.detail = opts.detail;
    this.field = opts.field;
    this.delivery = opts.delivery;
  }

  /** The boundary form: `{code, message}`. */
  toJSON(): { code: ErrorCode; message: string; detail?: string } {
    return this.detail === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, detail: this.detail };
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(RETRY, code);

/** The retry class of a code (a plain `{code, message}` copy carries no class of its own); an unknown code is `fatal`. */
export const retryClassOf = (code: string): RetryClass => (isErrorCode(code) ? RETRY[code] : 'fatal');

/** Wraps anything thrown into an AppError (code Internal unless it already is one). */
export function toAppError(e: unknown): AppError {
  if (e instanceof AppError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new AppError('Internal', msg, { cause: e });
}
