/**
 * A NAS's identity: the id of its root, the one a mirror was made of. A NAS at a new address
 * (another IP or port, an edited device record) is the same NAS when its root is the same,
 * whatever its URL. Asked with a sign-in the app already holds; no answer is said in words.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { authFor } from '../auth/credential.js';
import { ServiceClient } from '../client/service-client.js';
import type { HttpTransport } from '../client/transport.js';
import { connect } from '../connection/connect.js';
import type { Candidate } from '../connection/device.js';

/** Words for why an address gives no answer (no raw error codes in what the user reads). */
export function whyNoAnswer(e: AppError): string {
  if (e.code === 'Timeout') return 'it accepts the connection but sends nothing back';
  const sys = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNRESET)\b/.exec(e.message)?.[1];
  if (sys === 'ECONNREFUSED') return 'nothing answers on that port';
  if (sys === 'ENOTFOUND' || sys === 'EAI_AGAIN') return 'no computer has that name';
  if (sys === 'EHOSTUNREACH' || sys === 'ENETUNREACH') return 'that address cannot be reached from this network';
  return 'the connection failed';
}

/**
 * The root id of the NAS at `candidates`, asked with the stored credential `stored` (a rotated
 * refresh token goes to `persist`); null when it does not take that sign-in (another NAS).
 * Throws, in words, when nothing answers there.
 */
export async function rootAt(
  candidates: readonly Candidate[],
  stored: string,
  transport: HttpTransport,
  persist: (encoded: string) => Promise<void>,
): Promise<string | null> {
  const auth = authFor(stored, transport, persist);
  try {
    const conn = await connect(candidates, auth.transport, auth.token, { lanTimeoutMs: 3000, proxyTimeoutMs: 5000 });
    const client = new ServiceClient({ baseUrl: conn.baseUrl, token: auth.token, transport: auth.transport, retries: 0, timeoutMs: 5000 });
    return (await client.get('root')).id;
  } catch (e) {
    const err = toAppError(e);
    if (err.code === 'Unauthorized' || err.code === 'Forbidden' || err.code === 'NotFound') return null;
    const what =
      err.code === 'NetworkError' || err.code === 'Timeout' ? `does not answer (${whyNoAnswer(err)})` : 'does not answer as a NAS does';
    throw new AppError('BadConfig', `${candidates[0]?.baseUrl ?? 'the NAS'} ${what}: nothing was changed; check the address`, {
      field: 'location',
      cause: e,
    });
  }
}
