/**
 * Keeps the address choice right for a whole session: the service client talks to one
 * logical base URL (the address chosen at start) and this Transport sends each request to
 * the address in use now. When the NAS cannot be reached there, the candidates are checked
 * again (LAN first, then the proxy) and a request that certainly was not sent (connection
 * refused) goes to the new address at once; a request that may have been sent fails as it
 * would have (the outbox checks before resending). Away from the first candidate (the
 * LAN), it checks again periodically to come back. Every switch is reported.
 */
import { AppError } from '../../app/errors.js';
import { NOT_SENT, type Transport, type TransportRequest, type TransportResponse } from '../client/transport.js';
import type { Connection } from './connect.js';
import type { Candidate } from './device.js';

export interface FailoverOptions {
  /** Checks the candidates again (connect()); the first that answers wins. */
  recheck: () => Promise<Connection>;
  /** Called after every switch, with the new connection. */
  onSwitch?: (c: Connection) => void;
  /** How often to look for the preferred address while on another one (default 5 min). */
  periodMs?: number;
}

export class FailoverTransport implements Transport {
  private current: Connection;
  private checking: Promise<Connection | undefined> | undefined;
  private readonly timer: NodeJS.Timeout;
  /** Switches so far (tests, logs). */
  switches = 0;

  constructor(
    private readonly inner: Transport,
    private readonly logicalBase: string,
    initial: Connection,
    private readonly preferred: Candidate['via'],
    private readonly o: FailoverOptions,
  ) {
    this.current = initial;
    this.timer = setInterval(() => {
      if (this.current.via !== this.preferred) void this.check();
    }, o.periodMs ?? 300_000);
    this.timer.unref();
  }

  /** The connection in use now. */
  get connection(): Connection {
    return this.current;
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const rest = req.url.startsWith(this.logicalBase) ? req.url.slice(this.logicalBase.length) : undefined;
    if (rest === undefined) return this.inner.request(req);
    const base = this.current.baseUrl;
    try {
      return await this.inner.request({ ...req, url: base + rest });
    } catch (e) {
      if (!(e instanceof AppError) || (e.code !== 'NetworkError' && e.code !== 'Timeout')) throw e;
      const next = await this.check();
      if (!next || next.baseUrl === base || e.delivery !== NOT_SENT) throw e;
      return this.inner.request({ ...req, url: next.baseUrl + rest });
    }
  }

  /** Checks the candidates again (one check at a time); undefined when none answers. */
  check(): Promise<Connection | undefined> {
    this.checking ??= this.o
      .recheck()
      .then(
        (c) => {
          if (c.baseUrl !== this.current.baseUrl) {
            this.current = c;
            this.switches++;
            this.o.onSwitch?.(c);
          }
          return c;
        },
        () => undefined,
      )
      .finally(() => {
        this.checking = undefined;
      });
    return this.checking;
  }

  close(): void {
    clearInterval(this.timer);
    this.inner.close();
  }
}
