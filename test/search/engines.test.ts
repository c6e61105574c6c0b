/**
 * The one property test of text search: on seeded random docs and queries, every page of
 * both engines (the offline index's FastEngine and the service's NameIndex + searchText)
 * equals the one naive reference (app/search/naive.ts), before and after changes. The same
 * generator feeds both sides, so a drift between them shows here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NaiveEngine, decodeSearchToken, parseQuery, type DocMatch, type ParsedQuery, type SortKey } from '../../app/search/index.js';
import { prng } from '../../app/util/prng.js';
import { buildBase } from '../../main/index/base-index.js';
import { FastEngine } from '../../main/index/fast-engine.js';
import { NameIndex } from '../../server/store/name-index.js';
import { candidateOf, searchText, searchable } from '../../server/search/text-search.js';
import { openServiceDb } from '../../server/store/schema.js';
import { Store } from '../../server/store/store.js';
import { addUser } from '../../server/store/users.js';
import { MIMES, pickOf, randomDocs, randomName, randomQuery } from './random-docs.js';

type Pager = (q: ParsedQuery, limit: number, after: SortKey | null) => { items: { id: string; match: DocMatch }[]; pageToken: string };

/** Every page of a query, as comparable data. */
function allPages(page: Pager, text: string, limit: number): unknown[] {
  const p = parseQuery(text);
  if (!p.ok) return [p.message];
  const out: unknown[] = [];
  let after: SortKey | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const pg = page(p.query, limit, after);
    out.push(
      pg.items.map((i) => [i.id, i.match.fragments]),
      pg.pageToken,
    );
    if (pg.pageToken === '') break;
    after = decodeSearchToken(pg.pageToken)!;
  }
  return out;
}

const LIMITS = [1, 3, 20];

describe('both search engines equal the one naive reference', () => {
  it('the offline index: random docs, queries and pages, with changes in the overlay', () => {
    const r = prng(42);
    for (let round = 0; round < 6; round++) {
      const docs = randomDocs(r, 120 + Math.floor(r() * 120));
      const fast = new FastEngine(buildBase(docs, { frequent: [2, 8, 1000][round % 3]!, shortTop: [4, 16, 128][(round >> 1) % 3]! }));
      const naive = new NaiveEngine(docs);
      for (let step = 0; step < 3; step++) {
        for (let i = 0; i < 50; i++) {
          const q = randomQuery(r);
          const limit = pickOf(r)(LIMITS);
          expect(
            allPages((...a) => fast.page(...a), q, limit),
            q,
          ).toEqual(allPages((...a) => naive.page(...a), q, limit));
        }
        // changes: remove some, update some, add some
        const ids = docs.map((d) => d.id);
        const removed = ids.filter(() => r() < 0.05);
        fast.remove(removed);
        naive.remove(removed);
        const changed = randomDocs(r, 30).map((d, i) => ({
          ...d,
          id: r() < 0.5 ? ids[Math.floor(r() * ids.length)]! : `new${round}-${step}-${i}`,
        }));
        fast.upsert(changed);
        naive.upsert(changed);
        expect(fast.size).toBe(naive.size);
      }
    }
  }, 120_000);

  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('the service: random objects, queries and pages, with renames, moves, mime changes and deletes', () => {
    const r = prng(9);
    const pick = pickOf(r);
    for (let round = 0; round < 3; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'nas-engines-'));
      dirs.push(dir);
      const store = new Store(openServiceDb(dir));
      const user = addUser(store, 'u');
      const folders = Array.from(
        { length: 6 },
        (_, i) => store.create(user.root, { name: `F${i} ${pick(['img', 'Canon', 'é'])}`, dir: true }).row,
      );
      for (const d of randomDocs(r, 120 + Math.floor(r() * 120))) {
        const image =
          d.cameraMake === undefined
            ? undefined
            : d.cameraModel === undefined
              ? { cameraMake: d.cameraMake }
              : { cameraMake: d.cameraMake, cameraModel: d.cameraModel };
        try {
          store.create(pick(folders), { name: d.name, dir: false, mime: d.mimeType, ...(image ? { image } : {}) });
        } catch {
          /* a name clash in that folder, or "." */
        }
      }
      // a second NameIndex that merges its delta often (the store's own one rarely does)
      const small = new NameIndex(store.index, { deltaMax: 17, slack: 30 });
      const ix = store.index;
      const idOf = (rows: { value: number; match: DocMatch }[]) => rows.map((i) => ({ id: ix.ids[i.value]!, match: i.match }));
      const service =
        (names: NameIndex): Pager =>
        (q, limit, after) => {
          const res = searchText(ix, names, user.id, q, limit, after);
          return { items: idOf(res.items), pageToken: res.pageToken };
        };
      const reference = (): Pager => {
        const docs = [];
        for (const row of ix.rows()) if (searchable(ix, user.id, row)) docs.push(candidateOf(ix, row).doc);
        const naive = new NaiveEngine(docs);
        return (...a) => naive.page(...a);
      };
      for (let step = 0; step < 3; step++) {
        const naive = reference();
        for (let i = 0; i < 40; i++) {
          const q = randomQuery(r);
          const limit = pick(LIMITS);
          const want = allPages(naive, q, limit);
          expect(allPages(service(store.names), q, limit), q).toEqual(want);
          expect(allPages(service(small), q, limit), q).toEqual(want);
        }
        const rows = [...ix.rows()].filter((row) => !ix.isRoot(row) && !folders.includes(row));
        for (const row of rows) {
          const x = r();
          try {
            if (x < 0.08) store.patch(row, { name: randomName(r) });
            else if (x < 0.12) store.patch(row, { parent: pick(folders) });
            else if (x < 0.16) store.patch(row, { mime: pick(MIMES) });
            else if (x < 0.2) store.remove(row);
          } catch {
            /* a name clash */
          }
        }
        for (let i = 0; i < 20; i++) {
          try {
            store.create(pick(folders), { name: randomName(r), dir: false, mime: pick(MIMES) });
          } catch {
            /* clash */
          }
        }
      }
      store.db.close();
    }
  }, 120_000);
});
