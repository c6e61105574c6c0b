/**
 * Search and listing quirks of real devices, against the real service in quirks mode: the
 * user's root in text-search results, a short last search page that still carries a
 * pageToken, an empty listing without a `files` key, lower-case header names. The mirror
 * walks completely and online search answers the same objects as the offline index.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchPage } from '../../../app/model/remote-object.js';
import { syncOnce } from '../../../main/mirror/sync.js';
import { startTestService, type TestService } from '../../../server/testing.js';
import { openMirror, type Mirror } from './helpers.js';

let svc: TestService;
let m: Mirror;
let empty = '';
beforeAll(async () => {
  svc = await startTestService({ quirks: 'root-in-search,short-last-page,no-files-key,lower-case-headers' });
  const docs = svc.admin.createFolder('root', 'Docs');
  for (let i = 0; i < 7; i++) svc.admin.createFile(docs.id, `demo-${i}.txt`);
  svc.admin.createFile('root', 'other.txt');
  empty = svc.admin.createFolder('root', 'Empty').id;
  m = await openMirror(svc);
});
afterAll(async () => {
  m?.close();
  await svc?.stop();
});

const raw = (path: string): Promise<{ headers: string[]; body: string }> =>
  new Promise((resolve, reject) => {
    http
      .get(`${svc.baseUrl}/sdk/v2${path}`, { headers: { authorization: `Bearer ${svc.token()}` } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ headers: res.rawHeaders.filter((_, i) => i % 2 === 0), body }));
      })
      .on('error', reject);
  });

async function all(fetchPage: (token: string) => Promise<SearchPage>): Promise<unknown[]> {
  const out: unknown[] = [];
  let token = '';
  for (let guard = 0; guard < 50; guard++) {
    const p = await fetchPage(token);
    out.push(...p.matches);
    if (p.pageToken === '') return out;
    token = p.pageToken;
  }
  throw new Error('search never ended');
}

describe('search and listing quirks', () => {
  it('the device really shows them', async () => {
    const s = await raw('/filesSearch/text?q=demo&limit=50');
    expect(s.headers).toEqual(expect.arrayContaining(['etag', 'content-type', 'content-length']));
    expect(s.headers).not.toContain('ETag');
    const body = JSON.parse(s.body) as { pageToken: string; matches: { file: { id: string } }[] };
    expect(body.matches[0]!.file.id).toBe(svc.admin.rootId());
    expect(body.pageToken).not.toBe('');
    expect(JSON.parse((await raw(`/filesSearch/parents?ids=${empty}&pageToken=`)).body)).not.toHaveProperty('files');
  });

  it('the mirror walks completely, and online search answers like the offline index', async () => {
    const s = await syncOnce(m.client, m.store, m.applier);
    expect(s.complete).toBe(true);
    expect(s.objects).toBe(10); // Docs, 7 files, other.txt, Empty
    for (const q of ['demo', 'dem', 'other', 'txt', 'demo 3']) {
      for (const limit of [undefined, 3, 7, 8]) {
        const o = limit === undefined ? {} : { limit };
        const online = await all((t) => m.client.searchText(q, { ...o, pageToken: t }));
        const offline = await all(async (t) => m.opened.index.search(q, { ...o, pageToken: t }));
        expect(online, `${q} limit ${limit}`).toEqual(offline);
      }
    }
  });
});
