/**
 * A proxy of the test's own in front of the real service, for killing the engine at an exact
 * point of an exchange: once the service has answered (the answer held here, never passed on),
 * or once a given number of a request's body bytes reached the service (the rest never sent).
 * Everything else streams through unchanged; every exchange is recorded with its query and status.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  method: string;
  /** Path without the query, e.g. `/sdk/v2/files/<id>/resumable/content`. */
  path: string;
  query: URLSearchParams;
  ifMatch: string | undefined;
  /** The service's status, once it answered. */
  status?: number;
}

/** Where the exchange is cut: after the service's whole answer, or after `bytes` of the request's body. */
export type Cut = { at: 'answer' } | { at: 'body'; bytes: number };

export interface CutProxy {
  baseUrl: string;
  seen: Exchange[];
  /**
   * Cuts the first exchange `match` takes at `cut`: `kill` runs there (the test kills the
   * engine), then the connection is dropped both ways. Resolves once it has happened.
   */
  cutAt(match: (x: Exchange) => boolean, cut: Cut, kill: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

interface Armed {
  match: (x: Exchange) => boolean;
  cut: Cut;
  kill: () => Promise<void>;
  done: () => void;
}

export async function startCutProxy(targetBaseUrl: string): Promise<CutProxy> {
  const target = new URL(targetBaseUrl);
  const seen: Exchange[] = [];
  let armed: Armed | undefined;

  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const x: Exchange = { method: req.method ?? 'GET', path: u.pathname, query: u.searchParams, ifMatch: req.headers['if-match'] };
    seen.push(x);
    const mine = armed?.match(x) === true ? armed : undefined;
    if (mine) armed = undefined;
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        x.status = answer.statusCode;
        if (mine?.cut.at !== 'answer') {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        // the service answered in full; the engine dies before it hears it
        answer.resume();
        answer.once('end', () => void mine.kill().then(() => (res.destroy(), mine.done())));
      },
    );
    up.on('error', () => res.destroy());
    req.on('close', () => {
      if (!req.complete && mine?.cut.at !== 'body') up.destroy(); // the engine went away mid-request
    });
    if (mine?.cut.at !== 'body') {
      req.pipe(up);
      return;
    }
    const stopAt = mine.cut.bytes;
    let passed = 0;
    const onData = (c: Buffer): void => {
      const take = Math.min(c.length, stopAt - passed);
      passed += take;
      if (passed < stopAt) {
        if (!up.write(c)) {
          req.pause();
          up.once('drain', () => req.resume());
        }
        return;
      }
      req.off('data', onData);
      req.pause();
      // those bytes handed to the kernel, the engine dies; then the service sees the request cut
      // off: a half-close (FIN after every byte), so what was sent is what the service reads (a
      // destroy could reset the connection, and a busy service then lost bytes still unread)
      up.write(
        c.subarray(0, take),
        () =>
          void mine.kill().then(() => {
            up.once('close', () => (res.destroy(), mine.done()));
            up.end();
            setTimeout(() => up.destroy(), 10_000).unref();
          }),
      );
    };
    req.on('data', onData);
    req.on('end', () => up.end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    cutAt: (match, cut, kill) =>
      new Promise<void>((done) => {
        armed = { match, cut, kill, done };
      }),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
