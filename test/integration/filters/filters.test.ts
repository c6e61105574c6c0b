/**
 * Search operators against the REAL service: a random library (plus dated photos) is
 * mirrored; queries without operators must answer exactly like the service (every page),
 * and queries with operators must give exactly the service's answer for their plain text,
 * in its order, narrowed by an oracle written here from the service's own objects; with
 * operators only, every object that passes in (name length, name, id) order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOLDER_MIME, type RemoteObject, type SearchPage } from '../../../app/model/remote-object.js';
import { quoteOperator } from '../../../app/filters/filters.js';
import { filtersReady, searchFiltered } from '../../../main/index/filtered-search.js';
import { numberOrder } from '../../../main/index/number-order.js';
import { syncOnce } from '../../../main/mirror/sync.js';
import { startTestService, type TestService } from '../../../server/testing.js';
import { buildRandomLibrary, openMirror, pick, rng, serviceTree, type Mirror } from '../mirror/helpers.js';

const MB = 1024 * 1024;
/** Folder names the in:"..." quoting must carry both ways. */
const ODD_NAMES = ['say "hi"', 'back\\slash \\', '"', ' padded ', 'Fotos Ärger é', '写真 📷'];

async function allPages(get: (t: string) => Promise<SearchPage> | SearchPage): Promise<SearchPage[]> {
  const out: SearchPage[] = [];
  let t = '';
  for (let guard = 0; guard < 500; guard++) {
    const p = await get(t);
    out.push(p);
    if (p.pageToken === '') return out;
    t = p.pageToken;
  }
  throw new Error('too many pages');
}

describe('search operators narrow the service answer offline', () => {
  let svc: TestService;
  let m: Mirror;
  let tree: Map<string, RemoteObject>;
  let photos2019: string;

  beforeAll(async () => {
    svc = await startTestService();
    buildRandomLibrary(svc, 12, 700);
    const pf = svc.admin.createFolder('root', 'Photos');
    const y = svc.admin.createFolder(pf.id, '2019');
    photos2019 = y.id;
    for (let i = 0; i < 40; i++) {
      const month = String(1 + (i % 12)).padStart(2, '0');
      svc.admin.createFile(i % 2 ? y.id : pf.id, `holiday ${i}.jpg`, {
        mimeType: 'image/jpeg',
        size: (i + 1) * MB,
        image: { cameraMake: i % 3 ? 'Canon' : 'NIKON', cameraModel: 'X', date: `2019:${month}:0${1 + (i % 9)} 10:00:00` },
      });
    }
    for (const [k, name] of ODD_NAMES.entries()) {
      const d = svc.admin.createFolder(pf.id, name);
      svc.admin.createFile(svc.admin.createFolder(d.id, name).id, `odd ${k}.txt`, { mimeType: 'text/plain', size: k + 1 });
    }
    m = await openMirror(svc);
    expect((await syncOnce(m.client, m.store, m.applier)).complete).toBe(true);
    tree = await serviceTree(m.client);
  }, 120_000);
  afterAll(async () => {
    m?.close();
    await svc?.stop();
  });

  const under = (id: string, folder: string): boolean => {
    for (let cur = tree.get(id)?.parentID; cur !== undefined; cur = tree.get(cur)?.parentID) if (cur === folder) return true;
    return false;
  };
  const day = (o: RemoteObject): number => {
    const s = o.image?.date ?? o.mTime;
    return Number(s.slice(0, 10).replace(/[:-]/g, ''));
  };
  const ext = (o: RemoteObject): string =>
    o.mimeType === FOLDER_MIME || o.name.lastIndexOf('.') <= 0 ? '' : o.name.slice(o.name.lastIndexOf('.') + 1).toLowerCase();
  const ORACLES: [string, (o: RemoteObject) => boolean][] = [
    ['ext:jpg', (o) => ext(o) === 'jpg'],
    ['ext:txt|pdf', (o) => ['txt', 'pdf'].includes(ext(o))],
    ['kind:photo', (o) => o.mimeType.startsWith('image/')],
    ['kind:folder', (o) => o.mimeType === FOLDER_MIME],
    ['size:>5mb', (o) => o.mimeType !== FOLDER_MIME && (o.size ?? 0) > 5 * MB],
    ['size:1mb..3mb', (o) => o.mimeType !== FOLDER_MIME && (o.size ?? 0) >= MB && (o.size ?? 0) <= 3 * MB],
    ['date:2019-05..2019-08', (o) => day(o) >= 20190501 && day(o) <= 20190831],
    ['date:2020', (o) => day(o) >= 20200101 && day(o) <= 20201231],
    ['camera:canon', (o) => `${o.image?.cameraMake ?? ''} ${o.image?.cameraModel ?? ''}`.toLowerCase().includes('canon')],
    ['in:"Photos/2019"', (o) => under(o.id, photos2019)],
  ];

  it('without operators: exactly the service, every page', async () => {
    const r = rng(3);
    const names = [...tree.values()].map((o) => o.name);
    for (let i = 0; i < 60; i++) {
      const n = pick(r, names);
      const q =
        [...n]
          .slice(0, 1 + Math.floor(r() * 4))
          .join('')
          .trim() || 'a';
      const limit = 1 + Math.floor(r() * 20);
      const online = await allPages((t) => m.client.searchText(q, { limit, pageToken: t }));
      const offline = await allPages((t) => {
        const { offlineOnly, filters, ...page } = searchFiltered(m.opened.index, q, { limit, pageToken: t });
        expect(offlineOnly).toBe(false);
        expect(filters).toEqual([]);
        return page;
      });
      expect(offline, q).toEqual(online);
    }
  }, 120_000);

  it('with operators: the service answer for the text, in its order, narrowed exactly; every page', async () => {
    const r = rng(4);
    let nonEmpty = 0;
    for (let i = 0; i < 80; i++) {
      const [a, fa] = pick(r, ORACLES);
      const [b, fb] = r() < 0.4 ? pick(r, ORACLES) : ['', (): boolean => true];
      const text = pick(r, ['a', 'holiday', 'img', 'e', 'o', '']);
      const q = `${text} ${a} ${b}`.trim();
      const limit = 1 + Math.floor(r() * 15);
      // every other query after filtersReady, as the API calls it (what it builds ahead is then read)
      if (i % 2) await filtersReady(m.opened.index, q);
      // both ways: candidates read and filtered (fewMax 0), and the text matched on the few that pass the filters
      const [few, viaCandidates] = await Promise.all(
        [undefined, 0].map(async (fewMax) =>
          (
            await allPages((t) => {
              const p = searchFiltered(m.opened.index, q, { limit, pageToken: t, ...(fewMax === undefined ? {} : { fewMax }) });
              expect(p.offlineOnly).toBe(true);
              return p;
            })
          ).flatMap((p) => p.matches),
        ),
      );
      expect(few, q).toEqual(viaCandidates); // same objects, order and fragments
      const got = few!.map((x) => x.file.id);
      let want: string[];
      if (text) {
        const online = await allPages((t) => m.client.searchText(text, { limit: 1000, pageToken: t }));
        want = online
          .flatMap((p) => p.matches.map((x) => x.file))
          .filter((o) => fa(o) && fb(o))
          .map((o) => o.id);
      } else {
        // operators only: rule 7's order with no term (name length, name by code point, id)
        want = [...tree.values()]
          .filter((o) => fa(o) && fb(o))
          .sort(numberOrder)
          .map((o) => o.id);
      }
      expect(got, q).toEqual(want);
      if (want.length) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(30);
  }, 120_000);

  it('keeps the service fragments for the text and says what is wrong with a bad operator', () => {
    const p = searchFiltered(m.opened.index, 'holiday camera:nikon in:Photos', { limit: 50 });
    expect(p.matches.length).toBeGreaterThan(0);
    for (const x of p.matches) expect(x.fragments[0]!.locations.length).toBeGreaterThan(0);
    expect(() => searchFiltered(m.opened.index, 'a size:huge')).toThrow(/size:huge is not a size/);
    expect(() => searchFiltered(m.opened.index, 'a kind:spreadsheet')).toThrow(/not a kind/);
    expect(() => searchFiltered(m.opened.index, 'a in:"No/Such"')).toThrow(/no such folder/);
    // quoted text is never an operator: the service's answer
    expect(searchFiltered(m.opened.index, '"ext:jpg"').offlineOnly).toBe(false);
  });

  it('finds folders whose names hold ", \\, spaces or non-ASCII through a quoted in:', () => {
    for (const [k, name] of ODD_NAMES.entries()) {
      const q = `odd ${quoteOperator('in', `Photos/${name}/${name}`)}`;
      expect(
        searchFiltered(m.opened.index, q, { limit: 50 }).matches.map((x) => x.file.name),
        q,
      ).toEqual([`odd ${k}.txt`]);
      expect(
        searchFiltered(m.opened.index, quoteOperator('in', `Photos/${name}`), { limit: 50 })
          .matches.map((x) => x.file.name)
          .sort(),
        name,
      ).toEqual([name, `odd ${k}.txt`].sort());
    }
  });

  it('follows remote changes (facts kept up to date)', async () => {
    const before = searchFiltered(m.opened.index, 'holiday in:"Photos/2019"', { limit: 1000 }).matches.length;
    const moved = [...tree.values()].find((o) => o.name === 'holiday 0.jpg')!;
    await m.client.patch(moved.id, { parentID: photos2019 });
    expect((await syncOnce(m.client, m.store, m.applier)).complete).toBe(true);
    expect(searchFiltered(m.opened.index, 'holiday in:"Photos/2019"', { limit: 1000 }).matches.length).toBe(before + 1);
  }, 60_000);
});
