/**
 * A sign-in that lasts: the access token lives in memory only and is renewed with the
 * refresh token before it expires (when less than a quarter of its life, at most an hour,
 * is left) and once after a 401. Refresh tokens rotate, so every new one is handed to
 * `persist` (the OS keychain) before it is used. One refresh runs at a time; callers share
 * it. Only a refusal of the refresh token itself ends the sign-in (`Unauthorized` with a
 * plain reason, and `onRefused`); a NAS that cannot be reached just fails this attempt.
 */
import { AppError, toAppError } from '../../app/errors.js';
import type { Transport } from '../client/transport.js';
import { NOT_SENT } from '../client/transport.js';
import { refresh, type Tokens } from './oauth-client.js';

export interface RefreshingTokenOptions {
  refreshToken: string;
  /** The network for the token endpoint (the plain transport, not the authenticating one). */
  transport: Transport;
  /** Stores a rotated refresh token; awaited before the new access token is used (it handles its own failures). */
  persist(refreshToken: string): Promise<void>;
  /** The sign-in was refused: the user must sign in again. */
  onRefused?(reason: string): void;
  /** A first access token (right after sign-in). */
  initial?: Tokens;
  now?: () => number;
}

/** The message a refused refresh gives the user. */
export const signInAgain = (reason: string): string => `sign in again: the NAS no longer accepts this sign-in (${reason})`;

export class RefreshingToken {
  private access: { token: string; expiresAt: number; renewAt: number } | undefined;
  private refreshToken: string;
  private inflight: Promise<string> | undefined;
  private refused: string | undefined;
  private readonly now: () => number;
  /** Refreshes done (tests, logs). */
  refreshes = 0;

  constructor(private readonly o: RefreshingTokenOptions) {
    this.refreshToken = o.refreshToken;
    this.now = o.now ?? Date.now;
    if (o.initial) this.take(o.initial);
  }

  /** The tokens held now, for the client to redact from every error (issue 10: never in a log or the window). */
  secrets(): string[] {
    return [this.refreshToken, ...(this.access ? [this.access.token] : [])];
  }

  /** Why the sign-in ended, or undefined while it lasts. */
  get refusedReason(): string | undefined {
    return this.refused;
  }

  /** An access token valid for a while yet, refreshed first when needed. */
  async current(baseUrl: string): Promise<string> {
    if (this.refused !== undefined) throw new AppError('Unauthorized', signInAgain(this.refused));
    if (this.access && this.now() < this.access.renewAt) return this.access.token;
    return this.renew(baseUrl);
  }

  /** After a 401 for `used`: renews once (unless another call already did) and gives the token to retry with. */
  async afterUnauthorized(baseUrl: string, used: string): Promise<string> {
    if (this.refused !== undefined) throw new AppError('Unauthorized', signInAgain(this.refused));
    if (this.access && this.access.token !== used && this.now() < this.access.expiresAt) return this.access.token;
    this.access = undefined;
    return this.renew(baseUrl);
  }

  private renew(baseUrl: string): Promise<string> {
    this.inflight ??= this.doRenew(baseUrl).finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async doRenew(baseUrl: string): Promise<string> {
    let t: Tokens;
    try {
      t = await refresh(this.o.transport, baseUrl, this.refreshToken);
    } catch (e) {
      const err = toAppError(e);
      if (err.code === 'Unauthorized') {
        this.refused = err.message;
        this.access = undefined;
        this.o.onRefused?.(err.message);
        throw new AppError('Unauthorized', signInAgain(err.message));
      }
      // Not a refusal: the request this token was for was not sent, so it is a network
      // error the client retries with backoff like any other (the NAS is rebooting...).
      throw new AppError('NetworkError', `renewing the sign-in failed: ${err.message}`, { cause: err, delivery: NOT_SENT });
    }
    this.refreshes++;
    // The rotated refresh token is stored before anything relies on it: a crash after this
    // point finds the new one in the keychain.
    this.refreshToken = t.refreshToken;
    await this.o.persist(t.refreshToken);
    return this.take(t);
  }

  private take(t: Tokens): string {
    const lifeMs = t.expiresIn * 1000;
    const expiresAt = t.receivedAt + lifeMs;
    this.access = { token: t.accessToken, expiresAt, renewAt: expiresAt - Math.min(3_600_000, lifeMs / 4) };
    return t.accessToken;
  }
}
