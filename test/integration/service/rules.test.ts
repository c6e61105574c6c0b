/** Every rule of service.md, through HTTP against the real service. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../server/testing.js';
import { mintToken } from '../../../server/store/users.js';
import { client } from './http.js';
import type { ListingPage, RemoteObject } from '../../../app/model/remote-object.js';

let svc: TestService;
let c: ReturnType<typeof client>;
beforeAll(async () => {
  svc = await startTestService();
  c = client(svc.baseUrl, svc.token());
});
afterAll(async () => {
  await svc.stop();
});

const obj = (r: { body: unknown }) => r.body as RemoteObject;
const page = (r: { body: unknown }) => r.body as ListingPage;

describe('paths, objects, eTags', () => {
  it('answers under /sdk/v2 and /v2, GET files/<id>, root alias with real ids', async () => {
    const f = svc.admin.createFolder('root', 'paths');
    const v2 = client(svc.baseUrl, svc.token(), '/v2');
    expect(obj(await c.get(`/files/${f.id}`)).name).toBe('paths');
    expect(obj(await v2.get(`/files/${f.id}`)).name).toBe('paths');
    const root = obj(await c.get('/files/root'));
    expect(root.id).toBe(svc.admin.rootId());
    expect(root.parentID).toBe('');
    expect(page(await c.list('root')).files.every((o) => o.parentID === root.id)).toBe(true);
    expect((await c.get('/files/nope')).status).toBe(404);
    expect((await c.get('/files/nope')).body).toEqual({ message: 'Not Found' });
    expect((await c.call('GET', '/nothing/here')).status).toBe(404);
  });

  it('returns the decided fields and formats', async () => {
    const d = svc.admin.createFolder('root', 'fields');
    const f = svc.admin.createFile(d.id, 'Notes.TXT', {
      size: 42,
      mTime: Date.UTC(2017, 0, 31, 2, 11, 56, 940),
      cTime: Date.UTC(2016, 10, 14, 13, 15, 14),
    });
    const n = svc.admin.createFile(d.id, 'README', {});
    const got = obj(await c.get(`/files/${f.id}`));
    expect(got).toEqual({
      id: f.id,
      parentID: d.id,
      eTag: '"Ag"',
      mimeType: 'text/plain; charset=utf-8',
      name: 'Notes.TXT',
      mTime: '2017-01-31T02:11:56.94Z',
      cTime: '2016-11-14T13:15:14Z',
      hidden: 'none',
      storageType: 'local',
      size: 42,
      extension: '.TXT',
    });
    expect(obj(await c.get(`/files/${n.id}`)).extension).toBeUndefined();
    const folder = obj(await c.get(`/files/${d.id}`));
    expect(folder.childCount).toBe(2);
    expect(folder.size).toBeUndefined();
    expect(folder.extension).toBeUndefined();
    expect(folder.mimeType).toBe('application/x.service.dir');
    const pretty = await c.get(`/files/${f.id}?pretty=true&unknown=1`);
    expect(pretty.text).toContain('\n  "id"');
  });

  it('bumps eTags: object on change, folder on child added/removed/renamed/moved', async () => {
    const a = svc.admin.createFolder('root', 'etag-a');
    const b = svc.admin.createFolder('root', 'etag-b');
    const tag = async (id: string) => obj(await c.get(`/files/${id}`)).eTag;
    expect(await tag(a.id)).toBe('"Ag"');
    const f = svc.admin.createFile(a.id, 'x.txt');
    expect(await tag(a.id)).toBe('"BA"');
    const r = await c.patch(f.id, { name: 'y.txt' });
    expect(r.status).toBe(204);
    expect(r.headers.get('etag')).toBe('"BA"');
    expect(await tag(f.id)).toBe('"BA"');
    expect(await tag(a.id)).toBe('"Bg"');
    await c.patch(f.id, { parentID: b.id });
    expect(await tag(a.id)).toBe('"CA"');
    expect(await tag(b.id)).toBe('"BA"');
    await c.patch(f.id, { mTime: '2020-01-01T00:00:00Z' });
    expect(await tag(b.id)).toBe('"BA"'); // not a rename or move: the folder stays
    expect(await tag(f.id)).toBe('"CA"');
    expect((await c.del(f.id)).status).toBe(204);
    expect(await tag(b.id)).toBe('"Bg"');
  });
});

describe('listing', () => {
  let dir: RemoteObject;
  beforeAll(() => {
    dir = svc.admin.createFolder('root', 'listing');
    const names = ['b.txt', 'B.txt', 'a.txt', 'é.txt', 'z', '😀.png', '.DS_Store', 'Thumbs.db'];
    names.forEach((n, i) =>
      svc.admin.createFile(dir.id, n, {
        size: (i * 37) % 5,
        mTime: Date.UTC(2020, 0, 1 + ((i * 3) % 7)),
        hidden: n === '.DS_Store' ? 'mac' : n === 'Thumbs.db' ? 'windows' : 'none',
      }),
    );
    svc.admin.createFolder(dir.id, 'sub');
  });

  it('orders by name code point by default, pages by cursor, 304 on If-None-Match', async () => {
    const all = page(await c.list(dir.id));
    expect(all.pageToken).toBe('');
    expect(all.files.map((f) => f.name)).toEqual(['.DS_Store', 'B.txt', 'Thumbs.db', 'a.txt', 'b.txt', 'sub', 'z', 'é.txt', '😀.png']);
    const seen: string[] = [];
    let token = '';
    do {
      const p = page(await c.list(dir.id, `&limit=2&pageToken=${token}`));
      expect(p.files.length).toBeLessThanOrEqual(2);
      seen.push(...p.files.map((f) => f.name));
      token = p.pageToken;
    } while (token);
    expect(seen).toEqual(all.files.map((f) => f.name));
    const r = await c.list(dir.id);
    const etag = r.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect((await c.call('GET', `/filesSearch/parents?ids=${dir.id}`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    svc.admin.createFile(dir.id, 'new.txt');
    expect((await c.call('GET', `/filesSearch/parents?ids=${dir.id}`, { headers: { 'If-None-Match': etag } })).status).toBe(200);
  });

  it('orderBy, order, hidden, fields, several ids', async () => {
    for (const by of ['name', 'mTime', 'cTime', 'size'] as const) {
      const asc = page(await c.list(dir.id, `&orderBy=${by}&order=asc`)).files.map((f) => f.id);
      const desc = page(await c.list(dir.id, `&orderBy=${by}&order=desc`)).files.map((f) => f.id);
      expect(desc).toEqual([...asc].reverse());
      let token = '';
      const walked: string[] = [];
      do {
        const p = page(await c.list(dir.id, `&orderBy=${by}&order=desc&limit=3&pageToken=${token}`));
        walked.push(...p.files.map((f) => f.id));
        token = p.pageToken;
      } while (token);
      expect(walked).toEqual(desc);
    }
    const byM = page(await c.list(dir.id, '&orderBy=mTime')).files;
    for (let i = 1; i < byM.length; i++) expect(Date.parse(byM[i - 1]!.mTime)).toBeLessThanOrEqual(Date.parse(byM[i]!.mTime));
    expect(page(await c.list(dir.id, '&hidden=mac')).files.map((f) => f.name)).not.toContain('.DS_Store');
    expect(page(await c.list(dir.id, '&hidden=windows')).files.map((f) => f.name)).not.toContain('Thumbs.db');
    expect(page(await c.list(dir.id, '&hidden=none')).files.length).toBe(page(await c.list(dir.id)).files.length);
    const slim = page(await c.list(dir.id, '&fields=id,name'));
    expect(Object.keys(slim.files[0]!).sort()).toEqual(['id', 'name']);
    expect(slim.pageToken).toBe('');
    const other = svc.admin.createFolder('root', 'listing-2');
    svc.admin.createFile(other.id, 'a.txt');
    const both = page(await c.list(`${dir.id},${other.id}`));
    expect(both.files.filter((f) => f.parentID === other.id).map((f) => f.name)).toEqual(['a.txt']);
    expect(both.files.length).toBe(page(await c.list(dir.id)).files.length + 1);
    let token = '';
    const walked: string[] = [];
    do {
      const p = page(await c.list(`${dir.id},${other.id}`, `&limit=4&pageToken=${token}`));
      walked.push(...p.files.map((f) => f.id));
      token = p.pageToken;
    } while (token);
    expect(walked).toEqual(both.files.map((f) => f.id));
    // several ids, conditionally (the app's walk asks small folders together): 304 while neither changed, 200 once one did
    const etag = (await c.list(`${dir.id},${other.id}`)).headers.get('etag')!;
    const again = (): Promise<number> =>
      c.call('GET', `/filesSearch/parents?ids=${dir.id},${other.id}`, { headers: { 'If-None-Match': etag } }).then((r) => r.status);
    expect(await again()).toBe(304);
    svc.admin.createFile(other.id, 'b.txt');
    expect(await again()).toBe(200);
  });

  it('rejects bad parameters with 400 and a message', async () => {
    for (const extra of ['&orderBy=color', '&order=up', '&limit=abc', '&limit=0', '&pageToken=garbage', '&hidden=amiga']) {
      const r = await c.list(dir.id, extra);
      expect(r.status, extra).toBe(400);
      expect(typeof (r.body as { message: string }).message).toBe('string');
    }
    // a token made for another order is refused
    const t = page(await c.list(dir.id, '&limit=1')).pageToken;
    expect((await c.list(dir.id, `&orderBy=size&pageToken=${t}`)).status).toBe(400);
    expect((await c.call('GET', '/filesSearch/parents')).status).toBe(400);
    expect((await c.list(Array.from({ length: 101 }, (_, i) => `id${i}`).join(','))).status).toBe(400);
    expect((await c.list('unknown-id')).status).toBe(404);
    const f = svc.admin.createFile(dir.id, 'plain.txt');
    expect((await c.list(f.id)).status).toBe(400);
    expect(page(await c.list(dir.id, '&limit=5000')).files.length).toBeGreaterThan(0);
  });
});

describe('parentAndName', () => {
  it('finds exact, case-sensitive names; 404 body; 304', async () => {
    const d = svc.admin.createFolder('root', 'pan');
    const a = svc.admin.createFile(d.id, 'hello.txt');
    const b = svc.admin.createFile(d.id, 'Hello.txt');
    expect(obj(await c.pan(d.id, 'hello.txt')).id).toBe(a.id);
    expect(obj(await c.pan(d.id, 'Hello.txt')).id).toBe(b.id);
    expect(obj(await c.pan('root', 'pan')).id).toBe(d.id);
    const miss = await c.pan(d.id, 'HELLO.txt');
    expect(miss.status).toBe(404);
    expect(miss.body).toEqual({ message: 'Not Found' });
    const r = await c.pan(d.id, 'hello.txt');
    expect(r.headers.get('etag')).toBe('"Ag"');
    expect(
      (await c.call('GET', `/filesSearch/parentAndName?parentID=${d.id}&name=hello.txt`, { headers: { 'If-None-Match': '"Ag"' } })).status,
    ).toBe(304);
    expect((await c.call('GET', `/filesSearch/parentAndName?parentID=${d.id}`)).status).toBe(400);
  });
});

describe('patch', () => {
  it('renames, moves, both at once; PATCH alias; text/plain body; empty body is a no-op', async () => {
    const a = svc.admin.createFolder('root', 'patch-a');
    const b = svc.admin.createFolder('root', 'patch-b');
    const f = svc.admin.createFile(a.id, 'one.txt');
    expect((await c.patch(f.id, { name: 'two.txt', parentID: b.id })).status).toBe(204);
    expect(obj(await c.get(`/files/${f.id}`))).toMatchObject({ name: 'two.txt', parentID: b.id, extension: '.txt' });
    expect(obj(await c.get(`/files/${a.id}`)).childCount).toBe(0);
    expect(obj(await c.get(`/files/${b.id}`)).childCount).toBe(1);
    expect((await c.call('PATCH', `/files/${f.id}`, { body: { name: 'three.md' } })).status).toBe(204);
    expect(obj(await c.get(`/files/${f.id}`)).mimeType).toBe('text/plain; charset=utf-8'); // mimeType changes only when patched
    expect(
      (
        await c.call('POST', `/files/${f.id}/patch`, {
          raw: JSON.stringify({ hidden: 'linux' }),
          headers: { 'Content-Type': 'text/plain' },
        })
      ).status,
    ).toBe(204);
    const before = obj(await c.get(`/files/${f.id}`)).eTag;
    const noop = await c.patch(f.id, {});
    expect(noop.status).toBe(204);
    expect(noop.headers.get('etag')).toBe(before);
    expect((await c.call('POST', `/files/${f.id}/patch`, { raw: '' })).status).toBe(204);
    expect(
      (
        await c.patch(f.id, {
          parentID: 'root',
          mimeType: 'text/markdown',
          cTime: '2001-02-03T04:05:06.7Z',
          mTime: '2002-02-03T04:05:06Z',
          unknownField: 1,
        })
      ).status,
    ).toBe(204);
    expect(obj(await c.get(`/files/${f.id}`))).toMatchObject({
      parentID: svc.admin.rootId(),
      mimeType: 'text/markdown',
      cTime: '2001-02-03T04:05:06.7Z',
      mTime: '2002-02-03T04:05:06Z',
      hidden: 'linux',
    });
  });

  it('validates: 400 with a message, and nothing changes', async () => {
    const d = svc.admin.createFolder('root', 'validate');
    const sub = svc.admin.createFolder(d.id, 'sub');
    const deep = svc.admin.createFolder(sub.id, 'deep');
    const f = svc.admin.createFile(d.id, 'f.txt');
    const bads: [string, unknown, string?][] = [
      [f.id, '{bad json'],
      [f.id, '[1]'],
      [f.id, { name: 5 }],
      [f.id, { name: '' }],
      [f.id, { name: 'a/b' }],
      [f.id, { name: '.' }],
      [f.id, { name: '..' }],
      [f.id, { name: 'x'.repeat(256) }],
      [f.id, { name: 'nul\u0000' }],
      [f.id, { hidden: 'amiga' }],
      [f.id, { mTime: 'yesterday' }],
      [f.id, { cTime: 5 }],
      [f.id, { mimeType: 'application/x.service.dir' }],
      [d.id, { mimeType: 'text/plain' }],
      [sub.id, { parentID: deep.id }],
      [sub.id, { parentID: sub.id }],
      [f.id, { parentID: f.id }],
      [d.id, { parentID: f.id }],
      [f.id, { mimeType: 'not a type' }],
    ];
    for (const [id, body] of bads) {
      const before = obj(await c.get(`/files/${id}`));
      const r = typeof body === 'string' ? await c.call('POST', `/files/${id}/patch`, { raw: body }) : await c.patch(id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect((r.body as { message: string }).message.length).toBeGreaterThan(3);
      expect(obj(await c.get(`/files/${id}`))).toEqual(before);
    }
    expect((await c.patch(f.id, { name: 'é'.repeat(127) })).status).toBe(204); // 254 bytes
  });

  it('404 for unknown object or parent, 409 on a clash, 403 on the root', async () => {
    const d = svc.admin.createFolder('root', 'clash');
    const a = svc.admin.createFile(d.id, 'a.txt');
    svc.admin.createFile(d.id, 'b.txt');
    svc.admin.createFile(d.id, 'A.TXT');
    expect((await c.patch('nope', { name: 'x' })).status).toBe(404);
    expect((await c.patch(a.id, { parentID: 'nope' })).status).toBe(404);
    const r = await c.patch(a.id, { name: 'b.txt' });
    expect(r.status).toBe(409);
    expect((r.body as { message: string }).message).toBe('Conflict');
    expect((await c.patch(a.id, { name: 'a.TXT' })).status).toBe(204); // names are case-sensitive
    expect((await c.patch('root', { name: 'x' })).status).toBe(403);
    expect((await c.patch(svc.admin.rootId(), { name: 'x' })).status).toBe(403);
    expect((await c.del('root')).status).toBe(403);
  });
});

describe('conditional requests', () => {
  it('If-Match and If-None-Match on patch and delete', async () => {
    const f = svc.admin.createFile('root', 'cond.txt');
    expect((await c.patch(f.id, { name: 'c1.txt' }, { 'If-Match': '"BA"' })).status).toBe(412);
    const pf = await c.patch(f.id, { name: 'c1.txt' }, { 'If-Match': '"Ag"' });
    expect(pf.status).toBe(204);
    expect((await c.patch(f.id, { name: 'c2.txt' }, { 'If-Match': '"Ag"' })).status).toBe(412);
    expect((await c.patch(f.id, { name: 'c2.txt' }, { 'If-Match': '"xx", "BA"' })).status).toBe(204);
    expect((await c.patch(f.id, { name: 'c3.txt' }, { 'If-Match': '*' })).status).toBe(204);
    expect((await c.patch(f.id, { name: 'c4.txt' }, { 'If-None-Match': '*' })).status).toBe(412);
    expect((await c.patch(f.id, { name: 'c4.txt' }, { 'If-None-Match': '"CA"' })).status).toBe(412);
    expect((await c.patch(f.id, { name: 'c4.txt' }, { 'If-None-Match': '"Ag"' })).status).toBe(204);
    const failed = await c.del(f.id, { 'If-Match': '"Ag"' });
    expect(failed.status).toBe(412);
    expect(failed.body).toEqual({ message: 'Precondition Failed' });
    expect(obj(await c.get(`/files/${f.id}`)).name).toBe('c4.txt');
    expect((await c.del(f.id, { 'If-Match': '"Cg"' })).status).toBe(204);
    expect((await c.del(f.id)).status).toBe(404);
  });
});

describe('delete', () => {
  it('204 for files and empty folders, 202 for non-empty folders whose subtree vanishes at once', async () => {
    const d = svc.admin.createFolder('root', 'del');
    const empty = svc.admin.createFolder(d.id, 'empty');
    const file = svc.admin.createFile(d.id, 'file.txt');
    const full = svc.admin.createFolder(d.id, 'full');
    const inner = svc.admin.createFolder(full.id, 'inner');
    const leaf = svc.admin.createFile(inner.id, 'deep-unique-leaf.txt');
    expect((await c.del(file.id)).status).toBe(204);
    expect((await c.del(empty.id)).status).toBe(204);
    expect((await c.del(full.id)).status).toBe(202);
    for (const id of [full.id, inner.id, leaf.id]) expect((await c.get(`/files/${id}`)).status).toBe(404);
    expect((await c.list(inner.id)).status).toBe(404);
    expect((await c.pan(inner.id, 'deep-unique-leaf.txt')).status).toBe(404);
    expect((await c.pan(d.id, 'full')).status).toBe(404);
    expect(((await c.search('deep-unique-leaf')).body as { matches: unknown[] }).matches).toEqual([]);
    expect(page(await c.list(d.id)).files).toEqual([]);
    expect(obj(await c.get(`/files/${d.id}`)).childCount).toBe(0);
    expect((await c.patch(leaf.id, { name: 'x' })).status).toBe(404);
    expect((await c.del(full.id)).status).toBe(404);
    // the name is free again at once
    svc.admin.createFolder(d.id, 'full');
    await svc.admin.drainDeletes();
    const left = svc.service.store.db
      .prepare('SELECT count(*) AS n FROM objects WHERE id IN (?, ?, ?)')
      .get(full.id, inner.id, leaf.id) as { n: number };
    expect(left.n).toBe(0);
  });
});

describe('authentication and errors', () => {
  it('401 without, with unknown, with expired token; 403 for a read-only token on writes', async () => {
    const f = svc.admin.createFile('root', 'auth.txt');
    const anon = client(svc.baseUrl, undefined);
    const r = await anon.get(`/files/${f.id}`);
    expect(r.status).toBe(401);
    expect((r.body as { message: string }).message).toBe('Unauthorized');
    expect((await client(svc.baseUrl, 'nst_bogus').get(`/files/${f.id}`)).status).toBe(401);
    const expired = mintToken(svc.service.store, 'demo', 'nas_read_write', 1);
    svc.service.store.db.prepare('UPDATE tokens SET expires = 1 WHERE expires IS NOT NULL').run();
    expect((await client(svc.baseUrl, expired).get(`/files/${f.id}`)).status).toBe(401);
    const ro = client(svc.baseUrl, svc.token('nas_read_only'));
    expect((await ro.get(`/files/${f.id}`)).status).toBe(200);
    expect((await ro.search('auth')).status).toBe(200);
    expect((await ro.patch(f.id, { name: 'x.txt' })).status).toBe(403);
    expect((await ro.del(f.id)).status).toBe(403);
    expect(obj(await c.get(`/files/${f.id}`)).name).toBe('auth.txt');
  });

  it('413 over 64 KiB, 405 for a wrong method, JSON error bodies', async () => {
    const f = svc.admin.createFile('root', 'big.txt');
    const r = await c.call('POST', `/files/${f.id}/patch`, { raw: JSON.stringify({ name: 'x'.repeat(70_000) }) });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ message: 'Payload Too Large' });
    expect((await c.call('PUT', `/files/${f.id}`)).status).toBe(405);
    expect((await c.get(`/files/${f.id}`)).status).toBe(200);
  });

  it('invalid UTF-8 in a JSON body is bad JSON: 400, nothing changed', async () => {
    const f = svc.admin.createFile('root', 'utf8.txt');
    const before = obj(await c.get(`/files/${f.id}`));
    for (const bytes of [[0xff, 0xfe], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf]]) {
      const body = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from(bytes), Buffer.from('b"}')]);
      const r = await fetch(`${svc.baseUrl}/sdk/v2/files/${f.id}/patch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.token()}`, 'content-type': 'application/json' },
        body,
      });
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ message: expect.stringContaining('UTF-8') });
    }
    expect(obj(await c.get(`/files/${f.id}`))).toEqual(before);
  });
});
