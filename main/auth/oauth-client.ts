/**
 * The app's side of the NAS's OAuth 2 endpoints, over a Transport: PKCE (RFC 7636, S256),
 * the authorization URL, the token endpoint (authorization_code and refresh_token grants)
 * and revocation (RFC 7009). The app is a public client (RFC 8252): no secret, PKCE always.
 * Tokens never reach a log; errors carry the NAS's `error_description`, never a token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../app/errors.js';
import { NOT_SENT, type Transport } from '../client/transport.js';

export const CLIENT_ID = 'nas-mirror';
export const OAUTH_PATHS = { authorize: '/oauth/authorize', token: '/oauth/token', revoke: '/oauth/revoke' } as const;

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function newPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier, 'ascii').digest('base64url') };
}

/** The login page's URL for an authorization request with a loopback redirect. */
export function authorizeUrl(
  baseUrl: string,
  a: { redirectUri: string; state: string; challenge: string; clientId?: string; scope?: string },
): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: a.clientId ?? CLIENT_ID,
    redirect_uri: a.redirectUri,
    state: a.state,
    code_challenge: a.challenge,
    code_challenge_method: 'S256',
    scope: a.scope ?? 'nas_read_write',
  });
  return `${baseUrl.replace(/\/+$/, '')}${OAUTH_PATHS.authorize}?${q}`;
}

export interface Tokens {
  accessToken: string;
  refreshToken: string;
  /** Lifetime of the access token in seconds, as the NAS said. */
  expiresIn: number;
  /** When the answer arrived (ms since the epoch). */
  receivedAt: number;
}

async function tokenCall(
  transport: Transport,
  baseUrl: string,
  path: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await transport.request({
    method: 'POST',
    url: `${baseUrl.replace(/\/+$/, '')}${path}`,
    timeoutMs: 30_000,
    body: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
  });
  let body: Record<string, unknown> = {};
  try {
    const v = JSON.parse(res.body) as unknown;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) body = v as Record<string, unknown>;
  } catch {
    // not JSON: judged by the status alone
  }
  return { status: res.status, body };
}

/**
 * Calls the token endpoint. A refusal (400/401 from the endpoint: the grant is no longer
 * valid) is `Unauthorized` with the NAS's reason; anything else (network, 5xx, 429, an
 * endpoint that is not there yet) is a retryable error that says nothing about the grant.
 */
async function grant(transport: Transport, baseUrl: string, form: Record<string, string>): Promise<Tokens> {
  const { status, body } = await tokenCall(transport, baseUrl, OAUTH_PATHS.token, form);
  if (status === 200) {
    const { access_token: a, refresh_token: r, expires_in: e } = body;
    if (typeof a !== 'string' || a === '' || typeof r !== 'string' || r === '')
      throw new AppError('BadResponse', 'the NAS answered the sign-in without an access and a refresh token');
    return { accessToken: a, refreshToken: r, expiresIn: typeof e === 'number' && e > 0 ? e : 3600, receivedAt: Date.now() };
  }
  const reason =
    typeof body['error_description'] === 'string'
      ? body['error_description']
      : typeof body['error'] === 'string'
        ? body['error']
        : `HTTP ${status}`;
  if (status === 400 || status === 401) throw new AppError('Unauthorized', reason, { status });
  throw new AppError(
    status === 429 ? 'RateLimited' : status >= 500 ? 'Unavailable' : 'BadResponse',
    `the NAS could not renew the sign-in now (${reason})`,
    { status, delivery: NOT_SENT },
  );
}

export function exchangeCode(
  transport: Transport,
  baseUrl: string,
  a: { code: string; redirectUri: string; verifier: string; clientId?: string },
): Promise<Tokens> {
  return grant(transport, baseUrl, {
    grant_type: 'authorization_code',
    code: a.code,
    redirect_uri: a.redirectUri,
    code_verifier: a.verifier,
    client_id: a.clientId ?? CLIENT_ID,
  });
}

export function refresh(transport: Transport, baseUrl: string, refreshToken: string, clientId = CLIENT_ID): Promise<Tokens> {
  return grant(transport, baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
}

/** Revokes a token (best effort: the NAS answers 200 for unknown tokens). */
export async function revoke(transport: Transport, baseUrl: string, token: string): Promise<boolean> {
  const { status } = await tokenCall(transport, baseUrl, OAUTH_PATHS.revoke, { token, client_id: CLIENT_ID });
  return status === 200;
}
