/**
 * The first start's "Connect your NAS" (and a new mirror's), checked before anything is
 * saved: the mirror folder (the command line's rules, and empty or new), the device record
 * or address, and the token, which the NAS must accept. Every failure is a BadConfig in
 * words naming the form field it is about. "Try the demo" needs only the folder check.
 * A sign-in (OAuth, issue 9: "Sign in" on the welcome stores it for the NAS's account before
 * Connect) is used like a stored token: with no pasted token, the stored credential, a pasted
 * token or a refresh token, is checked against the NAS.
 */
import type { SetUpArgs } from '../../app/contract/shapes.js';
import { AppError, toAppError } from '../../app/errors.js';
import { authFor, decodeCredential } from '../auth/credential.js';
import { ServiceClient } from '../client/service-client.js';
import { HttpTransport } from '../client/transport.js';
import { connect } from '../connection/connect.js';
import { loadDevice } from '../connection/device.js';
import { checkMirrorFolder } from '../settings/folders.js';

export interface SetUpChoice {
  source: 'embedded' | 'url' | 'device-record';
  location: string;
  /** The keychain account (first address) and the token to store, for a NAS. */
  account: string;
  token: string | undefined;
}

const fieldError = (field: string, e: unknown): AppError => {
  const err = toAppError(e);
  return new AppError(err.code === 'Internal' ? 'BadConfig' : err.code, err.message, { field, cause: e });
};

export interface SetUpDeps {
  stateDir: string;
  mirrorFolder: string;
  /** What is stored for the account: a pasted token, or a sign-in (encoded refresh token). */
  storedToken: (account: string) => Promise<string | undefined>;
  /** Stores a refresh token rotated while checking a sign-in. */
  persist: (account: string, encoded: string) => Promise<void>;
}

export async function checkSetUp(args: SetUpArgs, o: SetUpDeps): Promise<SetUpChoice> {
  try {
    checkMirrorFolder(o.stateDir, o.mirrorFolder, { fresh: true });
  } catch (e) {
    throw fieldError('mirrorFolder', e);
  }
  if (args.choice === 'demo') return { source: 'embedded', location: '', account: '', token: undefined };
  const location = (args.location ?? '').trim();
  if (!location)
    throw new AppError('BadConfig', 'enter the NAS address (http://…) or the path of its device record', { field: 'location' });
  const transport = new HttpTransport();
  try {
    let candidates;
    try {
      candidates = await loadDevice(location, transport);
    } catch (e) {
      throw fieldError('location', e);
    }
    const account = candidates[0]?.baseUrl;
    if (!account) throw new AppError('BadConfig', 'the device record names no address', { field: 'location' });
    const stored = args.token ?? (await o.storedToken(account));
    if (!stored) throw new AppError('BadConfig', 'paste the access token for this NAS (or sign in)', { field: 'token' });
    const signedIn = args.token === undefined && decodeCredential(stored).kind === 'refresh';
    const { token, transport: authed } = authFor(stored, transport, (v) => o.persist(account, v));
    let baseUrl: string;
    try {
      ({ baseUrl } = await connect(candidates, authed, token));
    } catch (e) {
      throw fieldError(signedIn && toAppError(e).code === 'Unauthorized' ? 'token' : 'location', e);
    }
    try {
      await new ServiceClient({ baseUrl, token, transport: authed }).list('root', { limit: 1 });
    } catch (e) {
      const err = toAppError(e);
      if (signedIn && (err.code === 'Unauthorized' || err.code === 'Forbidden'))
        throw new AppError('BadConfig', 'the NAS no longer accepts the sign-in: sign in again', { field: 'token', cause: e });
      if (err.code === 'Unauthorized' || err.code === 'Forbidden')
        throw new AppError('BadConfig', 'the NAS refused this token: check it, or make a new one on the NAS', { field: 'token', cause: e });
      throw new AppError('BadConfig', `the NAS at ${baseUrl} does not answer (${err.message}): check the address and that the NAS is on`, {
        field: 'location',
        cause: e,
      });
    }
    const via = candidates.length === 1 && candidates[0]?.via === 'url' ? 'url' : 'device-record';
    return { source: via, location, account, token: args.token };
  } finally {
    transport.close();
  }
}
