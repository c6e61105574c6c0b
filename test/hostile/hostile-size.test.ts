/**
 * Unbounded responses from a hostile NAS: a body past the transport's limit is refused with a
 * typed error (BadResponse, detail too-large), never a crash, never an unbounded buffer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestService, type TestService } from '../../server/testing.js';
import { ServiceClient } from '../../main/client/service-client.js';
import { HttpTransport, MAX_RESPONSE_BYTES, TOO_LARGE } from '../../main/client/transport.js';
import { walk } from '../../main/mirror/walk.js';
import { startHostileNas, type HostileNas } from './hostile-nas.js';

let svc: TestService | undefined;
let nas: HostileNas | undefined;
let raw: http.Server | undefined;
afterEach(async () => {
  await nas?.stop();
  await svc?.stop();
  if (raw) {
    raw.closeAllConnections();
    await new Promise((r) => raw!.close(r));
  }
  svc = undefined;
  nas = undefined;
  raw = undefined;
});

/** A server that streams `chunk` forever (or declares a huge length), counting what it sent. */
async function endless(declare: boolean): Promise<{ url: string; sent: () => number }> {
  let sent = 0;
  raw = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...(declare ? { 'content-length': String(600 * 1024 * 1024) } : {}) });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk)) sent += chunk.length;
      if (!res.destroyed) res.once('drain', pump);
    };
    res.write('{"files":[');
    pump();
  });
  await new Promise<void>((r) => raw!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(raw.address() as AddressInfo).port}`, sent: () => sent };
}

describe('hostile NAS: response size is bounded', () => {
  it('a listing body past the limit fails the walk (incomplete) with a typed error', async () => {
    svc = await startTestService();
    svc.admin.createFile(svc.admin.rootId(), 'a.txt');
    nas = await startHostileNas(svc.baseUrl);
    nas.tamper = (x) =>
      x.path.endsWith('/filesSearch/parents')
        ? { status: 200, headers: { 'content-type': 'application/json' }, body: `{"files":[],"pad":"${'x'.repeat(3 * 1024 * 1024)}"}` }
        : undefined;
    const client = new ServiceClient({
      baseUrl: nas.baseUrl,
      token: svc.token(),
      retries: 0,
      transport: new HttpTransport({ maxResponseBytes: 1024 * 1024 }),
    });
    const r = await walk(client, { onPage: () => undefined });
    client.close();
    expect(r.complete).toBe(false);
    if (!r.complete) {
      expect(r.error.code).toBe('BadResponse');
      expect(r.error.detail).toBe(TOO_LARGE);
      expect(r.error.message).toContain('larger than 1048576 bytes');
    }
  });

  for (const declare of [true, false]) {
    it(`an endless body (${declare ? 'declared 600 MB' : 'chunked'}) stops at the default limit of ${MAX_RESPONSE_BYTES} bytes`, async () => {
      const s = await endless(declare);
      const client = new ServiceClient({ baseUrl: s.url, token: 't', retries: 0 });
      await expect(client.list('root')).rejects.toMatchObject({ code: 'BadResponse', detail: TOO_LARGE });
      client.close();
      // refused from the header, or cut within a few MB of the limit: never read to the end
      expect(s.sent()).toBeLessThan(MAX_RESPONSE_BYTES + 32 * 1024 * 1024);
    });
  }
});
