/**
 * Signing in the way desktop apps do (RFC 8252): a loopback receiver on 127.0.0.1, a PKCE
 * pair and a random state, the NAS's login page URL for the system browser, then the code
 * from the redirect exchanged for tokens. The caller opens the URL (Electron's shell, the
 * browser-mode page, or the user from a terminal) and stores the refresh token.
 */
import { randomBytes } from 'node:crypto';
import type { Transport } from '../client/transport.js';
import { startLoopback } from './loopback.js';
import { authorizeUrl, exchangeCode, newPkce, type Tokens } from './oauth-client.js';
import { ignore } from '../../app/util/ignore.js';

export interface SignIn {
  /** The NAS's login page, to open in the system browser. */
  url: string;
  /** The tokens once the user signed in; rejects when cancelled, refused or timed out. */
  done: Promise<Tokens>;
  cancel(): void;
}

export async function startSignIn(o: { baseUrl: string; transport: Transport; timeoutMs?: number; scope?: string }): Promise<SignIn> {
  const state = randomBytes(16).toString('base64url');
  const pkce = newPkce();
  const loop = await startLoopback(state, o.timeoutMs);
  const url = authorizeUrl(o.baseUrl, {
    redirectUri: loop.redirectUri,
    state,
    challenge: pkce.challenge,
    ...(o.scope ? { scope: o.scope } : {}),
  });
  const done = loop.redirect.then(async (r) => {
    try {
      const t = await exchangeCode(o.transport, o.baseUrl, { code: r.code, redirectUri: loop.redirectUri, verifier: pkce.verifier });
      r.finish(true, 'NAS Mirror is signed in. You can close this tab and go back to the app.');
      return t;
    } catch (e) {
      r.finish(false, `NAS Mirror could not finish signing in: ${e instanceof Error ? e.message : String(e)}. Start again from the app.`);
      throw e;
    }
  });
  done.catch(ignore('the caller awaits `done` and reports its failure; unhandled until then'));
  return { url, done, cancel: () => loop.close() };
}
