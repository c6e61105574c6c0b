/** Every worked example of search.md, through HTTP, plus order, paging and bad queries. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../server/testing.js';
import { client } from './http.js';
import type { SearchPage } from '../../../app/model/remote-object.js';

let svc: TestService;
let c: ReturnType<typeof client>;
beforeAll(async () => {
  svc = await startTestService();
  c = client(svc.baseUrl, svc.token());
});
afterAll(async () => {
  await svc.stop();
});

const sp = (r: { body: unknown }) => r.body as SearchPage;

describe('search.md worked examples over HTTP', () => {
  const cases: [string, string, string, { index: number; length: number }[], { mimeType?: string; cameraMake?: string }?][] = [
    ['hello', 'ex1', 'hello.txt', [{ index: 0, length: 5 }]],
    ['hel', 'ex2', 'hello.txt', [{ index: 0, length: 5 }]],
    ['ello', 'ex3', 'hello.txt', [{ index: 1, length: 4 }]],
    ['2041', 'ex4', 'IMG_2041.JPG', [{ index: 4, length: 4 }]],
    ['rom', 'ex5', 'Holiday in Rome 2019.mp4', [{ index: 11, length: 4 }]],
    [
      'holiday rome',
      'ex6',
      'Holiday in Rome 2019.mp4',
      [
        { index: 0, length: 7 },
        { index: 11, length: 4 },
      ],
    ],
    ['"in rome"', 'ex7', 'Holiday in Rome 2019.mp4', [{ index: 8, length: 7 }]],
    [
      'aa',
      'ex8',
      'aaaa aa',
      [
        { index: 0, length: 4 },
        { index: 5, length: 2 },
      ],
    ],
  ];
  it.each(cases)('%s', async (q, folder, name, locations) => {
    const d = svc.admin.createFolder('root', folder);
    const f = svc.admin.createFile(d.id, name);
    const page = sp(await c.search(q, '&limit=1000'));
    const m = page.matches.find((x) => x.file.id === f.id);
    expect(m).toBeDefined();
    expect(m!.fragments[0]).toEqual({ text: name, locations });
  });

  it('x.wd.dir matches mimeType at {12,8}; canon matches cameraMake at {0,5}', async () => {
    const d = svc.admin.createFolder('root', 'ex-mime');
    const f = svc.admin.createFile(d.id, 'folderish', { mimeType: 'application/x.wd.dir' });
    const m = sp(await c.search('x.wd.dir')).matches.find((x) => x.file.id === f.id)!;
    expect(m.fragments).toEqual([{ text: 'application/x.wd.dir', locations: [{ index: 12, length: 8 }] }]);
    const img = svc.admin.createFile(d.id, 'IMG_0001.JPG', { image: { cameraMake: 'Canon', cameraModel: 'Canon EOS 5D' } });
    const mc = sp(await c.search('canon')).matches.find((x) => x.file.id === img.id)!;
    expect(mc.fragments).toEqual([
      { text: 'Canon', locations: [{ index: 0, length: 5 }] },
      { text: 'Canon EOS 5D', locations: [{ index: 0, length: 5 }] },
    ]);
    expect(mc.file.image).toEqual({ cameraMake: 'Canon', cameraModel: 'Canon EOS 5D' });
  });

  it('orders hello.txt, helloworld.txt, world hello.txt; never returns the root', async () => {
    const d = svc.admin.createFolder('root', 'order');
    for (const n of ['world hello.txt', 'helloworld.txt', 'hello.txt']) svc.admin.createFile(d.id, n);
    const names = sp(await c.search('hello', '&limit=1000'))
      .matches.filter((m) => m.file.parentID === d.id)
      .map((m) => m.file.name);
    expect(names).toEqual(['hello.txt', 'helloworld.txt', 'world hello.txt']);
    const all = sp(await c.search('demo', '&limit=1000')).matches;
    expect(all.some((m) => m.file.id === svc.admin.rootId())).toBe(false);
  });

  it('pages by cursor with limit, fields, and rejects bad queries', async () => {
    const d = svc.admin.createFolder('root', 'paging');
    for (let i = 0; i < 25; i++) svc.admin.createFile(d.id, `pagey ${String(i).padStart(2, '0')}.txt`);
    const first = sp(await c.search('pagey'));
    expect(first.matches.length).toBe(20);
    expect(first.pageToken).not.toBe('');
    const second = sp(await c.search('pagey', `&pageToken=${first.pageToken}`));
    expect(second.matches.length).toBe(5);
    expect(second.pageToken).toBe('');
    const ids = [...first.matches, ...second.matches].map((m) => m.file.id);
    expect(new Set(ids).size).toBe(25);
    const slim = sp(await c.search('pagey', '&limit=2&fields=id,name'));
    expect(Object.keys(slim.matches[0]!.file).sort()).toEqual(['id', 'name']);
    for (const bad of ['', '   ', '""']) expect((await c.search(bad)).status, `q=${bad}`).toBe(400);
    expect((await c.call('GET', '/filesSearch/text')).status).toBe(400);
    expect((await c.search('x'.repeat(1025))).status).toBe(400);
    expect((await c.search('pagey', '&pageToken=nonsense')).status).toBe(400);
    expect((await c.search('pagey', '&limit=-1')).status).toBe(400);
    const r = await c.search('pagey');
    expect((await c.call('GET', `/filesSearch/text?q=pagey`, { headers: { 'If-None-Match': r.headers.get('etag')! } })).status).toBe(304);
  });

  it('ignores case by folding code points; no normalization', async () => {
    const d = svc.admin.createFolder('root', 'fold');
    const a = svc.admin.createFile(d.id, 'ÉCOLE Straße.txt');
    const b = svc.admin.createFile(d.id, 'e\u0301cole.txt');
    const hits = sp(await c.search('école')).matches.map((m) => m.file.id);
    expect(hits).toContain(a.id);
    expect(hits).not.toContain(b.id);
    expect(sp(await c.search('STRASSE')).matches.map((m) => m.file.id)).not.toContain(a.id);
    expect(sp(await c.search('straße')).matches.map((m) => m.file.id)).toContain(a.id);
  });
});
