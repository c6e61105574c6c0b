/**
 * The first start's "Connect your NAS" (and a new mirror's), checked before anything is
 * saved: the mirror folder (the command line's rules, and empty or new), the device record
 * or address, and the token, which the NAS must accept. Every failure is a BadConfig in
 * words naming the form field it is about. "Try the demo" needs only the folder check.
 * A token obtained by signing in (OAuth, issue 9) arrives here the same way as a pasted one.
 */
import type { SetUpArgs } from '../../app/contract/shapes.js';
import { AppError, toAppError } from '../../app/errors.js';
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

export async function checkSetUp(args: SetUpArgs, o: { stateDir: string; mirrorFolder: string; storedToken: (account: string) => Promise<string | undefined> }): Promise<SetUpChoice> {
  try { checkMirrorFolder(o.stateDir, o.mirrorFolder, { fresh: true }); } catch (e) { throw fieldError('mirrorFolder', e); }
  if (args.choice === 'demo') return { source: 'embedded', location: '', account: '', token: undefined };
  const location = (args.location ?? '').trim();
  if (!location) throw new AppError('BadConfig', 'enter the NAS address (http://…) or the path of its device record', { field: 'location' });
  const transport = new HttpTransport();
  try {
    let candidates;
    try { candidates = await loadDevice(location, transport); } catch (e) { throw fieldError('location', e); }
    const account = candidates[0]?.baseUrl;
    if (!account) throw new AppError('BadConfig', 'the device record names no address', { field: 'location' });
    const token = args.token ?? (await o.storedToken(account));
    if (!token) throw new AppError('BadConfig', 'paste the access token for this NAS', { field: 'token' });
    let baseUrl: string;
    try { ({ baseUrl } = await connect(candidates, transport, token)); } catch (e) { throw fieldError('location', e); }
    try {
      await new ServiceClient({ baseUrl, token, transport }).list('root', { limit: 1 });
    } catch (e) {
      const err = toAppError(e);
      if (err.code === 'Unauthorized' || err.code === 'Forbidden') throw new AppError('BadConfig', 'the NAS refused this token: check it, or make a new one on the NAS', { field: 'token', cause: e });
      throw new AppError('BadConfig', `the NAS at ${baseUrl} does not answer (${err.message}): check the address and that the NAS is on`, { field: 'location', cause: e });
    }
    const via = candidates.length === 1 && candidates[0]?.via === 'url' ? 'url' : 'device-record';
    return { source: via, location, account, token: args.token };
  } finally {
    transport.close();
  }
}
