/**
 * A hostile NAS for tests: a small HTTP server of the test's own in front of the REAL service
 * (server/testing.ts). Every request is forwarded as it came; `tamper` may rewrite the answer
 * (broken objects, page-token cycles, huge bodies, tokens echoed in messages) or answer
 * itself without asking the service. Nothing here imitates the service: it only breaks it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpTransport, type Transport } from '../../main/client/transport.js';

export interface Exchange {
  method: string;
  /** Path without the query, e.g. `/sdk/v2/filesSearch/parents`. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** Returns the answer to send instead (or undefined: the service's answer unchanged). `real` asks the service. */
export type Tamper = (x: Exchange, real: (drop?: readonly string[]) => Promise<Answer>) => Promise<Answer | undefined> | Answer | undefined;

export interface HostileNas {
  baseUrl: string;
  /** Requests seen, in order (`METHOD path?query`). */
  seen: string[];
  tamper: Tamper | undefined;
  stop(): Promise<void>;
}

export async function startHostileNas(targetBaseUrl: string): Promise<HostileNas> {
  const target = new URL(targetBaseUrl);
  const nas: HostileNas = { baseUrl: '', seen: [], tamper: undefined, stop: async () => undefined };
  /** Forwards the request (without the `drop` headers, e.g. if-none-match to get a full answer). */
  const forward = (req: http.IncomingMessage, body: Buffer, drop: readonly string[] = []): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = { ...req.headers, host: target.host };
      for (const d of drop) delete headers[d];
      const r = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined && k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection' && k !== 'keep-alive')
              h[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: res.statusCode ?? 502, headers: h, body: Buffer.concat(chunks) });
        });
        res.on('error', reject);
      });
      r.on('error', reject);
      r.end(body);
    });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const u = new URL(req.url ?? '/', 'http://x');
      nas.seen.push(`${req.method} ${u.pathname}${u.search}`);
      const x: Exchange = { method: req.method ?? 'GET', path: u.pathname, query: u.searchParams, headers: req.headers };
      void (async () => {
        let a: Answer;
        try {
          a = (await nas.tamper?.(x, (drop) => forward(req, body, drop))) ?? (await forward(req, body));
        } catch (e) {
          a = { status: 502, headers: { 'content-type': 'text/plain' }, body: String(e) };
        }
        const buf = typeof a.body === 'string' ? Buffer.from(a.body) : a.body;
        res.writeHead(a.status, { ...a.headers, 'content-length': String(buf.length) });
        res.end(buf);
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  nas.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  nas.stop = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return nas;
}

/** A listing answer as JSON text (the page ETag dropped: a tampered page is never 304). */
export function jsonAnswer(value: unknown, status = 200): Answer {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}

/** The service's full JSON answer (never a 304), parsed. */
export async function realJson(
  real: (drop?: readonly string[]) => Promise<Answer>,
): Promise<{ status: number; value: Record<string, unknown> }> {
  const a = await real(['if-none-match']);
  return { status: a.status, value: JSON.parse(a.body.toString()) as Record<string, unknown> };
}

/** A transport that sends what the client addresses to the service (`from`) to the hostile NAS (`to`) instead. */
export function via(from: string, to: string): Transport {
  const t = new HttpTransport();
  return { request: (r) => t.request({ ...r, url: r.url.replace(from, to) }), close: () => t.close() };
}
