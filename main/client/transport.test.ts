/**
 * The real transport's streamed answers against a local HTTP server: a sink that keeps up
 * gets every chunk in order without the answer pausing for each; a slow sink pauses the
 * answer (at most two chunks handed on and unsettled, never the body in memory); and the
 * outcome, an answer or a broken connection, is told only once every write handed on has
 * settled (a resumed read asks from what the sink holds then).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpTransport, type BodySink } from './transport.js';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server answering every GET with `chunks` chunks of `size` bytes; `cut` drops the connection after that many chunks. */
async function serve(chunks: number, size: number, cut?: number): Promise<string> {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-length': String(chunks * size), etag: '"e"' });
    let n = 0;
    const next = (): void => {
      if (cut !== undefined && n === cut) {
        res.socket?.destroy();
        return;
      }
      if (n === chunks) {
        res.end();
        return;
      }
      n++;
      if (res.write(Buffer.alloc(size, n & 0xff))) setImmediate(next);
      else res.once('drain', next);
    };
    next();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
}

/** A sink recording its writes; each write settles after `ms` (0: at once). */
function sink(ms: number): BodySink & { bytes: number; most: number; events: string[] } {
  let pending = 0;
  const s = {
    bytes: 0,
    most: 0,
    events: [] as string[],
    begin: () => undefined,
    write: async (c: Buffer) => {
      pending++;
      s.most = Math.max(s.most, pending);
      if (ms > 0) await new Promise((r) => setTimeout(r, ms));
      s.bytes += c.length;
      pending--;
      s.events.push('wrote');
    },
  };
  return s;
}

describe('HttpTransport streamed answers', () => {
  it('a sink that keeps up gets the whole body, in order', async () => {
    const url = await serve(64, 16_384);
    const t = new HttpTransport();
    const s = sink(0);
    const res = await t.request({ method: 'GET', url, headers: {}, timeoutMs: 10_000, sink: s });
    t.close();
    expect(res.status).toBe(200);
    expect(s.bytes).toBe(64 * 16_384);
  });

  it('a slow sink pauses the answer: never more than two chunks handed on and unsettled', async () => {
    const url = await serve(40, 65_536);
    const t = new HttpTransport();
    const s = sink(3);
    await t.request({ method: 'GET', url, headers: {}, timeoutMs: 10_000, sink: s });
    t.close();
    expect(s.bytes).toBe(40 * 65_536);
    expect(s.most).toBeLessThanOrEqual(2);
  });

  it('a broken answer, or one timed out while a write is pending, is told after the writes handed on have settled', async () => {
    for (const [url, timeoutMs, code] of [
      [await serve(40, 65_536, 5), 10_000, 'NetworkError'],
      [await serve(40, 65_536), 100, 'Timeout'],
    ] as const) {
      const t = new HttpTransport();
      const s = sink(300);
      const err = await t.request({ method: 'GET', url, headers: {}, timeoutMs, sink: s }).then(
        () => undefined,
        (e: unknown) => {
          s.events.push('failed');
          return e;
        },
      );
      t.close();
      expect(err).toMatchObject({ code });
      expect(s.events.at(-1)).toBe('failed');
      expect(s.events.filter((e) => e === 'wrote').length).toBeGreaterThan(0);
    }
  });

  it('a write that fails drops the connection and fails the request, even after the body came whole', async () => {
    const url = await serve(4, 1000);
    const t = new HttpTransport();
    let seen = 0;
    const failing: BodySink = {
      begin: () => undefined,
      // the write of the last bytes fails, after the answer ended
      write: async (c) => {
        seen += c.length;
        await new Promise((r) => setTimeout(r, 30));
        if (seen === 4000) throw new Error('disk full');
      },
    };
    await expect(t.request({ method: 'GET', url, headers: {}, timeoutMs: 10_000, sink: failing })).rejects.toMatchObject({
      code: 'DiskError',
    });
    t.close();
  });
});
