/**
 * The walk against a hostile NAS (a proxy of the test's own in front of the real service):
 * page-token cycles, endless pages, pages beyond childCount, a token equal to the one sent.
 * Each is bounded: the walk ends incomplete (nothing deleted) with a clear error.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../server/testing.js';
import { ServiceClient } from '../../main/client/service-client.js';
import { walk } from '../../main/mirror/walk.js';
import { syncOnce } from '../../main/mirror/sync.js';
import { openMirror } from '../integration/mirror/helpers.js';
import { jsonAnswer, realJson, startHostileNas, type HostileNas } from './hostile-nas.js';

let svc: TestService;
let nas: HostileNas;
let client: ServiceClient;
let folder = '';

beforeEach(async () => {
  svc = await startTestService();
  const root = svc.admin.rootId();
  const f = svc.admin.createFolder(root, 'F');
  folder = f.id;
  for (let i = 0; i < 3; i++) svc.admin.createFile(f.id, `x${i}`);
  svc.admin.createFile(root, 'top.txt');
  nas = await startHostileNas(svc.baseUrl);
  client = new ServiceClient({ baseUrl: nas.baseUrl, token: svc.token(), retries: 0 });
});
afterEach(async () => {
  client.close();
  await nas.stop();
  await svc.stop();
});

/** Answers every listing of F with `page(token, real first object)`. */
function serveF(page: (token: string, first: unknown) => { files: unknown[]; pageToken: string }): void {
  let first: unknown;
  nas.tamper = async (x, real) => {
    if (!x.path.endsWith('/filesSearch/parents') || x.query.get('ids') !== folder) return undefined;
    const token = x.query.get('pageToken') ?? '';
    // the real first page (a made-up token would be refused by the service)
    if (token === '') first = ((await realJson(real)).value['files'] as unknown[])[0];
    return jsonAnswer(page(token, first));
  };
}

const listingsOfF = (): number => nas.seen.filter((s) => s.includes('/filesSearch/parents') && s.includes(`ids=${folder}`)).length;

describe('hostile NAS: page tokens are bounded', () => {
  it('a cycle T1 -> T2 -> T1 fails the walk (incomplete) after 3 listings', async () => {
    serveF((t, first) =>
      t === '' ? { files: [first], pageToken: 'T1' } : t === 'T1' ? { files: [], pageToken: 'T2' } : { files: [], pageToken: 'T1' },
    );
    const r = await walk(client, { onPage: () => undefined });
    expect(r.complete).toBe(false);
    if (!r.complete) expect(r.error.message).toMatch(/repeats an earlier page token.*cycle/);
    expect(listingsOfF()).toBe(3);
  });

  it('a new token every page and no new object: given up after 2 idle pages', async () => {
    let n = 0;
    serveF((t, first) => ({ files: [first], pageToken: `N${++n}` }));
    const r = await walk(client, { onPage: () => undefined });
    expect(r.complete).toBe(false);
    if (!r.complete) expect(r.error.message).toContain('no new object in 2 pages');
    expect(listingsOfF()).toBe(3);
  });

  it('new objects on every page: no more pages than childCount allows', async () => {
    let n = 0;
    serveF((t, first) => {
      n++;
      return { files: [{ ...(first as object), id: `fake-${n}`, name: `fake-${n}` }], pageToken: `P${n}` };
    });
    const r = await walk(client, { onPage: () => undefined });
    expect(r.complete).toBe(false);
    // F's childCount is 3: 3 + 10 pages at most
    if (!r.complete) expect(r.error.message).toContain('childCount of 3 allows');
    expect(listingsOfF()).toBe(13);
  });

  it('a folder whose parent answered 304 is still bounded by its stored childCount (not the 2000-page fallback)', async () => {
    const m = await openMirror(svc, { baseUrl: nas.baseUrl, retries: 0 });
    try {
      expect((await syncOnce(m.client, m.store, m.applier)).complete).toBe(true);
      const rootListings = (): string[] =>
        nas.seen.filter((s) => s.includes('/filesSearch/parents') && s.includes(`ids=${svc.admin.rootId()}`));
      const before = listingsOfF();
      const rootBefore = rootListings().length;
      let n = 0;
      const rootAnswers: number[] = [];
      serveF((t, first) => {
        n++;
        return { files: [{ ...(first as object), id: `fake-${n}`, name: `fake-${n}` }], pageToken: `P${n}` };
      });
      const inner = nas.tamper!;
      nas.tamper = async (x, real) => {
        if (x.path.endsWith('/filesSearch/parents') && x.query.get('ids') === svc.admin.rootId()) {
          const a = await real();
          rootAnswers.push(a.status);
          return a;
        }
        return inner(x, real);
      };
      const s = await syncOnce(m.client, m.store, m.applier);
      expect(rootListings().length).toBe(rootBefore + 1);
      expect(rootAnswers).toEqual([304]); // the root's listing (where F's childCount comes from) was not sent again
      expect(s.complete).toBe(false);
      expect(s.error?.message).toContain('childCount of 3 allows');
      expect(listingsOfF() - before).toBe(13);
    } finally {
      m.close();
    }
  });

  it('a token equal to the one sent ends the folder, and says so', async () => {
    serveF((t, first) => (t === '' ? { files: [first], pageToken: 'SAME' } : { files: [], pageToken: 'SAME' }));
    const warnings: string[] = [];
    const r = await walk(client, { onPage: () => undefined, onWarning: (m) => warnings.push(m) });
    expect(r.complete).toBe(true);
    expect(warnings.some((w) => w.includes('answered with the page token it was sent'))).toBe(true);
  });

  it('client.pages() refuses a token cycle too', async () => {
    serveF((t, first) =>
      t === '' ? { files: [first], pageToken: 'T1' } : t === 'T1' ? { files: [], pageToken: 'T2' } : { files: [], pageToken: 'T1' },
    );
    const go = async (): Promise<void> => {
      for await (const p of client.pages(folder)) void p;
    };
    await expect(go()).rejects.toMatchObject({ code: 'BadResponse' });
  });
});
