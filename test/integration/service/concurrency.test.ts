/** Races on one If-Match, and listing pages walked while another client renames and deletes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../server/testing.js';
import { client } from './http.js';
import type { ListingPage } from '../../../app/model/remote-object.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
});

describe('concurrency', () => {
  it('two clients racing the same If-Match: exactly one 204, one 412', async () => {
    const a = client(svc.baseUrl, svc.token());
    const b = client(svc.baseUrl, svc.token());
    for (let round = 0; round < 20; round++) {
      const f = svc.admin.createFile('root', `race-${round}.txt`);
      const [ra, rb] = await Promise.all([
        a.patch(f.id, { name: `race-${round}-a.txt` }, { 'If-Match': f.eTag }),
        b.patch(f.id, { name: `race-${round}-b.txt` }, { 'If-Match': f.eTag }),
      ]);
      expect([ra.status, rb.status].sort()).toEqual([204, 412]);
      const winner = ra.status === 204 ? 'a' : 'b';
      expect(svc.admin.get(f.id)!.name).toBe(`race-${round}-${winner}.txt`);
      expect(svc.admin.get(f.id)!.eTag).toBe('"BA"');
    }
    const f = svc.admin.createFile('root', 'race-del.txt');
    const [d1, d2] = await Promise.all([a.del(f.id, { 'If-Match': f.eTag }), b.patch(f.id, { name: 'gone.txt' }, { 'If-Match': f.eTag })]);
    expect([d1.status, d2.status].filter((s) => s === 412 || s === 404).length).toBe(1);
  });

  it('a paged walk returns every item that existed throughout exactly once, while others are renamed and deleted', async () => {
    const d = svc.admin.createFolder('root', 'walk');
    const stable: string[] = [];
    const churn: { id: string; name: string }[] = [];
    for (let i = 0; i < 300; i++) {
      const f = svc.admin.createFile(d.id, `f${String(i).padStart(4, '0')}.txt`);
      if (i % 3 === 0) churn.push({ id: f.id, name: f.name });
      else stable.push(f.id);
    }
    const reader = client(svc.baseUrl, svc.token());
    const writer = client(svc.baseUrl, svc.token());
    for (const order of ['&orderBy=name', '&orderBy=name&order=desc', '&orderBy=mTime', '&orderBy=size&order=desc']) {
      const seen: string[] = [];
      let token = '';
      let step = 0;
      do {
        const p = (await reader.list(d.id, `${order}&limit=17&pageToken=${token}`)).body as ListingPage;
        seen.push(...p.files.map((f) => f.id));
        token = p.pageToken;
        // between pages: rename some churn items across the alphabet, delete and re-create others
        for (let k = 0; k < 3; k++) {
          const c = churn[(step * 3 + k) % churn.length]!;
          const fresh = svc.admin.get(c.id);
          if (!fresh) continue;
          if ((step + k) % 2 === 0)
            await writer.patch(c.id, {
              name: `${String.fromCharCode(97 + ((step * 7 + k) % 26))}-${c.id}.txt`,
              mTime: new Date(Date.UTC(2000 + step, 0, 1)).toISOString(),
            });
          else {
            await writer.del(c.id);
            svc.admin.createFile(d.id, `new-${step}-${k}-${c.id}.txt`);
          }
        }
        step++;
      } while (token);
      for (const id of stable) expect(seen.filter((x) => x === id).length, `${order} ${id}`).toBe(1);
    }
  });
});
