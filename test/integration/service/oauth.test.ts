/**
 * The service as an OAuth 2 authorization server, through HTTP: the login page, the
 * authorization-code grant with PKCE S256, access-token expiry (`tokenTtlSec`), rotating
 * refresh tokens with reuse detection, revocation, and the CLI's `user add --password-stdin`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSignIn, startTestService, type TestService } from '../../../server/testing.js';
import { openServiceDb } from '../../../server/store/schema.js';
import { checkPassword } from '../../../server/auth/oauth.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ tokenTtlSec: 2 });
  await svc.admin.setPassword('demo', 'correct horse');
});
afterAll(async () => {
  await svc.stop();
});

const verifier = (): string => randomBytes(32).toString('base64url');
const challengeOf = (v: string): string => createHash('sha256').update(v).digest('base64url');
const REDIRECT = 'http://127.0.0.1:49999/callback';

function authorizeUrl(o: { challenge: string; redirect?: string; state?: string; method?: string; scope?: string }): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: 'test-app',
    redirect_uri: o.redirect ?? REDIRECT,
    state: o.state ?? 'st-1',
    code_challenge: o.challenge,
    code_challenge_method: o.method ?? 'S256',
    scope: o.scope ?? 'nas_read_write',
  });
  return `${svc.baseUrl}/oauth/authorize?${q}`;
}

async function token(form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown>; cache: string | null }> {
  const r = await fetch(`${svc.baseUrl}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams(form),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown>, cache: r.headers.get('cache-control') };
}

const listRoot = (t: string): Promise<number> =>
  fetch(`${svc.baseUrl}/sdk/v2/filesSearch/parents?ids=root&pageToken=`, { headers: { authorization: `Bearer ${t}` } }).then(
    (r) => r.status,
  );

async function signIn(v = verifier()): Promise<{ access: string; refresh: string; expiresIn: number }> {
  const r = await browserSignIn(authorizeUrl({ challenge: challengeOf(v) }), 'demo', 'correct horse');
  expect(r.status).toBe(302);
  const loc = new URL(r.location!);
  expect(loc.searchParams.get('state')).toBe('st-1');
  const t = await token({
    grant_type: 'authorization_code',
    code: loc.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    client_id: 'test-app',
    code_verifier: v,
  });
  expect(t.status).toBe(200);
  expect(t.cache).toBe('no-store');
  return {
    access: t.body['access_token'] as string,
    refresh: t.body['refresh_token'] as string,
    expiresIn: t.body['expires_in'] as number,
  };
}

describe('sign-in (OAuth 2)', () => {
  it('shows a plain login page, only for loopback redirects and PKCE S256', async () => {
    const page = await fetch(authorizeUrl({ challenge: challengeOf(verifier()) }));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('name="password"');
    expect(html).not.toContain('<script');
    expect((await fetch(authorizeUrl({ challenge: challengeOf(verifier()), redirect: 'https://evil.example/cb' }))).status).toBe(400);
    expect((await fetch(authorizeUrl({ challenge: challengeOf(verifier()), method: 'plain' }))).status).toBe(400);
    expect((await fetch(authorizeUrl({ challenge: 'short' }))).status).toBe(400);
    const meta = (await (await fetch(`${svc.baseUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta['token_endpoint']).toBe(`${svc.baseUrl}/oauth/token`);
    expect(meta['code_challenge_methods_supported']).toEqual(['S256']);
  });

  it('refuses a wrong password on the page and redirects with access_denied on Cancel', async () => {
    const bad = await browserSignIn(authorizeUrl({ challenge: challengeOf(verifier()) }), 'demo', 'wrong');
    expect(bad.status).toBe(401);
    expect(bad.location).toBeNull();
    expect(bad.html).toContain('Wrong user name or password');
    const nobody = await browserSignIn(authorizeUrl({ challenge: challengeOf(verifier()) }), 'nobody', 'correct horse');
    expect(nobody.status).toBe(401);
    const deny = await browserSignIn(authorizeUrl({ challenge: challengeOf(verifier()), state: 'x y' }), 'demo', '');
    expect(deny.status).toBe(401); // an empty password is never right
    const cancel = await browserSignIn(authorizeUrl({ challenge: challengeOf(verifier()) }), 'demo', 'correct horse', 'deny');
    expect(cancel.status).toBe(302);
    expect(new URL(cancel.location!).searchParams.get('error')).toBe('access_denied');
  });

  it('exchanges a code once, only with the right verifier and redirect URI', async () => {
    const v = verifier();
    const r = await browserSignIn(authorizeUrl({ challenge: challengeOf(v) }), 'demo', 'correct horse');
    const code = new URL(r.location!).searchParams.get('code')!;
    const wrongVerifier = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: 'test-app',
      code_verifier: verifier(),
    });
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.body['error']).toBe('invalid_grant');
    // The code was spent by the failed attempt: a stolen code is worth one try.
    const again = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'test-app', code_verifier: v });
    expect(again.status).toBe(400);
    const r2 = await browserSignIn(authorizeUrl({ challenge: challengeOf(v) }), 'demo', 'correct horse');
    const code2 = new URL(r2.location!).searchParams.get('code')!;
    expect(
      (
        await token({
          grant_type: 'authorization_code',
          code: code2,
          redirect_uri: 'http://127.0.0.1:1/other',
          client_id: 'test-app',
          code_verifier: v,
        })
      ).status,
    ).toBe(400);
    expect((await token({ grant_type: 'password', client_id: 'test-app' })).body['error']).toBe('unsupported_grant_type');
  });

  it('issues access tokens that expire after --token-ttl and refresh tokens that rotate', async () => {
    const t = await signIn();
    expect(t.expiresIn).toBe(2);
    expect(await listRoot(t.access)).toBe(200);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await listRoot(t.access)) === 200) await new Promise((r) => setTimeout(r, 100));
    expect(await listRoot(t.access)).toBe(401);
    const r1 = await token({ grant_type: 'refresh_token', refresh_token: t.refresh, client_id: 'test-app' });
    expect(r1.status).toBe(200);
    expect(r1.body['refresh_token']).not.toBe(t.refresh);
    expect(await listRoot(r1.body['access_token'] as string)).toBe(200);
    const r2 = await token({ grant_type: 'refresh_token', refresh_token: r1.body['refresh_token'] as string, client_id: 'test-app' });
    expect(r2.status).toBe(200);
    // Another client cannot use it.
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: r2.body['refresh_token'] as string, client_id: 'other' })).status,
    ).toBe(400);
    // Presenting a rotated refresh token again revokes the whole sign-in (stolen copy).
    const reuse = await token({ grant_type: 'refresh_token', refresh_token: t.refresh, client_id: 'test-app' });
    expect(reuse.status).toBe(400);
    expect(String(reuse.body['error_description'])).toContain('already used');
    expect(await listRoot(r2.body['access_token'] as string)).toBe(401);
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: r2.body['refresh_token'] as string, client_id: 'test-app' })).status,
    ).toBe(400);
  });

  it('lets a refresh whose answer was lost be repeated (successor unused), once', async () => {
    const t = await signIn();
    const refresh = (rt: string) => token({ grant_type: 'refresh_token', refresh_token: rt, client_id: 'test-app' });
    const lost = await refresh(t.refresh); // the NAS rotated; the answer never reached the app
    expect(lost.status).toBe(200);
    const again = await refresh(t.refresh);
    expect(again.status).toBe(200);
    expect(again.body['refresh_token']).not.toBe(lost.body['refresh_token']);
    expect((await refresh(lost.body['refresh_token'] as string)).status).toBe(400); // the lost one is dropped
    const next = await refresh(again.body['refresh_token'] as string);
    expect(next.status).toBe(200);
    // its successor is in use now: presenting the old one again is a reuse, and ends the sign-in
    const reuse = await refresh(t.refresh);
    expect(reuse.status).toBe(400);
    expect(await listRoot(next.body['access_token'] as string)).toBe(401);
  });

  it('revokes a refresh token with its access tokens (RFC 7009); minted tokens still work', async () => {
    const t = await signIn();
    const rv = await fetch(`${svc.baseUrl}/oauth/revoke`, {
      method: 'POST',
      body: new URLSearchParams({ token: t.refresh }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(rv.status).toBe(200);
    expect(await listRoot(t.access)).toBe(401);
    expect((await token({ grant_type: 'refresh_token', refresh_token: t.refresh, client_id: 'test-app' })).status).toBe(400);
    const unknown = await fetch(`${svc.baseUrl}/oauth/revoke`, {
      method: 'POST',
      body: new URLSearchParams({ token: 'nope' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(unknown.status).toBe(200);
    expect(await listRoot(svc.token())).toBe(200);
  });
});

describe('nas-service user add --password-stdin', () => {
  it('sets a password read from stdin; without it the user has none and nothing waits on a prompt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nas-oauth-cli-'));
    try {
      const bin = join(process.cwd(), 'bin/nas-service.js');
      const a = spawnSync(process.execPath, [bin, 'user', 'add', 'ann', '--data', dir, '--password-stdin'], {
        input: 's3cret pw\n',
        encoding: 'utf8',
      });
      expect(a.stderr).toBe('');
      expect(a.stdout).toContain('with a password');
      const b = spawnSync(process.execPath, [bin, 'user', 'add', 'bob', '--data', dir], { input: '', encoding: 'utf8' });
      expect(b.status).toBe(0);
      const db = openServiceDb(dir);
      const [ok, nl, none] = await Promise.all([
        checkPassword({ db }, 'ann', 's3cret pw'),
        checkPassword({ db }, 'ann', 's3cret pw\n'),
        checkPassword({ db }, 'bob', ''),
      ]);
      db.close();
      expect(ok).toBeTypeOf('number');
      expect(nl).toBeUndefined();
      expect(none).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
