/**
 * An upload's chunk read from its file as it is sent (file-body.ts, through HttpTransport): the
 * server gets exactly the bytes of that range; the caller's descriptor stays open (it closes
 * it); a file shorter than the range fails the request, never sent as whole.
 */
import { closeSync, fstatSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpTransport } from './transport.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** A server keeping each request's body; answers 204 once it is whole (or 400 when it was cut). */
async function serve(): Promise<{ url: string; bodies: Buffer[] }> {
  const bodies: Buffer[] = [];
  const server = http.createServer((req, res) => {
    const got: Buffer[] = [];
    req.on('data', (c: Buffer) => got.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(got));
      res.writeHead(204).end();
    });
    req.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/put`, bodies };
}

function file(bytes: Buffer): number {
  const dir = mkdtempSync(join(tmpdir(), 'file-body-'));
  writeFileSync(join(dir, 'f'), bytes);
  const fd = openSync(join(dir, 'f'), 'r');
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return fd;
}

const data = Buffer.from(Array.from({ length: 5_000_000 }, (_, i) => (i * 13 + (i >> 11)) & 0xff));

describe('file bodies', () => {
  it('sends exactly the range, read as it goes; the descriptor stays the caller’s', async () => {
    const { url, bodies } = await serve();
    const fd = file(data);
    const t = new HttpTransport();
    for (const [position, length] of [
      [0, 1_000_000],
      [1_000_000, 3_999_999],
      [4_999_999, 1],
      [5_000_000, 0],
    ] as const) {
      const res = await t.request({ method: 'PUT', url, headers: {}, timeoutMs: 5000, body: { fd, position, length } });
      expect(res.status).toBe(204);
    }
    t.close();
    expect(bodies.map((b) => b.length)).toEqual([1_000_000, 3_999_999, 1, 0]);
    expect(Buffer.concat(bodies).equals(data)).toBe(true);
    expect(fstatSync(fd).size).toBe(data.length); // still open
    closeSync(fd);
  });

  it('a file shorter than the range fails the request (the file changed): never sent as whole', async () => {
    const { url, bodies } = await serve();
    const fd = file(data.subarray(0, 1_000));
    const t = new HttpTransport();
    await expect(
      t.request({ method: 'PUT', url, headers: {}, timeoutMs: 5000, body: { fd, position: 0, length: 2_000 } }),
    ).rejects.toMatchObject({ code: 'DiskError' });
    t.close();
    expect(bodies.every((b) => b.length === 2_000)).toBe(true);
    expect(fstatSync(fd).size).toBe(1_000);
    closeSync(fd);
  });
});
