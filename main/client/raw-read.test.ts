/**
 * Content reads over plain HTTP by the client's own reader (raw-read.ts, through HttpTransport),
 * against servers that write the answer byte for byte: a body by Content-Length, by
 * chunks and up to the close, handed to a sink that copies (the partial file) or keeps; any
 * other answer read whole; a connection cut mid-body fails only once the sink's writes
 * settled; a slow sink pauses the connection (never the body in memory).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpTransport, type BodySink } from './transport.js';

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server that reads the request head, then calls `answer` with the socket and the request's first line. */
async function serve(answer: (sock: net.Socket, line: string) => void): Promise<string> {
  const server = net.createServer((sock) => {
    let head = '';
    const onData = (d: Buffer): void => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      sock.off('data', onData);
      answer(sock, head.split('\r\n')[0]!);
    };
    sock.on('data', onData);
    sock.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/files/x/content`;
}

const body = (n: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + (i >> 9)) & 0xff));

/** A sink keeping what it gets, by `copy` (a copy taken during the call) or by `write`; each write or copy settles after `ms`. */
function sink(kind: 'copy' | 'write', ms = 0): BodySink & { got: Buffer[]; status: number; pending: number; most: number } {
  const s = {
    got: [] as Buffer[],
    status: 0,
    pending: 0,
    most: 0,
    begin: (status: number) => {
      s.status = status;
    },
    write: async (c: Buffer) => {
      s.pending++;
      s.most = Math.max(s.most, s.pending);
      s.got.push(c);
      if (ms > 0) await new Promise((r) => setTimeout(r, ms));
      s.pending--;
    },
  };
  if (kind === 'write') return s;
  return Object.assign(s, {
    copy: (c: Buffer): Promise<void> | undefined => {
      s.got.push(Buffer.from(c));
      if (ms === 0) return undefined;
      s.pending++;
      s.most = Math.max(s.most, s.pending);
      return new Promise<void>((r) =>
        setTimeout(() => {
          s.pending--;
          r();
        }, ms),
      );
    },
  });
}

const get = (t: HttpTransport, url: string, s?: BodySink) =>
  t.request({ method: 'GET', url, headers: { authorization: 'Bearer t' }, timeoutMs: 5000, ...(s ? { sink: s } : {}) });

describe('raw content reads', () => {
  it.each(['copy', 'write'] as const)('a body by Content-Length, in pieces, reaches a sink by %s whole and in order', async (kind) => {
    const data = body(3_000_000);
    let line = '';
    const url = await serve((sock, l) => {
      line = l;
      sock.write(`HTTP/1.1 200 OK\r\nContent-Length: ${data.length}\r\nETag: "v1"\r\n\r\n`);
      // in uneven pieces, the head and the first bytes together
      let at = 0;
      const next = (): void => {
        if (at >= data.length) return;
        const n = Math.min(100_003, data.length - at);
        sock.write(data.subarray(at, at + n), next);
        at += n;
      };
      next();
    });
    const t = new HttpTransport();
    const s = sink(kind);
    const res = await get(t, url, s);
    expect(line).toBe('GET /files/x/content HTTP/1.1');
    expect([res.status, res.headers['etag'], res.body, s.status]).toEqual([200, '"v1"', '', 200]);
    expect(Buffer.concat(s.got).equals(data)).toBe(true);
  });

  it('a chunked body, and one that ends at the close', async () => {
    const data = body(700_000);
    const chunked = await serve((sock) => {
      sock.write('HTTP/1.1 206 Partial Content\r\nTransfer-Encoding: chunked\r\nContent-Range: bytes 0-699999/700000\r\n\r\n');
      for (let at = 0; at < data.length; at += 65_536) {
        const c = data.subarray(at, at + 65_536);
        sock.write(`${c.length.toString(16)}\r\n`);
        sock.write(c);
        sock.write('\r\n');
      }
      sock.end('0\r\n\r\n');
    });
    const closing = await serve((sock) => {
      sock.write('HTTP/1.0 200 OK\r\n\r\n');
      sock.end(data);
    });
    const t = new HttpTransport();
    for (const url of [chunked, closing]) {
      const s = sink('copy');
      const res = await get(t, url, s);
      expect([200, 206]).toContain(res.status);
      expect(Buffer.concat(s.got).equals(data)).toBe(true);
    }
  });

  it('another answer is read whole, not streamed (a 404 with its JSON)', async () => {
    const url = await serve((sock) => {
      const json = '{"message":"Not Found"}';
      sock.end(`HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n${json}`);
    });
    const s = sink('copy');
    const res = await get(new HttpTransport(), url, s);
    expect([res.status, res.body, s.got.length]).toEqual([404, '{"message":"Not Found"}', 0]);
  });

  it('a connection cut mid-body fails (maybe sent), told once the writes handed on settled; what came is kept', async () => {
    const data = body(2_000_000);
    const url = await serve((sock) => {
      sock.write(`HTTP/1.1 200 OK\r\nContent-Length: ${data.length}\r\n\r\n`);
      sock.write(data.subarray(0, 1_200_000), () => sock.destroy());
    });
    const s = sink('write', 20);
    await expect(get(new HttpTransport(), url, s)).rejects.toMatchObject({ code: 'NetworkError', delivery: 'maybe-sent' });
    expect(s.pending).toBe(0);
    const got = Buffer.concat(s.got);
    expect(got.length).toBeLessThanOrEqual(1_200_000);
    expect(got.equals(data.subarray(0, got.length))).toBe(true);
  });

  it('a slow sink pauses the connection: at most one copy waits at a time', async () => {
    const data = body(4_000_000);
    const url = await serve((sock) => {
      sock.write(`HTTP/1.1 200 OK\r\nContent-Length: ${data.length}\r\n\r\n`);
      sock.end(data);
    });
    const s = sink('copy', 5);
    await get(new HttpTransport(), url, s);
    expect(Buffer.concat(s.got).equals(data)).toBe(true);
    expect(s.most).toBe(1);
  });

  it('keeps a connection between reads; a read on a kept one the server closed is sent again on a new one; Connection: close is not kept', async () => {
    const data = body(10_000);
    let connections = 0;
    const sockets: net.Socket[] = [];
    let close = false;
    let dropNext = false;
    const server = net.createServer((sock) => {
      connections++;
      sockets.push(sock);
      let head = '';
      sock.on('data', (d: Buffer) => {
        if (dropNext) {
          // its keep-alive ran out just as the request came: closed, nothing answered
          dropNext = false;
          sock.destroy();
          return;
        }
        head += d.toString('latin1');
        while (head.includes('\r\n\r\n')) {
          head = head.slice(head.indexOf('\r\n\r\n') + 4);
          sock.write(`HTTP/1.1 200 OK\r\nContent-Length: ${data.length}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`);
          sock.write(data);
          if (close) sock.end();
        }
      });
      sock.on('error', () => undefined);
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/f`;
    const t = new HttpTransport();
    const read = async (): Promise<void> => {
      const s = sink('copy');
      expect((await get(t, url, s)).status).toBe(200);
      expect(Buffer.concat(s.got).equals(data)).toBe(true);
    };
    for (let i = 0; i < 5; i++) await read();
    expect(connections).toBe(1);
    // the server drops the kept connection (its keep-alive ran out): the next read goes on a new one, no error
    sockets[0]!.destroy();
    await read();
    expect(connections).toBe(2);
    dropNext = true;
    await read();
    expect(connections).toBe(3);
    // answers that close it: the kept one serves one more, then each read has a new one
    close = true;
    await read();
    await read();
    await read();
    expect(connections).toBe(5);
    t.close();
  });

  it('a GET without a sink (a listing, a 304, an object) is read whole by the same reader, on one kept connection', async () => {
    let connections = 0;
    const lines: string[] = [];
    const server = net.createServer((sock) => {
      connections++;
      let head = '';
      sock.on('data', (d: Buffer) => {
        head += d.toString('latin1');
        while (head.includes('\r\n\r\n')) {
          const req = head.slice(0, head.indexOf('\r\n\r\n'));
          head = head.slice(head.indexOf('\r\n\r\n') + 4);
          lines.push(req);
          if (/if-none-match: "p1"/i.test(req)) sock.write('HTTP/1.1 304 Not Modified\r\nETag: "p1"\r\n\r\n');
          else {
            // a page of ~300 KB in chunks: more than one read of the connection's buffer
            const json = JSON.stringify({
              files: Array.from({ length: 3000 }, (_, i) => ({ id: `id-${i}`, name: `é name ${i}`.padEnd(80, '.') })),
            });
            const bytes = Buffer.from(json);
            sock.write(`HTTP/1.1 200 OK\r\nETag: "p1"\r\nTransfer-Encoding: chunked\r\n\r\n`);
            for (let at = 0; at < bytes.length; at += 70_000) {
              const part = bytes.subarray(at, at + 70_000);
              sock.write(`${part.length.toString(16)}\r\n`);
              sock.write(part);
              sock.write('\r\n');
            }
            sock.write('0\r\n\r\n');
          }
        }
      });
      sock.on('error', () => undefined);
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sdk/v2/filesSearch/parents?ids=x&pageToken=`;
    const t = new HttpTransport();
    const full = await t.request({ method: 'GET', url, headers: { authorization: 'Bearer t' }, timeoutMs: 5000 });
    expect([full.status, full.headers['etag']]).toEqual([200, '"p1"']);
    const page = JSON.parse(full.body) as { files: { name: string }[] };
    expect([page.files.length, page.files[2999]!.name.startsWith('é name 2999')]).toEqual([3000, true]);
    const again = await t.request({ method: 'GET', url, headers: { 'if-none-match': '"p1"' }, timeoutMs: 5000 });
    expect([again.status, again.body]).toEqual([304, '']);
    expect(connections).toBe(1);
    expect(lines[0]).toMatch(/^GET \/sdk\/v2\/filesSearch\/parents\?ids=x&pageToken= HTTP\/1\.1\r\n/);
    t.close();
  });

  it('a header holding a line break (an ETag from the NAS sent back) is refused, never sent', async () => {
    let requests = 0;
    const url = await serve((sock) => {
      requests++;
      sock.end('HTTP/1.1 304 Not Modified\r\n\r\n');
    });
    const t = new HttpTransport();
    await expect(
      t.request({ method: 'GET', url, headers: { 'if-none-match': '"a"\r\nX-Evil: 1' }, timeoutMs: 5000 }),
    ).rejects.toMatchObject({ code: 'BadRequest', delivery: 'not-sent' });
    expect(requests).toBe(0);
    t.close();
  });

  it('a server that is not there: not sent', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    await expect(get(new HttpTransport(), `http://127.0.0.1:${port}/x`, sink('copy'))).rejects.toMatchObject({
      code: 'NetworkError',
      delivery: 'not-sent',
    });
  });
});
