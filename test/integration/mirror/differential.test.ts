/**
 * The heart: random tricky libraries in the REAL service, mirrored, then thousands of
 * random queries. The offline index must answer exactly like the service: same objects,
 * order, fragments, page tokens (every page followed), errors; and the same for listings
 * and parentAndName. Checked after the first walk, after remote changes (overlay), and
 * after a restart (index loaded from disk).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../app/errors.js';
import type { RemoteObject } from '../../../app/model/remote-object.js';
import type { ServiceClient } from '../../../main/client/service-client.js';
import type { OfflineIndex } from '../../../main/index/offline-index.js';
import { openOfflineIndex } from '../../../main/index/open-index.js';
import { syncOnce } from '../../../main/mirror/sync.js';
import { startTestService, type TestService } from '../../../server/testing.js';
import { buildRandomLibrary, openMirror, pick, rng, type Mirror } from './helpers.js';

const QUERY_CHARS = [
  'a',
  'A',
  'b',
  'o',
  'i',
  'İ',
  'ı',
  'I',
  'é',
  'e',
  '\u0301',
  'ß',
  's',
  'σ',
  'Σ',
  'ς',
  'м',
  'М',
  '家',
  '😀',
  '_',
  '.',
  '-',
  ' ',
  '(',
  '#',
  '%',
  '&',
  '+',
  '1',
  '2',
  '0',
  '/',
  'x',
  'j',
  'p',
  'g',
  '"',
  'k',
  'K',
  'å',
  'Å',
  '\u00a0',
  '·',
];

/** A random query: slices of real names (by code point), random characters, quotes, several terms. */
function randomQuery(r: () => number, names: readonly string[]): string {
  const terms = r() < 0.7 ? 1 : 2 + Math.floor(r() * 2);
  const out: string[] = [];
  for (let i = 0; i < terms; i++) {
    const len = 1 + Math.floor(r() * 8);
    let t: string;
    if (r() < 0.65 && names.length) {
      const cps = [...pick(r, names)];
      const at = Math.floor(r() * cps.length);
      t = cps.slice(at, at + len).join('');
      const c = r();
      if (c < 0.25) t = t.toUpperCase();
      else if (c < 0.5) t = t.toLowerCase();
    } else {
      t = Array.from({ length: len }, () => pick(r, QUERY_CHARS)).join('');
    }
    out.push(r() < 0.15 ? `"${t}"` : t);
  }
  return out.join(r() < 0.1 ? '  ' : ' ');
}

async function pagesOf(fetch: (token: string) => Promise<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  let token = '';
  for (let guard = 0; guard < 200; guard++) {
    let page: { pageToken: string };
    try {
      page = (await fetch(token)) as { pageToken: string };
    } catch (e) {
      if (e instanceof AppError) {
        out.push({ error: e.code });
        return out;
      }
      throw e;
    }
    out.push(page);
    if (page.pageToken === '') return out;
    token = page.pageToken;
  }
  return out;
}

async function compareQueries(
  client: ServiceClient,
  index: OfflineIndex,
  seed: number,
  count: number,
  names: readonly string[],
): Promise<number> {
  const r = rng(seed);
  let nonEmpty = 0;
  for (let i = 0; i < count; i++) {
    const q = randomQuery(r, names);
    const limit = r() < 0.3 ? undefined : 1 + Math.floor(r() * 25);
    const opts = limit === undefined ? {} : { limit };
    const online = await pagesOf((t) => client.searchText(q, { ...opts, pageToken: t }));
    const offline = await pagesOf(async (t) => index.search(q, { ...opts, pageToken: t }));
    expect(offline, `query ${JSON.stringify(q)} limit ${limit}`).toEqual(online);
    if (((online[0] as { matches?: unknown[] }).matches?.length ?? 0) > 0) nonEmpty++;
  }
  return nonEmpty;
}

async function compareListings(client: ServiceClient, index: OfflineIndex, folders: readonly string[], seed: number): Promise<void> {
  const r = rng(seed);
  for (const f of ['root', ...folders.slice(0, 40)]) {
    const orderBy = pick(r, [undefined, 'name', 'mTime', 'size', 'cTime'] as const);
    const order = pick(r, [undefined, 'asc', 'desc'] as const);
    const limit = 1 + Math.floor(r() * 7);
    const o = { limit, ...(orderBy ? { orderBy } : {}), ...(order ? { order } : {}) };
    const online = await pagesOf((t) => client.list(f, { ...o, pageToken: t }));
    const offline = await pagesOf(async (t) => index.list(f, { ...o, pageToken: t }));
    expect(offline, `listing ${f} ${JSON.stringify(o)}`).toEqual(online);
    const files = (online as { files?: RemoteObject[] }[]).flatMap((p) => p.files ?? []);
    for (const x of files.slice(0, 3)) {
      expect(index.parentAndName(f, x.name)).toEqual(await client.parentAndName(f, x.name));
      expect(index.get(x.id)).toEqual(await client.get(x.id));
    }
    await expect(client.parentAndName(f, 'no such name \u0000x'.slice(0, 12))).rejects.toMatchObject({ code: 'NotFound' });
    expect(() => index.parentAndName(f, 'no such name \u0000x'.slice(0, 12))).toThrow(expect.objectContaining({ code: 'NotFound' }));
  }
}

describe('offline index vs the real service (differential)', () => {
  let svc: TestService;
  let m: Mirror;
  let lib: { folders: string[]; files: string[] };
  const allNames = (): string[] => [...m.store.all()].map((o) => o.name);

  beforeAll(async () => {
    svc = await startTestService();
    lib = buildRandomLibrary(svc, 7, 1500);
    m = await openMirror(svc);
    const s = await syncOnce(m.client, m.store, m.applier);
    expect(s.complete).toBe(true);
  }, 120_000);
  afterAll(async () => {
    m?.close();
    await svc?.stop();
  });

  it('answers 1200 random queries exactly like the service, every page', async () => {
    const nonEmpty = await compareQueries(m.client, m.opened.index, 101, 1200, allNames());
    expect(nonEmpty).toBeGreaterThan(400);
  }, 300_000);

  it('lists and looks up names exactly like the service', async () => {
    await compareListings(m.client, m.opened.index, lib.folders, 5);
  }, 120_000);

  it('checks requests like the service (one code: app/search/requests.ts)', async () => {
    const f = lib.folders[0]!;
    // 150 ids naming one folder are one id: duplicates are dropped before the 100-id check
    const dup = Array.from({ length: 150 }, () => f);
    expect(m.opened.index.list(dup)).toEqual(await m.client.list(dup));
    const many = Array.from({ length: 101 }, (_, i) => lib.folders[i % lib.folders.length]! + (i < lib.folders.length ? '' : `x${i}`));
    const code = async (p: Promise<unknown> | (() => unknown)): Promise<string> => {
      try {
        await (typeof p === 'function' ? p() : p);
      } catch (e) {
        return (e as { code?: string }).code ?? 'thrown';
      }
      return 'ok';
    };
    const cases: [string, () => unknown, () => Promise<unknown>][] = [
      ['101 distinct ids', () => m.opened.index.list(many), () => m.client.list(many)],
      ['bad listing token', () => m.opened.index.list(f, { pageToken: '!' }), () => m.client.list(f, { pageToken: '!' })],
      ['limit 0', () => m.opened.index.list(f, { limit: 0 }), () => m.client.list(f, { limit: 0 })],
      ['empty query', () => m.opened.index.search('""'), () => m.client.searchText('""')],
      ['bad search token', () => m.opened.index.search('a', { pageToken: '!' }), () => m.client.searchText('a', { pageToken: '!' })],
    ];
    for (const [what, offline, online] of cases) expect([what, await code(offline)]).toEqual([what, await code(online())]);
    expect(await code(() => m.opened.index.list(many))).toBe('BadRequest');
  }, 60_000);

  it('still agrees after remote renames, moves and deletes (incremental) and after a restart', async () => {
    const r = rng(99);
    for (let i = 0; i < 60; i++) {
      const id = pick(r, lib.files);
      const cur = svc.admin.get(id);
      if (!cur) continue;
      const c = r();
      try {
        if (c < 0.4) await m.client.patch(id, { name: `${cur.name.slice(0, 20)} renamed ${i}.txt` });
        else if (c < 0.7) await m.client.patch(id, { parentID: pick(r, lib.folders) });
        else await m.client.delete(id);
      } catch (e) {
        if (!(e instanceof AppError) || !['Conflict', 'NotFound', 'BadRequest'].includes(e.code)) throw e;
      }
    }
    await svc.admin.drainDeletes();
    const s = await syncOnce(m.client, m.store, m.applier);
    expect(s.complete).toBe(true);
    expect(m.opened.engine.overlaySize).toBeGreaterThan(0);
    await compareQueries(m.client, m.opened.index, 202, 500, allNames());
    await m.opened.save();
    const reopened = await openOfflineIndex(m.store, m.dir);
    expect(reopened.source).toBe('loaded');
    await compareQueries(m.client, reopened.index, 303, 300, allNames());
    await compareListings(m.client, reopened.index, lib.folders, 6);
  }, 300_000);
});
