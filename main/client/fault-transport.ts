/**
 * A Transport wrapper that injects faults for tests: connection resets (before the request
 * is sent, or after the server handled it and the answer was lost), 5xx, 429 with
 * Retry-After, slow answers, and a streamed answer cut after some bytes (a connection dropped
 * mid-download: the bytes before the cut reach the sink). A `plan` decides per request; it sees every request in order.
 */
import { AppError } from '../../app/errors.js';
import { MAYBE_SENT, NOT_SENT, type BodySink, type Transport, type TransportRequest, type TransportResponse } from './transport.js';

export type Fault =
  | { kind: 'reset-before' }
  | { kind: 'reset-after' }
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'slow'; ms: number }
  | { kind: 'cut-body'; after: number };

/** Decides the fault (or none) for the n-th request (0-based). */
export type FaultPlan = (req: TransportRequest, n: number) => Fault | undefined;

/** A plan that injects each fault with probability `rate`, from a seeded generator. */
export function randomFaults(seed: number, rate: number, faults: readonly Fault[]): FaultPlan {
  let s = seed >>> 0 || 1;
  const rnd = (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x1_0000_0000;
  };
  return () => (rnd() < rate ? faults[Math.floor(rnd() * faults.length)] : undefined);
}

/** A sink that takes `after` bytes, then fails as a dropped connection would (`onCut` first). */
export function cutAfter(sink: BodySink, after: number, onCut?: () => void): BodySink {
  let seen = 0;
  return {
    begin: (status, headers) => sink.begin(status, headers),
    async write(chunk) {
      const room = after - seen;
      seen += chunk.length;
      if (room >= chunk.length) return sink.write(chunk);
      if (room > 0) await sink.write(chunk.subarray(0, room));
      onCut?.();
      throw new AppError('NetworkError', `injected: connection cut after ${after} bytes of the body`, { delivery: MAYBE_SENT });
    },
  };
}

export class FaultTransport implements Transport {
  /** Requests seen, and faults injected, by kind. */
  readonly stats = { requests: 0, faults: 0 };

  constructor(
    private readonly inner: Transport,
    private plan: FaultPlan,
  ) {}

  setPlan(plan: FaultPlan): void {
    this.plan = plan;
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const n = this.stats.requests++;
    const f = this.plan(req, n);
    if (!f) return this.inner.request(req);
    this.stats.faults++;
    switch (f.kind) {
      case 'reset-before':
        throw new AppError('NetworkError', 'injected: connection reset before sending', { delivery: NOT_SENT });
      case 'reset-after':
        await this.inner.request(req);
        throw new AppError('NetworkError', 'injected: connection reset after the server answered', { delivery: MAYBE_SENT });
      case 'status': {
        const headers: Record<string, string | undefined> = { 'content-type': 'application/json' };
        if (f.retryAfter !== undefined) headers['retry-after'] = f.retryAfter;
        return { status: f.status, headers, body: JSON.stringify({ message: `injected ${f.status}` }) };
      }
      case 'slow':
        await new Promise((r) => setTimeout(r, f.ms));
        return this.inner.request(req);
      case 'cut-body':
        return this.inner.request(req.sink ? { ...req, sink: cutAfter(req.sink, f.after) } : req);
    }
  }

  close(): void {
    this.inner.close();
  }
}
