/**
 * The sign-in endpoints (no bearer token): `GET /oauth/authorize` shows a plain login page,
 * `POST /oauth/authorize` checks the password and redirects to the client's loopback
 * redirect URI with a one-time code (RFC 8252: only http://127.0.0.1, [::1] or localhost,
 * any port), `POST /oauth/token` (authorization_code + PKCE S256, refresh_token),
 * `POST /oauth/revoke` (RFC 7009) and `GET /.well-known/oauth-authorization-server` (RFC 8414).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AuthCodes, checkPassword, exchangeCode, isScope, OAuthError, refreshTokens, revokeToken } from '../auth/oauth.js';
import type { Store } from '../store/store.js';
import { readBody } from './request.js';
import { sendError } from './respond.js';

export interface OAuthDeps {
  store: Store;
  codes: AuthCodes;
  /** Access-token lifetime in seconds. */
  tokenTtlSec: () => number;
}

export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  revoke: '/oauth/revoke',
  metadata: '/.well-known/oauth-authorization-server',
} as const;

/** True for the paths this file answers. */
export const isOAuthPath = (path: string): boolean => (Object.values(OAUTH_PATHS) as string[]).includes(path);

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A loopback redirect URI (RFC 8252 §7.3): http, a loopback host, any port, no fragment. */
export function isLoopbackRedirect(uri: string): boolean {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return false;
  }
  return (
    u.protocol === 'http:' &&
    ['127.0.0.1', '[::1]', 'localhost'].includes(u.hostname) &&
    u.hash === '' &&
    u.username === '' &&
    u.password === ''
  );
}

interface AuthRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  challenge: string;
  scope: string;
}

/** The authorization request's parameters, or the reason it cannot be shown. */
function authRequest(p: URLSearchParams): AuthRequest | string {
  const redirectUri = p.get('redirect_uri') ?? '';
  if (!isLoopbackRedirect(redirectUri)) return 'redirect_uri must be a loopback address (http://127.0.0.1:PORT/...)';
  if (p.get('response_type') !== 'code') return 'response_type must be "code"';
  const clientId = p.get('client_id') ?? '';
  if (!/^[\x21-\x7e]{1,128}$/.test(clientId)) return 'client_id is required';
  if (p.get('code_challenge_method') !== 'S256') return 'PKCE is required: code_challenge_method must be "S256"';
  const challenge = p.get('code_challenge') ?? '';
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) return 'code_challenge must be a base64url SHA-256 (43 characters)';
  const scope = p.get('scope') || 'nas_read_write';
  if (!isScope(scope)) return 'scope must be nas_read_write or nas_read_only';
  return { clientId, redirectUri, state: p.get('state') ?? '', challenge, scope };
}

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  // No script at all; the form posts to this page, then the service redirects to the app.
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

function page(res: ServerResponse, status: number, body: string): void {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Sign in to the NAS</title>
<style>body{font:16px system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem;color:#222}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem;font:inherit}.err{color:#a00}.hint{color:#555;font-size:.9rem}</style></head><body>${body}</body></html>`;
  res.writeHead(status, { ...PAGE_HEADERS, 'Content-Length': Buffer.byteLength(html) });
  res.end(html);
}

function loginForm(a: AuthRequest, error?: string, user = ''): string {
  const hidden = (n: string, v: string): string => `<input type="hidden" name="${n}" value="${esc(v)}">`;
  return `<h1>Sign in to the NAS</h1>
<p class="hint">An app asks for ${a.scope === 'nas_read_only' ? 'read-only' : 'read and write'} access to your files: <b>${esc(a.clientId)}</b>.</p>
${error ? `<p class="err" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="authorize">
${hidden('response_type', 'code')}${hidden('client_id', a.clientId)}${hidden('redirect_uri', a.redirectUri)}${hidden('state', a.state)}${hidden('code_challenge', a.challenge)}${hidden('code_challenge_method', 'S256')}${hidden('scope', a.scope)}
<label for="username">User name</label><input id="username" name="username" autocomplete="username" required value="${esc(user)}" autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" name="action" value="allow">Sign in</button> <button type="submit" name="action" value="deny" formnovalidate>Cancel</button>
</form>`;
}

function redirect(res: ServerResponse, uri: string, params: Record<string, string>): void {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== '') u.searchParams.set(k, v);
  res.writeHead(302, { Location: u.toString(), 'Cache-Control': 'no-store', 'Content-Length': 0 });
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  return new URLSearchParams((await readBody(req)).toString('utf8'));
}

/** Answers one sign-in request; `path` is without the query. */
export async function handleOAuth(deps: OAuthDeps, req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> {
  // (the paths are exact: a relay in front of the service strips its own prefix)
  const method = req.method ?? 'GET';
  try {
    if (path === OAUTH_PATHS.metadata) {
      if (method !== 'GET' && method !== 'HEAD') return sendError(res, 405, 'Method Not Allowed', undefined, { Allow: 'GET' });
      const base = `http://${req.headers.host ?? '127.0.0.1'}`;
      return json(res, 200, {
        issuer: base,
        authorization_endpoint: base + OAUTH_PATHS.authorize,
        token_endpoint: base + OAUTH_PATHS.token,
        revocation_endpoint: base + OAUTH_PATHS.revoke,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['nas_read_write', 'nas_read_only'],
      });
    }
    if (path === OAUTH_PATHS.authorize) {
      if (method === 'GET' || method === 'HEAD') {
        const a = authRequest(new URLSearchParams(query));
        return typeof a === 'string'
          ? page(res, 400, `<h1>This sign-in link is not valid</h1><p class="err">${esc(a)}</p>`)
          : page(res, 200, loginForm(a));
      }
      if (method !== 'POST') return sendError(res, 405, 'Method Not Allowed', undefined, { Allow: 'GET, POST' });
      const form = await formBody(req);
      const a = authRequest(form);
      if (typeof a === 'string') return page(res, 400, `<h1>This sign-in link is not valid</h1><p class="err">${esc(a)}</p>`);
      if (form.get('action') === 'deny') return redirect(res, a.redirectUri, { error: 'access_denied', state: a.state });
      const user = form.get('username') ?? '';
      const userId = await checkPassword(deps.store, user, form.get('password') ?? '');
      if (userId === undefined) return page(res, 401, loginForm(a, 'Wrong user name or password.', user));
      const code = deps.codes.issue({
        userId,
        scope: a.scope as 'nas_read_write' | 'nas_read_only',
        clientId: a.clientId,
        redirectUri: a.redirectUri,
        challenge: a.challenge,
      });
      return redirect(res, a.redirectUri, { code, state: a.state });
    }
    if (method !== 'POST') return sendError(res, 405, 'Method Not Allowed', undefined, { Allow: 'POST' });
    const form = await formBody(req);
    if (path === OAUTH_PATHS.revoke) {
      const t = form.get('token') ?? '';
      if (t === '') throw new OAuthError('invalid_request', 'token is required');
      revokeToken(deps.store, t);
      return json(res, 200, {});
    }
    const grant = form.get('grant_type');
    const clientId = form.get('client_id') ?? '';
    if (clientId === '') throw new OAuthError('invalid_request', 'client_id is required');
    if (grant === 'authorization_code') {
      return json(
        res,
        200,
        exchangeCode(deps.store, deps.codes, {
          code: form.get('code') ?? '',
          redirectUri: form.get('redirect_uri') ?? '',
          clientId,
          verifier: form.get('code_verifier') ?? '',
          ttlSec: deps.tokenTtlSec(),
        }),
      );
    }
    if (grant === 'refresh_token') {
      return json(
        res,
        200,
        refreshTokens(deps.store, {
          refreshToken: form.get('refresh_token') ?? '',
          clientId,
          scope: form.get('scope') ?? undefined,
          ttlSec: deps.tokenTtlSec(),
        }),
      );
    }
    throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  } catch (e) {
    if (e instanceof OAuthError) return json(res, 400, { error: e.error, error_description: e.description });
    throw e;
  }
}
