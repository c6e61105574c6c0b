/**
 * What real clients send that is sloppy, through HTTP: `order=asc;` (a FUSE client's every
 * listing), `fields=` with spaces or `+`, `+` for spaces in names, and an empty `ids=` that
 * lists the user's top-level storage roots.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingPage, RemoteObject } from '../../../app/model/remote-object.js';
import { startTestService, type TestService } from '../../../server/testing.js';
import { client } from './http.js';

let svc: TestService;
let c: ReturnType<typeof client>;
let dir = '';
beforeAll(async () => {
  svc = await startTestService();
  c = client(svc.baseUrl, svc.token());
  dir = svc.admin.createFolder('root', 'Lenient').id;
  for (const n of ['b.txt', 'a b.txt', 'c;.txt']) svc.admin.createFile(dir, n, { size: 3 });
});
afterAll(async () => {
  await svc.stop();
});

const names = (r: { body: unknown }): string[] => (r.body as ListingPage).files.map((f) => f.name);

describe('service lenience', () => {
  it('answers order=asc; (trailing semicolon) like order=asc, also on orderBy and limit', async () => {
    const strict = await c.list(dir, '&order=asc&orderBy=name');
    const sloppy = await c.call('GET', `/filesSearch/parents?ids=${dir}&pageToken=&order=asc;`);
    expect(sloppy.status).toBe(200);
    expect(names(sloppy)).toEqual(names(strict));
    const desc = await c.call('GET', `/filesSearch/parents?ids=${dir};&orderBy=name;&order=desc;&limit=2;`);
    expect(desc.status).toBe(200);
    expect(names(desc)).toEqual(names(strict).reverse().slice(0, 2));
    // a bad value is still a 400
    expect((await c.call('GET', `/filesSearch/parents?ids=${dir}&order=up;`)).status).toBe(400);
  });

  it('takes fields= separated by commas, spaces or +', async () => {
    for (const f of ['id,%20name', 'id+name', 'id%20name', ' id , name ;']) {
      const r = await c.call('GET', `/filesSearch/parents?ids=${dir}&fields=${f}`);
      expect(r.status).toBe(200);
      for (const o of (r.body as ListingPage).files) expect(Object.keys(o).sort()).toEqual(['id', 'name']);
    }
    const one = await c.call('GET', `/files/${dir}?fields=id+name`);
    expect(Object.keys(one.body as object).sort()).toEqual(['id', 'name']);
  });

  it('reads + as a space in names, and leaves a name ending with ; alone', async () => {
    const r = await c.call('GET', `/filesSearch/parentAndName?parentID=${dir}&name=a+b.txt`);
    expect(r.status).toBe(200);
    expect((r.body as RemoteObject).name).toBe('a b.txt');
    const s = await c.call('GET', `/filesSearch/parentAndName?parentID=${dir}&name=c%3B.txt`);
    expect((s.body as RemoteObject).name).toBe('c;.txt');
    const t = await c.call('GET', '/filesSearch/text?q=a+b');
    expect((t.body as { matches: { file: RemoteObject }[] }).matches.map((m) => m.file.name)).toContain('a b.txt');
  });

  it('lists the top-level storage roots for an empty ids=', async () => {
    const r = await c.call('GET', '/filesSearch/parents?ids=&pageToken=');
    expect(r.status).toBe(200);
    const p = r.body as ListingPage;
    expect(p.pageToken).toBe('');
    expect(p.files.map((f) => [f.id, f.parentID])).toEqual([[svc.admin.rootId(), '']]);
    const f = await c.call('GET', '/filesSearch/parents?ids=&fields=id');
    expect((f.body as ListingPage).files).toEqual([{ id: svc.admin.rootId() }]);
    // still: no ids parameter at all is a 400
    expect((await c.call('GET', '/filesSearch/parents')).status).toBe(400);
  });
});
