import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseQuery } from '../../app/search/query.js';
import { decodeSearchToken } from '../../app/search/page-token.js';
import { loadDemo } from '../demo/load.js';
import { openServiceDb } from '../store/schema.js';
import { Store } from '../store/store.js';
import { addUser, grant } from '../store/users.js';
import { NaiveEngine } from '../../app/search/naive.js';
import type { SortKey } from '../../app/search/order.js';
import { candidateOf, searchText, searchable, type SearchResult } from './text-search.js';
import { NameIndex } from '../store/name-index.js';

let dir: string;
let store: Store;
let demoId: number;
let bobId: number;

const q = (s: string) => {
  const r = parseQuery(s);
  if (!r.ok) throw new Error(r.message);
  return r.query;
};
const view = (r: SearchResult) => ({
  ids: r.items.map((i) => store.index.ids[i.value]),
  frags: r.items.map((i) => i.match.fragments),
  token: r.pageToken,
});

/** The one reference (app/search/naive.ts) over what each user may see; cleared when the store changes. */
const references = new Map<number, NaiveEngine>();
function reference(user: number): NaiveEngine {
  let e = references.get(user);
  if (!e) {
    const docs = [];
    for (const r of store.index.rows()) if (searchable(store.index, user, r)) docs.push(candidateOf(store.index, r).doc);
    references.set(user, (e = new NaiveEngine(docs)));
  }
  return e;
}

/** Walks all pages of the fast path and the reference and compares every page. */
function compareAll(user: number, text: string, limit: number, maxPages = 40, names: NameIndex = store.names): number {
  let after: SortKey | null = null;
  let total = 0;
  const naive = reference(user);
  for (let page = 0; page < maxPages; page++) {
    const fast = searchText(store.index, names, user, q(text), limit, after);
    const slow = naive.page(q(text), limit, after);
    expect(view(fast), `${text} page ${page}`).toEqual({
      ids: slow.items.map((i) => i.id),
      frags: slow.items.map((i) => i.match.fragments),
      token: slow.pageToken,
    });
    total += fast.items.length;
    if (fast.pageToken === '') return total;
    after = decodeSearchToken(fast.pageToken)!;
  }
  return total;
}

const QUERIES = [
  'i',
  'e',
  'img',
  'jpg',
  'IMG_1',
  'canon',
  'apple',
  'image',
  'image/',
  'x.service.dir',
  'holiday rome',
  '"in rome"',
  'о',
  'ö',
  '20',
  '2019',
  '.',
  ' .jpg',
  'screenshot png',
  'zzzz',
  'a b c',
  'ag',
  '🎉',
  'mp3 love',
  'ILCE',
  'pdf',
  'jp',
  'pd',
  's',
  'x',
  'ex',
  'c',
  '-',
  '(',
  'pg',
  'sh',
  'ot',
  'ro',
  'g.',
  '_2',
];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'nas-search-'));
  store = new Store(openServiceDb(dir));
  loadDemo(store, 'demo', { objects: 4000, seed: 7 });
  demoId = 1;
  const bob = addUser(store, 'bob');
  bobId = bob.id;
  const some = store.db.prepare("SELECT id FROM objects WHERE dir = 1 AND name LIKE 'Holiday%' LIMIT 1").get() as { id: string };
  grant(store, 'bob', some.id, 'ReadFile');
});
afterAll(() => {
  store.db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the service's text search equals the one reference on the demo library", () => {
  it.each(QUERIES)('%s', (text) => {
    compareAll(demoId, text, 1, 8);
    compareAll(demoId, text, 20);
    compareAll(demoId, text, 300, 3);
    compareAll(bobId, text, 5);
  });

  it('stays equal after renames, moves, mime changes and deletes', () => {
    const small = new NameIndex(store.index, { deltaMax: 37, slack: 50 });
    const rows = store.db.prepare('SELECT row, dir FROM objects WHERE parent <> 0 ORDER BY row').all() as { row: number; dir: number }[];
    const folders = rows.filter((r) => r.dir === 1).map((r) => r.row);
    let n = 0;
    for (const r of rows) {
      if (r.dir === 1 || r.row % 7 !== 0) continue;
      n++;
      if (n % 4 === 0) store.patch(r.row, { name: `img renamed ${r.row}.JPG` });
      else if (n % 4 === 1) store.patch(r.row, { parent: folders[r.row % folders.length]!, name: `moved ${r.row} Canon.txt` });
      else if (n % 4 === 2) store.patch(r.row, { mime: 'image/x-test' });
      else store.remove(r.row);
    }
    // a folder being deleted vanishes with its subtree
    const busy = store.db
      .prepare(
        'SELECT parent FROM objects WHERE parent IN (SELECT row FROM objects WHERE dir = 1 AND parent <> 0) GROUP BY parent ORDER BY count(*) DESC LIMIT 1',
      )
      .get() as { parent: number };
    expect(store.remove(busy.parent)).toBe('async');
    references.clear();
    // every third query (random changes on random objects: test/search/engines.test.ts)
    for (const text of QUERIES.filter((_, i) => i % 3 === 0).concat(['renamed', 'moved canon', 'x-test', 'jp', 's'])) {
      compareAll(demoId, text, 9);
      compareAll(demoId, text, 9, 40, small);
    }
  }, 120_000);
});
