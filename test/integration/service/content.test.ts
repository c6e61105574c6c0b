/**
 * Reading content (content.md, Read): whole bodies with their headers, byte ranges (206, 416),
 * conditional reads (304, If-Range), downloads, folders and unfinished uploads refused, the
 * metadata read's permissions, v2/v3 paths, generated demo content, and the quirks layer
 * passing content through untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestService, type TestService } from '../../../server/testing.js';
import type { ListingPage, RemoteObject } from '../../../app/model/remote-object.js';
import { call, testBytes } from './content-http.js';
import { client } from './http.js';

let svc: TestService;
let token: string;
const get = (path: string, headers?: Record<string, string>) => call(svc.baseUrl, token, 'GET', path, { headers });

beforeAll(async () => {
  svc = await startTestService();
  token = svc.token();
  svc.admin.addUser('bob');
});
afterAll(async () => {
  await svc.stop();
});

describe('GET files/<id>/content', () => {
  it('answers the bytes with Content-Type = mimeType, Content-Length and the object eTag', async () => {
    const data = testBytes(70_000);
    const f = svc.admin.createFile('root', 'photo.JPG', { content: data });
    const r = await get(`/sdk/v2/files/${f.id}/content`);
    expect(r.status).toBe(200);
    expect(r.body.equals(data)).toBe(true);
    expect(r.headers.get('content-type')).toBe('image/jpeg');
    expect(r.headers.get('content-length')).toBe('70000');
    expect(r.headers.get('etag')).toBe(f.eTag);
    expect(r.headers.get('accept-ranges')).toBe('bytes');
    expect(r.headers.get('content-disposition')).toBeNull();
    // also under /v2 and /v3 (one client reads through v3), and HEAD
    for (const p of [`/v2/files/${f.id}/content`, `/v3/files/${f.id}/content`, `/sdk/v3/files/${f.id}/content`]) {
      const again = await get(p);
      expect(again.status, p).toBe(200);
      expect(again.body.equals(data), p).toBe(true);
    }
    const head = await call(svc.baseUrl, token, 'HEAD', `/sdk/v2/files/${f.id}/content`);
    expect([head.status, head.headers.get('content-length'), head.body.length]).toEqual([200, '70000', 0]);
    expect((await get(`/v3/files/${f.id}`)).status).toBe(404); // only the content read answers under v3
  });

  it('Range: bytes=a-b, a- and -n answer 206 with Content-Range; past the end is 416', async () => {
    const data = testBytes(1000, 7);
    const f = svc.admin.createFile('root', 'range.bin', { content: data });
    const path = `/sdk/v2/files/${f.id}/content`;
    const cases: [string, number, number][] = [
      ['bytes=0-0', 0, 1],
      ['bytes=10-19', 10, 20],
      ['bytes=990-', 990, 1000],
      ['bytes=-5', 995, 1000],
      ['bytes=500-5000', 500, 1000],
      ['bytes=-5000', 0, 1000],
      ['bytes=999-999', 999, 1000],
    ];
    for (const [range, start, end] of cases) {
      const r = await get(path, { Range: range });
      expect(r.status, range).toBe(206);
      expect(r.headers.get('content-range'), range).toBe(`bytes ${start}-${end - 1}/1000`);
      expect(r.headers.get('content-length'), range).toBe(String(end - start));
      expect(r.body.equals(data.subarray(start, end)), range).toBe(true);
      expect(r.headers.get('etag')).toBe(f.eTag);
    }
    for (const range of ['bytes=1000-', 'bytes=5000-6000', 'bytes=-0']) {
      const r = await get(path, { Range: range });
      expect(r.status, range).toBe(416);
      expect(r.headers.get('content-range'), range).toBe('bytes */1000');
      expect(r.json).toMatchObject({ message: 'Range Not Satisfiable' });
    }
    // a header this service does not serve as a range (several ranges, bad syntax) gets the whole body
    for (const range of ['bytes=0-1,5-6', 'items=0-5', 'bytes=9-3']) {
      const r = await get(path, { Range: range });
      expect([r.status, r.body.length], range).toEqual([200, 1000]);
    }
    // an empty file has no satisfiable range: the FUSE client reads it as 416
    const empty = svc.admin.createFile('root', 'empty.txt', { content: '' });
    expect((await get(`/sdk/v2/files/${empty.id}/content`, { Range: 'bytes=0-4095' })).status).toBe(416);
    const whole = await get(`/sdk/v2/files/${empty.id}/content`);
    expect([whole.status, whole.body.length, whole.headers.get('content-length')]).toEqual([200, 0, '0']);
  });

  it('If-None-Match with the current eTag is 304; If-Range with a stale one sends the whole body (200)', async () => {
    const f = svc.admin.createFile('root', 'cond.txt', { content: 'conditional content' });
    const path = `/sdk/v2/files/${f.id}/content`;
    const nm = await get(path, { 'If-None-Match': f.eTag });
    expect([nm.status, nm.body.length, nm.headers.get('etag')]).toEqual([304, 0, f.eTag]);
    expect((await get(path, { 'If-None-Match': '"stale"' })).status).toBe(200);
    const current = await get(path, { Range: 'bytes=0-3', 'If-Range': f.eTag });
    expect([current.status, current.body.toString()]).toEqual([206, 'cond']);
    // the file changes (a rename moves its eTag): the old validator no longer holds
    expect((await client(svc.baseUrl, token).patch(f.id, { name: 'cond2.txt' })).status).toBe(204);
    const stale = await get(path, { Range: 'bytes=0-3', 'If-Range': f.eTag });
    expect([stale.status, stale.body.toString(), stale.headers.get('content-range')]).toEqual([200, 'conditional content', null]);
    expect((await get(path, { Range: 'bytes=0-3', 'If-Range': 'Wed, 21 Oct 2015 07:28:00 GMT' })).status).toBe(200);
    expect((await get(path, { 'If-None-Match': f.eTag })).status).toBe(200);
  });

  it('download=true adds Content-Disposition: attachment with an RFC 5987 filename*', async () => {
    const name = "Résumé 2024 (final)'s ✓ 100%.pdf";
    const f = svc.admin.createFile('root', name, { content: '%PDF-1.4' });
    const r = await get(`/sdk/v2/files/${f.id}/content?download=true`);
    expect(r.status).toBe(200);
    const cd = r.headers.get('content-disposition')!;
    expect(cd).toBe("attachment; filename*=UTF-8''R%C3%A9sum%C3%A9%202024%20%28final%29%27s%20%E2%9C%93%20100%25.pdf");
    expect(decodeURIComponent(cd.split("''")[1]!)).toBe(name);
    // the FUSE client reads by range with download=true
    const ranged = await get(`/sdk/v2/files/${f.id}/content?download=true`, { Range: 'bytes=0-3' });
    expect([ranged.status, ranged.body.toString()]).toEqual([206, '%PDF']);
  });

  it('a folder is 400, an unknown id 404, an unfinished upload 409', async () => {
    const dir = svc.admin.createFolder('root', 'NoContent');
    expect((await get(`/sdk/v2/files/${dir.id}/content`)).status).toBe(400);
    expect((await get('/sdk/v2/files/root/content')).status).toBe(400);
    expect((await get('/sdk/v2/files/nope/content')).status).toBe(404);
    const c = client(svc.baseUrl, token);
    const meta = JSON.stringify({ name: 'half.bin', parentID: dir.id });
    const json = { 'Content-Type': 'application/json' };
    const created = await call(svc.baseUrl, token, 'POST', '/sdk/v2/files/resumable?done=false', { body: meta, headers: json });
    expect(created.status).toBe(201);
    const id = created.headers.get('location')!.split('/').pop()!;
    const r = await get(`/sdk/v2/files/${id}/content`);
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ message: 'Conflict' });
    expect(((await c.list(dir.id)).body as ListingPage).files.map((f) => f.name)).toEqual(['half.bin']);
  });

  it('follows the metadata read permissions: 404 without access, a read-only grant or token reads', async () => {
    const shared = svc.admin.createFolder('root', 'SharedContent');
    const f = svc.admin.createFile(shared.id, 'secret.txt', { content: 'for bob later' });
    const bob = svc.token('nas_read_write', 'bob');
    const path = `/sdk/v2/files/${f.id}/content`;
    expect((await call(svc.baseUrl, bob, 'GET', path)).status).toBe(404);
    expect((await call(svc.baseUrl, 'not-a-token', 'GET', path)).status).toBe(401);
    expect((await fetch(svc.baseUrl + path)).status).toBe(401);
    svc.admin.grant('bob', shared.id, 'ReadFile');
    const r = await call(svc.baseUrl, svc.token('nas_read_only', 'bob'), 'GET', path);
    expect([r.status, r.body.toString()]).toEqual([200, 'for bob later']);
    const ro = await call(svc.baseUrl, svc.token('nas_read_only'), 'GET', path);
    expect(ro.status).toBe(200);
  });

  it('a file without stored content reads bytes generated from its id and size, stable across reads and ranges', async () => {
    const f = svc.admin.createFile('root', 'generated.mov', { size: 300_001 });
    const path = `/sdk/v2/files/${f.id}/content`;
    const a = await get(path);
    const b = await get(path);
    expect([a.status, a.body.length, a.headers.get('content-type')]).toEqual([200, 300_001, 'video/quicktime']);
    expect(a.body.equals(b.body)).toBe(true);
    for (const [s, e] of [
      [0, 1],
      [1, 7],
      [65_535, 65_537],
      [131_071, 200_000],
      [299_999, 300_000],
    ] as const) {
      const r = await get(path, { Range: `bytes=${s}-${e}` });
      expect(r.body.equals(a.body.subarray(s, e + 1)), `${s}-${e}`).toBe(true);
    }
    const other = svc.admin.createFile('root', 'generated2.mov', { size: 300_001 });
    expect((await get(`/sdk/v2/files/${other.id}/content`)).body.equals(a.body)).toBe(false);
  });
});

describe('the demo library', () => {
  let demo: TestService;
  beforeAll(async () => {
    demo = await startTestService({ demo: { objects: 400, seed: 3 } });
  });
  afterAll(async () => {
    await demo.stop();
  });

  it('serves generated content: same bytes on every read and range, nothing stored', async () => {
    const t = demo.token();
    const files: RemoteObject[] = [];
    const walk = async (id: string): Promise<void> => {
      const page = (await client(demo.baseUrl, t).list(id)).body as ListingPage;
      for (const o of page.files) {
        if (o.childCount !== undefined) await walk(o.id);
        else if ((o.size ?? 0) > 0 && (o.size ?? 0) < 5_000_000) files.push(o);
      }
    };
    await walk('root');
    expect(files.length).toBeGreaterThan(20);
    for (const o of files.slice(0, 8)) {
      const path = `/sdk/v2/files/${o.id}/content`;
      const a = await call(demo.baseUrl, t, 'GET', path);
      expect([a.status, a.body.length, a.headers.get('content-type'), a.headers.get('etag')]).toEqual([200, o.size, o.mimeType, o.eTag]);
      expect((await call(demo.baseUrl, t, 'GET', path)).body.equals(a.body)).toBe(true);
      const mid = Math.floor(o.size! / 3);
      const r = await call(demo.baseUrl, t, 'GET', path, { headers: { Range: `bytes=${mid}-${mid + 4096}` } });
      expect(r.body.equals(a.body.subarray(mid, mid + 4097))).toBe(true);
    }
    const root = join(demo.dataDir, 'content');
    const stored = readdirSync(root).filter((d) => d !== '.partial');
    expect(stored).toEqual([]);
  });
});

describe('quirks mode', () => {
  let q: TestService;
  beforeAll(async () => {
    q = await startTestService({ quirks: 'real-device' });
  });
  afterAll(async () => {
    await q.stop();
  });

  it('content passes through untouched; only the header rules apply (lower-case names, opaque eTags)', async () => {
    const t = q.token();
    const data = testBytes(200_000, 9);
    const f = q.admin.createFile('root', 'raw.bin', { content: data });
    const meta = (await call(q.baseUrl, t, 'GET', `/sdk/v2/files/${f.id}`)).json as RemoteObject;
    expect(meta.eTag).toMatch(/^"x-/);
    const r = await call(q.baseUrl, t, 'GET', `/sdk/v2/files/${f.id}/content`);
    expect(r.status).toBe(200);
    expect(r.body.equals(data)).toBe(true);
    expect(r.headers.get('etag')).toBe(meta.eTag);
    const path = `/sdk/v2/files/${f.id}/content`;
    expect((await call(q.baseUrl, t, 'GET', path, { headers: { 'If-None-Match': meta.eTag } })).status).toBe(304);
    const part = await call(q.baseUrl, t, 'GET', path, { headers: { Range: 'bytes=100-199', 'If-Range': meta.eTag } });
    expect([part.status, part.body.equals(data.subarray(100, 200))]).toEqual([206, true]);
    // raw header names are lower case on the wire
    const raw = await new Promise<string[]>((resolve, reject) => {
      void import('node:http').then(({ get: httpGet }) => {
        httpGet(`${q.baseUrl}/sdk/v2/files/${f.id}/content`, { headers: { Authorization: `Bearer ${t}`, Range: 'bytes=0-0' } }, (res) => {
          res.resume();
          resolve(res.rawHeaders.filter((_h, i) => i % 2 === 0));
        }).on('error', reject);
      });
    });
    expect(raw).toContain('content-range');
    expect(raw).toContain('etag');
  });
});
