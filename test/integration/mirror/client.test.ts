/**
 * The service client against the real service: every endpoint, typed errors, conditional
 * requests, retries (and the refusal to blindly retry a patch/delete that may have applied).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultTransport } from '../../../main/client/fault-transport.js';
import { OUTCOME_UNKNOWN, ServiceClient } from '../../../main/client/service-client.js';
import { HttpTransport } from '../../../main/client/transport.js';
import { connect } from '../../../main/connection/connect.js';
import { loadDevice } from '../../../main/connection/device.js';
import { startTestService, type TestService } from '../../../server/testing.js';

let svc: TestService;
const clients: ServiceClient[] = [];
const mk = (o: Partial<ConstructorParameters<typeof ServiceClient>[0]> = {}): ServiceClient => {
  const c = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token(), backoffBaseMs: 1, backoffMaxMs: 5, ...o });
  clients.push(c);
  return c;
};
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  for (const c of clients) c.close();
  await svc.stop();
});

describe('ServiceClient against the real service', () => {
  it('lists with paging, gets, looks up, searches, patches and deletes', async () => {
    const c = mk();
    const dir = svc.admin.createFolder('root', 'Docs');
    for (let i = 0; i < 25; i++) svc.admin.createFile(dir.id, `note ${String(i).padStart(2, '0')}.txt`);
    const pages = [];
    for await (const p of c.pages(dir.id, { limit: 10 })) pages.push(p);
    expect(pages.map((p) => p.files.length)).toEqual([10, 10, 5]);
    const one = pages[0]!.files[0]!;
    expect(await c.get(one.id)).toEqual(one);
    expect(await c.parentAndName(dir.id, one.name)).toEqual(one);
    const found = await c.searchText('note 0', { limit: 3 });
    expect(found.matches.length).toBe(3);
    expect(found.pageToken).not.toBe('');
    const { eTag } = await c.patch(one.id, { name: 'renamed.txt' }, { ifMatch: one.eTag });
    expect(eTag).toBe((await c.get(one.id)).eTag);
    expect(await c.delete(one.id, { ifMatch: eTag })).toBe('deleted');
    expect(await c.delete(dir.id)).toBe('accepted');
  });

  it("takes a create's body for the new object only when it is the object Location names", async () => {
    const dir = svc.admin.createFolder('root', 'Made here');
    expect(await mk().createFolder(dir.id, 'as answered')).toEqual({
      id: expect.any(String),
      object: expect.objectContaining({ name: 'as answered', parentID: dir.id }),
    });
    // a body that is another object, or not one at all: the id alone (the caller reads it)
    let body = '';
    const inner = new HttpTransport();
    const odd = mk({
      transport: {
        request: async (req) => {
          const res = await inner.request(req);
          return req.method === 'POST' ? { ...res, body } : res;
        },
        close: () => inner.close(),
      },
    });
    body = JSON.stringify(svc.admin.get(dir.id));
    const other = await odd.createFolder(dir.id, 'another body');
    expect(other.object).toBeUndefined();
    expect(svc.admin.get(other.id)?.name).toBe('another body');
    body = 'not json';
    const junk = await odd.createWhole(dir.id, 'junk body.txt', Buffer.from('x'));
    expect(junk.object).toBeUndefined();
    expect(svc.admin.get(junk.id)?.size).toBe(1);
  });

  it('maps statuses to typed errors', async () => {
    const c = mk();
    const a = svc.admin.createFile('root', 'a.txt');
    svc.admin.createFile('root', 'b.txt');
    await expect(c.get('nope')).rejects.toMatchObject({ code: 'NotFound', status: 404 });
    await expect(c.parentAndName('root', 'nope')).rejects.toMatchObject({ code: 'NotFound' });
    await expect(c.patch(a.id, { name: 'x.txt' }, { ifMatch: '"zzz"' })).rejects.toMatchObject({ code: 'PreconditionFailed' });
    await expect(c.patch(a.id, { name: 'b.txt' })).rejects.toMatchObject({ code: 'Conflict' });
    await expect(c.searchText('""')).rejects.toMatchObject({ code: 'BadRequest' });
    await expect(mk({ token: 'bad' }).get('root')).rejects.toMatchObject({ code: 'Unauthorized' });
    await expect(mk({ token: svc.token('nas_read_only') }).delete(a.id)).rejects.toMatchObject({ code: 'Forbidden' });
  });

  it('retries reads through resets, 5xx and 429 (honouring Retry-After)', async () => {
    const slept: number[] = [];
    let n = 0;
    const faults = new FaultTransport(new HttpTransport(), () => {
      n++;
      return n === 1
        ? { kind: 'reset-before' }
        : n === 2
          ? { kind: 'status', status: 500 }
          : n === 3
            ? { kind: 'status', status: 429, retryAfter: '1' }
            : n === 4
              ? { kind: 'reset-after' }
              : undefined;
    });
    const c = mk({
      transport: faults,
      sleep: async (ms) => {
        slept.push(ms);
      },
      random: () => 0.5,
    });
    const root = await c.get('root');
    expect(root.parentID).toBe('');
    expect(faults.stats.faults).toBe(4);
    expect(slept.length).toBe(4);
    expect(slept[2]).toBeGreaterThanOrEqual(1000);
    // exponential: each backoff at least the previous one's base
    expect(slept[1]!).toBeGreaterThan(slept[0]!);
  });

  it("retries by the error's retry class alone: an unknown status is an answer, not an outage", async () => {
    let n = 0;
    const faults = new FaultTransport(new HttpTransport(), () => (++n === 1 ? { kind: 'status', status: 418 } : undefined));
    const c = mk({ transport: faults });
    await expect(c.get('root')).rejects.toMatchObject({ code: 'BadResponse', retry: 'fatal', status: 418 });
    expect(n).toBe(1); // not asked again
    n = 0;
    faults.setPlan(() => (++n === 1 ? { kind: 'status', status: 502 } : undefined));
    expect((await c.get('root')).parentID).toBe(''); // ServerError: backoff, asked again
    expect(n).toBe(2);
  });

  it('never blindly retries a patch or delete that may have reached the NAS', async () => {
    const f = svc.admin.createFile('root', 'once.txt');
    const faults = new FaultTransport(new HttpTransport(), (req) => (req.method !== 'GET' ? { kind: 'reset-after' } : undefined));
    const c = mk({ transport: faults });
    const before = svc.requestCount();
    await expect(c.patch(f.id, { name: 'twice.txt' })).rejects.toMatchObject({ code: 'NetworkError', delivery: OUTCOME_UNKNOWN });
    expect(svc.requestCount() - before).toBe(1); // sent once, not retried
    expect(svc.admin.get(f.id)?.name).toBe('twice.txt'); // it did apply
    // A 500 on a patch is surfaced as unknown too; a reset before sending is retried.
    let k = 0;
    faults.setPlan((req) => (req.method === 'GET' ? undefined : ++k === 1 ? { kind: 'reset-before' } : undefined));
    await c.patch(f.id, { name: 'thrice.txt' });
    expect(svc.admin.get(f.id)?.name).toBe('thrice.txt');
    faults.setPlan((req) => (req.method === 'GET' ? undefined : { kind: 'status', status: 500 }));
    await expect(c.delete(f.id)).rejects.toMatchObject({ code: 'ServerError', delivery: OUTCOME_UNKNOWN });
  });

  it('connects LAN first, falls back to the proxy URL, and says which', async () => {
    const t = new HttpTransport();
    try {
      const record = JSON.stringify({ network: { internalDNSName: '127.0.0.1:1', proxyURL: svc.baseUrl } });
      const cands = await loadDevice(record, t);
      expect(cands.map((x) => x.via)).toEqual(['lan', 'proxy']);
      const conn = await connect(cands, t, svc.token(), { lanTimeoutMs: 500 });
      expect(conn.via).toBe('proxy');
      expect(conn.description).toContain('proxy URL');
      expect(conn.skipped.length).toBe(1);
      const lan = await connect(
        await loadDevice(JSON.stringify({ network: { internalDNSName: svc.baseUrl, proxyURL: 'http://127.0.0.1:1' } }), t),
        t,
        svc.token(),
      );
      expect(lan.via).toBe('lan');
      const file = await loadDevice(`${svc.dataDir}/device.json`, t);
      expect(file[0]!.baseUrl).toBe(svc.baseUrl);
    } finally {
      t.close();
    }
  });
});
