/**
 * The authentication seam under the service client: a Transport that puts the current
 * access token on every request to the NAS's interface (`.../sdk/v2/...` or `.../v2/...`),
 * renews it before it expires, and on a 401 renews once and sends the same request again
 * (a 401 means the NAS did nothing, so even a patch is safe to resend). The client and the
 * engine above see a token that simply keeps working, or `Unauthorized` once the NAS
 * refuses the sign-in itself. The token endpoint is called on the address the request goes
 * to, so a switch from the LAN to the proxy needs nothing more.
 */
import type { Transport, TransportRequest, TransportResponse } from '../client/transport.js';
import type { RefreshingToken } from './refreshing-token.js';

/** The base URL of an interface request (what precedes `/sdk/v2/`), or undefined for another URL. */
export function baseOfRequest(url: string): string | undefined {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  // The last occurrence: a relay's own path before it may hold anything.
  const i = path.lastIndexOf('/sdk/v2/');
  const j = i >= 0 ? i : path.lastIndexOf('/v2/');
  return j >= 0 ? path.slice(0, j) : undefined;
}

export class AuthTransport implements Transport {
  /** Requests sent again after a 401 and a renewal (tests, logs). */
  retriedAfter401 = 0;

  constructor(
    private readonly inner: Transport,
    private readonly token: RefreshingToken,
  ) {}

  async request(req: TransportRequest): Promise<TransportResponse> {
    const base = baseOfRequest(req.url);
    if (base === undefined) return this.inner.request(req);
    const used = await this.token.current(base);
    const res = await this.inner.request(withToken(req, used));
    if (res.status !== 401) return res;
    const next = await this.token.afterUnauthorized(base, used);
    this.retriedAfter401++;
    return this.inner.request(withToken(req, next));
  }

  close(): void {
    this.inner.close();
  }
}

function withToken(req: TransportRequest, token: string): TransportRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (k.toLowerCase() !== 'authorization') headers[k] = v;
  headers['authorization'] = `Bearer ${token}`;
  return { ...req, headers };
}
