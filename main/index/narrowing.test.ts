/**
 * The narrowed text engine (the search filters' path): on seeded random docs, queries and
 * kept sets (from almost none to almost all), every page of FastEngine.page with a
 * narrowing equals the naive reference's whole answer, filtered, cut into pages of the same
 * size (same ids, fragments and page tokens), with or without the list of kept numbers,
 * before and after overlay changes; operators-only pages (no text) give every kept object
 * in (name length, name, id) order; and the
 * compiled filter test (and mask) over the fact columns equals `passes` on every fact.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFilters, passes } from '../../app/filters/filters.js';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import { NaiveEngine, decodeSearchToken, encodeSearchToken, parseQuery, type SortKey } from '../../app/search/index.js';
import { prng } from '../../app/util/prng.js';
import { randomDocs, randomQuery } from '../../test/search/random-docs.js';
import { MirrorStore } from '../mirror/store.js';
import { openStateDb, type Db } from '../state/db.js';
import { buildBase, idOf } from './base-index.js';
import { numberOrder } from './number-order.js';
import type { Named, Narrowing } from './engine.js';
import { buildFromStore } from './build.js';
import { slotMask, slotMaskSteps, slotTest } from './fact-filter.js';
import { FastEngine } from './fast-engine.js';
import { narrowing } from './narrowing.js';
import { ObjectFacts } from './object-facts.js';

type Pages = { ids: string[]; fragments: unknown[]; pageToken: string }[];

function narrowedPages(fast: FastEngine, q: string, limit: number, narrow: Narrowing): Pages {
  const p = parseQuery(q);
  if (!p.ok) return [];
  const out: Pages = [];
  let after: SortKey | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const page = fast.page(p.query, limit, after, narrow);
    out.push({ ids: page.items.map((i) => i.id), fragments: page.items.map((i) => i.match.fragments), pageToken: page.pageToken });
    if (page.pageToken === '') break;
    after = decodeSearchToken(page.pageToken)!;
  }
  return out;
}

/** The naive engine's whole answer, filtered, then cut into pages. */
function naivePages(naive: NaiveEngine, q: string, limit: number, keep: (id: string) => boolean): Pages {
  const p = parseQuery(q);
  if (!p.ok) return [];
  const all = naive.page(p.query, 1_000_000, null).items.filter((i) => keep(i.id));
  const out: Pages = [];
  for (let from = 0; from === 0 || from < all.length; from += limit) {
    const items = all.slice(from, from + limit);
    const more = from + limit < all.length;
    out.push({
      ids: items.map((i) => i.id),
      fragments: items.map((i) => i.match.fragments),
      pageToken: more ? encodeSearchToken(items[items.length - 1]!.match.key) : '',
    });
  }
  return out;
}

describe('the text engine narrowed by the filters', () => {
  it('gives the pages of a naive filter over the naive search, with changes', () => {
    const r = prng(12);
    for (let round = 0; round < 6; round++) {
      const docs = randomDocs(r, 150 + Math.floor(r() * 150));
      const fast = new FastEngine(buildBase(docs, { frequent: [2, 8, 1000][round % 3]!, shortTop: [4, 16, 128][(round >> 1) % 3]! }));
      const naive = new NaiveEngine(docs);
      const live = new Map(docs.map((d) => [d.id, d]));
      const ids = docs.map((d) => d.id);
      for (let step = 0; step < 3; step++) {
        const share = [0.02, 0.3, 0.9][(round + step) % 3]!;
        const kept = new Set([...ids, ...Array.from({ length: 40 }, (_, i) => `new${round}-${step - 1}-${i}`)].filter(() => r() < share));
        const keep = (id: string): boolean => kept.has(id);
        const number = (o: number): boolean => keep(idOf(fast.base, o));
        // with the list of kept numbers too on every other step: the engine may then visit those instead (narrow-list)
        const numbers = (): Int32Array => Int32Array.from({ length: fast.base.n }, (_, o) => o).filter(number);
        // (and on the last step as built already: operators-only pages then read it from the start)
        const narrow: Narrowing =
          step % 2
            ? { number, id: keep }
            : step === 2
              ? { number, id: keep, numbers, numbersIfBuilt: numbers }
              : { number, id: keep, numbers };
        for (let i = 0; i < 40; i++) {
          const q = i % 4 === 0 ? ['a', 'b', 'im', 'img', 'e', '.', 'jpg', 'can'][i % 8]! : randomQuery(r);
          const limit = [1, 3, 20][i % 3]!;
          expect(narrowedPages(fast, q, limit, narrow), `${q} ${limit} ${share}`).toEqual(naivePages(naive, q, limit, keep));
        }
        // operators only: every kept object in (name length, name, id) order, page by page from the cursor
        // (with a walk budget of 0..5 numbers: the kept list of the narrowing, when it has one, takes over)
        for (const [limit, walk] of [
          [1, undefined],
          [7, 0],
          [50, undefined],
          [3, 5],
        ] as const) {
          const want = [...live.values()]
            .filter((d) => keep(d.id))
            .sort(numberOrder)
            .map((d) => d.id);
          const got: string[] = [];
          for (let after: Named | null = null, guard = 0; guard < 1000; guard++) {
            const page = fast.firstKept(limit + 1, after, narrow, walk);
            got.push(...page.slice(0, limit).map((x) => x.id));
            if (page.length <= limit) break;
            after = page[limit - 1]!;
          }
          expect(got, `operators only, ${limit} ${walk} ${share}`).toEqual(want);
        }
        const removed = ids.filter(() => r() < 0.05);
        fast.remove(removed);
        naive.remove(removed);
        for (const id of removed) live.delete(id);
        const changed = randomDocs(r, 40).map((d, i) => ({
          ...d,
          id: r() < 0.5 ? ids[Math.floor(r() * ids.length)]! : `new${round}-${step}-${i}`,
        }));
        fast.upsert(changed);
        naive.upsert(changed);
        for (const d of changed) live.set(d.id, d);
      }
    }
  }, 120_000);
});

describe('the compiled filter test', () => {
  let dir = '';
  let db: Db | undefined;
  afterEach(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('equals passes() on every fact, for every filter (as a test and as a mask); the kept numbers likewise', async () => {
    dir = mkdtempSync(join(tmpdir(), 'fact-filter-'));
    db = openStateDb(dir);
    const store = new MirrorStore(db);
    const r = prng(5);
    const T = (y: number, m: number): string => `${y}-${String(m).padStart(2, '0')}-0${1 + (m % 9)}T10:00:00Z`;
    store.setRoot({
      id: 'R',
      parentID: '',
      eTag: 'e',
      mimeType: FOLDER_MIME,
      name: 'R',
      mTime: T(2020, 1),
      cTime: T(2020, 1),
      hidden: 'none',
    });
    const objs: RemoteObject[] = [];
    const mimes = [FOLDER_MIME, 'image/jpeg', 'video/mp4', 'audio/mpeg', 'application/pdf', 'application/zip'];
    for (let i = 0; i < 600; i++) {
      const folders = objs.filter((o) => o.mimeType === FOLDER_MIME);
      const mimeType = i < 20 ? FOLDER_MIME : mimes[Math.floor(r() * mimes.length)]!;
      const o: RemoteObject = {
        id: `o${i}`,
        parentID: folders.length && r() < 0.8 ? folders[Math.floor(r() * folders.length)]!.id : 'R',
        eTag: 'e',
        mimeType,
        name: `n${i}.${['jpg', 'JPG', 'pdf', 'mp4', ''][i % 5]}`,
        mTime: T(2015 + (i % 8), 1 + (i % 12)),
        cTime: T(2015, 1),
        hidden: 'none',
      };
      if (mimeType !== FOLDER_MIME) o.size = Math.floor(r() * 4e6);
      if (r() < 0.3)
        o.image = {
          cameraMake: ['Canon', 'NIKON', ' Apple '][i % 3]!,
          cameraModel: 'X 1',
          date: `201${i % 10}:0${1 + (i % 9)}:03 10:00:00`,
        };
      if (r() < 0.2) o.extension = ['.JPG', 'raw', ''][i % 3]!;
      objs.push(o);
    }
    store.apply(objs.map((after) => ({ kind: 'added', after })));
    const facts = ObjectFacts.build(store);
    const queries = [
      'ext:jpg',
      'ext:pdf|raw',
      'ext:',
      'kind:photo|video',
      'kind:folder',
      'size:>1mb',
      'size:1mb..2mb',
      'date:2019',
      'date:2016-03..2018',
      'camera:canon',
      'camera:x 1',
      'in:""',
      'kind:photo size:<1mb date:>2016',
    ];
    const folders = facts.children('R').filter((id) => facts.get(id)!.kind === 'folder');
    for (const f of folders.slice(0, 5)) queries.push(`in:"${facts.pathOf(f)}"`, `in:"${facts.pathOf(f)}" kind:photo`);
    let some = 0;
    for (const q of queries) {
      const parsed = parseFilters(q);
      if (!parsed.ok) continue;
      const inFolders = parsed.query.filters.flatMap((f) => (f.op === 'in' ? [facts.folderAt(f.path)!] : []));
      const test = slotTest(facts, parsed.query.filters, inFolders);
      const mask = slotMask(facts, parsed.query.filters, inFolders);
      // in steps of 7 slots (the way it is built ahead): the same mask, and it did yield
      const steps = slotMaskSteps(facts, parsed.query.filters, inFolders, 7);
      let r = steps.next(),
        yields = 0;
      for (; !r.done; r = steps.next()) yields++;
      expect(r.value, q).toEqual(mask);
      if (parsed.query.filters.some((f) => f.op !== 'in' || f.path !== '')) expect(yields, q).toBeGreaterThan(0);
      for (const fact of facts.byId.values()) {
        const want = passes(fact, parsed.query.filters, inFolders, (id, folder) => facts.isUnder(id, folder));
        expect(test(facts.slotOfId(fact.id)!), `${q} ${fact.id}`).toBe(want);
        expect(mask[facts.slotOfId(fact.id)!] === 1, `mask: ${q} ${fact.id}`).toBe(want);
        if (want) some++;
      }
    }
    expect(some).toBeGreaterThan(500);

    // the narrowing over an engine's numbers: its kept list (built in one go, or ahead by
    // numbersReady) is exactly the numbers whose object passes, and follows the facts' changes
    const fast = new FastEngine(buildFromStore(store));
    const num = fast.numbering();
    for (const q of ['kind:photo|video', 'size:>1mb', `in:"${facts.pathOf(folders[0]!)}"`]) {
      const parsed = parseFilters(q);
      if (!parsed.ok) continue;
      const inFolders = parsed.query.filters.flatMap((f) => (f.op === 'in' ? [facts.folderAt(f.path)!] : []));
      const test = slotTest(facts, parsed.query.filters, inFolders);
      const want = (): number[] =>
        Array.from({ length: num.n }, (_, o) => o).filter((o) => {
          const s = facts.slotOfId(num.idAt(o));
          return s !== undefined && test(s);
        });
      const ahead = narrowing(num, facts, test, q, (chunk) => slotMaskSteps(facts, parsed.query.filters, inFolders, chunk));
      await ahead.numbersReady!();
      expect([...ahead.numbers!()], q).toEqual(want());
      expect([...narrowing(num, facts, test, q).numbers!()], q).toEqual(want());
      const gone = objs.find((o) => o.mimeType !== FOLDER_MIME && test(facts.slotOfId(o.id)!))!;
      store.apply([{ kind: 'removed', before: gone }]);
      facts.apply([{ kind: 'removed', before: gone }]);
      objs.splice(objs.indexOf(gone), 1);
      const after = narrowing(num, facts, slotTest(facts, parsed.query.filters, inFolders), q);
      expect([...after.numbers!()], `${q} after a removal`).toEqual(want());
    }
  });
});
