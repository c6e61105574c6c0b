/**
 * Errors are values with a code, a retry class and a cause. Boundaries (HTTP, IPC) carry
 * `{code, message}`. Never throw strings.
 */

/** How a caller should react: retry later with backoff, ask the user, or give up. */
export type RetryClass = 'backoff' | 'user' | 'fatal';

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
  | 'MirrorMissing'
  | 'WatcherFailed'
  | 'DiskError'
  | 'NasLooksEmpty'
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
  MirrorMissing: 'user',
  WatcherFailed: 'backoff',
  DiskError: 'backoff',
  NasLooksEmpty: 'user',
  Internal: 'fatal',
};

/** The one error type of the project. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retry: RetryClass;
  /** HTTP status when the error came from (or goes to) HTTP. */
  readonly status: number | undefined;
  readonly detail: string | undefined;
  /** The form field the error is about (settings, set-up), so the window can show it there. */
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, opts: { cause?: unknown; status?: number; detail?: string; field?: string } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.retry = RETRY[code];
    this.status = opts.status;
    this.detail = opts.detail;
    this.field = opts.field;
  }

  /** The boundary form: `{code, message}`. */
  toJSON(): { code: ErrorCode; message: string; detail?: string } {
    return this.detail === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, detail: this.detail };
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/** Wraps anything thrown into an AppError (code Internal unless it already is one). */
export function toAppError(e: unknown): AppError {
  if (e instanceof AppError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new AppError('Internal', msg, { cause: e });
}
