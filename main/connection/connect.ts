/**
 * Chooses the base URL: each candidate (LAN first) is probed with a short timeout; the
 * first that answers like the service (any HTTP answer to an authenticated listing of
 * `root` other than a network failure) wins. Reports which one is used and why others failed.
 */
import { AppError } from '../../app/errors.js';
import type { Transport } from '../client/transport.js';
import type { Candidate } from './device.js';

export interface Connection {
  baseUrl: string;
  via: Candidate['via'];
  /** Human sentence: "using the LAN address http://...". */
  description: string;
  /** Candidates tried before, with the reason they were skipped. */
  skipped: { candidate: Candidate; reason: string }[];
}

const VIA_TEXT: Record<Candidate['via'], string> = { lan: 'the LAN address', proxy: 'the proxy URL', url: 'the given URL' };

export async function connect(
  candidates: readonly Candidate[],
  transport: Transport,
  token: string,
  opts: { lanTimeoutMs?: number; proxyTimeoutMs?: number } = {},
): Promise<Connection> {
  const skipped: Connection['skipped'] = [];
  for (const c of candidates) {
    if (candidates.length === 1) return { baseUrl: c.baseUrl, via: c.via, description: `using ${VIA_TEXT[c.via]} ${c.baseUrl}`, skipped };
    try {
      const res = await transport.request({
        method: 'GET',
        url: `${c.baseUrl}/sdk/v2/filesSearch/parents?ids=root&limit=1&pageToken=`,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        timeoutMs: c.via === 'lan' ? (opts.lanTimeoutMs ?? 1500) : (opts.proxyTimeoutMs ?? 10_000),
      });
      if (res.status === 404 && !res.body.includes('"message"'))
        throw new AppError('BadResponse', 'not the service (404 without a service error body)');
      return { baseUrl: c.baseUrl, via: c.via, description: `using ${VIA_TEXT[c.via]} ${c.baseUrl}`, skipped };
    } catch (e) {
      // A refused sign-in (main/auth) is about the user, not the address: no other address helps.
      if (e instanceof AppError && e.code === 'Unauthorized') throw e;
      skipped.push({ candidate: c, reason: e instanceof Error ? e.message : String(e) });
    }
  }
  if (candidates.length === 0) throw new AppError('BadConfig', 'no address to reach the NAS');
  throw new AppError('NetworkError', `the NAS does not answer: ${skipped.map((s) => `${s.candidate.baseUrl} (${s.reason})`).join('; ')}`);
}
