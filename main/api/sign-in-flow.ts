/**
 * "Sign in" from the window: finds the configured NAS (LAN first, then the proxy), starts
 * the loopback sign-in, has the host open the login page when it can, and when the browser
 * comes back stores the refresh token (keychain, else memory) and starts a new session.
 * One sign-in at a time: a new one cancels the one before. The outcome is a notice.
 * At first start the NAS is the one typed in "Connect your NAS" (`location`), not saved yet:
 * the sign-in is stored for its account and `setUp` then uses it.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { encodeRefresh } from '../auth/credential.js';
import { startSignIn, type SignIn } from '../auth/sign-in.js';
import { HttpTransport } from '../client/transport.js';
import { connect } from '../connection/connect.js';
import { loadDevice, type Candidate } from '../connection/device.js';
import type { Settings } from '../settings/settings-store.js';
import type { EventHub } from './event-hub.js';
import type { DesktopPort } from './ports.js';
import { whyNoAnswer } from './nas-identity.js';
import { accountFor, storeCredential, type SessionDeps } from './session.js';

export interface SignInFlow {
  start(location?: string): Promise<{ url: string; opened: boolean }>;
  cancel(): void;
}

/** The keychain account and addresses of a NAS given by address or device record (as `setUp` finds them). */
async function accountAt(location: string, transport: HttpTransport): Promise<{ account: string; candidates: Candidate[] } | null> {
  let candidates: Candidate[];
  try {
    candidates = await loadDevice(location, transport);
  } catch (e) {
    const err = toAppError(e);
    throw new AppError(err.code === 'Internal' ? 'BadConfig' : err.code, err.message, { field: 'location', cause: e });
  }
  const account = candidates[0]?.baseUrl;
  return account ? { account, candidates } : null;
}

/** Throws, in words, when nothing answers at `baseUrl` (before the browser is sent to its login page). */
async function answers(transport: HttpTransport, baseUrl: string): Promise<void> {
  try {
    await transport.request({
      method: 'GET',
      url: `${baseUrl}/sdk/v2/filesSearch/parents?ids=root&limit=1&pageToken=`,
      headers: { accept: 'application/json' },
      timeoutMs: 5000,
    });
  } catch (e) {
    throw noAnswer(toAppError(e), baseUrl);
  }
}

/** A request's failure as the sign-in says it: no answer in words (and no dead page opened); any other error as it is. */
function noAnswer(err: AppError, where: string): AppError {
  if (err.code !== 'NetworkError' && err.code !== 'Timeout') return err;
  // connect() with several addresses says why each failed: the words are for the one address probed here
  const why = where.includes(' or ') ? '' : ` (${whyNoAnswer(err)})`;
  return new AppError(
    'NetworkError',
    `the NAS does not answer at ${where}${why}: check the address and that the NAS is on. Its sign-in page was not opened`,
    { field: 'location', cause: err },
  );
}

export function signInFlow(o: {
  deps: SessionDeps;
  settings: () => Settings;
  desktop: DesktopPort;
  hub: EventHub;
  restart: () => Promise<void>;
}): SignInFlow {
  let pending: SignIn | null = null;
  return {
    async start(location) {
      const s = o.settings();
      if (location === undefined && s.source === 'embedded')
        throw new AppError('BadRequest', 'the built-in demo NAS needs no sign-in: choose a NAS address first');
      const transport = new HttpTransport();
      let si: SignIn;
      let account: string;
      let baseUrl: string;
      try {
        const acc = location !== undefined ? await accountAt(location, transport) : await accountFor(s, transport);
        if (!acc) throw new AppError('BadConfig', 'no NAS address: enter it first', { field: 'location' });
        account = acc.account;
        // Any HTTP answer (a 401 without a token) says the address works; none: say why here, and open no dead page
        const where = acc.candidates.map((c) => c.baseUrl).join(' or ');
        baseUrl = (
          await connect(acc.candidates, transport, '').catch((e: unknown) => {
            throw noAnswer(toAppError(e), where);
          })
        ).baseUrl;
        await answers(transport, baseUrl);
        pending?.cancel();
        si = await startSignIn({ baseUrl, transport });
      } catch (e) {
        transport.close();
        throw e;
      }
      pending = si;
      void si.done
        .then(
          async (t) => {
            o.deps.memoryTokens.delete(account);
            const where = await storeCredential(o.deps, account, encodeRefresh(t.refreshToken));
            o.hub.emit('notice', {
              level: 'info',
              message: `Signed in to ${baseUrl}${where === 'memory' ? ' (no keychain: the sign-in lasts until the app quits)' : ''}.`,
            });
            await o.restart();
            o.hub.emit('changed', { what: 'settings' });
          },
          (e: unknown) => {
            const err = toAppError(e);
            if (pending !== si && err.code === 'Cancelled') return; // replaced by a newer sign-in
            o.hub.emit('notice', { level: err.code === 'Cancelled' ? 'info' : 'error', message: `Not signed in: ${err.message}` });
          },
        )
        .finally(() => {
          if (pending === si) pending = null;
          transport.close();
        });
      let opened = false;
      if (o.desktop.openExternal) {
        try {
          await o.desktop.openExternal(si.url);
          opened = true;
        } catch (e) {
          o.deps.log.warn('could not open the browser for the sign-in', { err: e });
        }
      }
      return { url: si.url, opened };
    },
    cancel() {
      pending?.cancel();
      pending = null;
    },
  };
}
