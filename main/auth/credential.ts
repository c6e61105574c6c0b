/**
 * What the keychain holds for a NAS: either a pasted access token (devices that need one)
 * or, after "Sign in", a refresh token marked `oauth-refresh ` (a space never occurs in a
 * pasted token, so the two cannot be confused). `authFor` turns either into what the
 * service client needs: a token, and a transport that keeps a signed-in token fresh.
 */
import type { Transport } from '../client/transport.js';
import { AuthTransport } from './auth-transport.js';
import type { Tokens } from './oauth-client.js';
import { RefreshingToken } from './refreshing-token.js';

const REFRESH = 'oauth-refresh ';

export type Credential = { kind: 'token'; token: string } | { kind: 'refresh'; refreshToken: string };

export const encodeRefresh = (refreshToken: string): string => REFRESH + refreshToken;

export function decodeCredential(stored: string): Credential {
  return stored.startsWith(REFRESH) ? { kind: 'refresh', refreshToken: stored.slice(REFRESH.length) } : { kind: 'token', token: stored };
}

export interface ClientAuth {
  /** The transport to give the service client (and the address probe). */
  transport: Transport;
  /** The bearer token for the client: a pasted token, or "" when the transport puts it on. */
  token: string;
  /** The renewing token after a sign-in. */
  signedIn?: RefreshingToken;
}

/** The client side of a stored credential; `persist` stores each rotated refresh token (already encoded). */
export function authFor(stored: string, transport: Transport, persist: (encoded: string) => Promise<void>, first?: Tokens): ClientAuth {
  const c = decodeCredential(stored);
  if (c.kind === 'token') return { transport, token: c.token };
  const signedIn = new RefreshingToken({
    refreshToken: c.refreshToken,
    transport,
    persist: (r) => persist(encodeRefresh(r)),
    ...(first ? { initial: first } : {}),
  });
  return { transport: new AuthTransport(transport, signedIn), token: '', signedIn };
}
