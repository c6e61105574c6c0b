/**
 * Search with operators (app/filters): the plain text goes to the offline index exactly as
 * the service would answer it, and the filters keep only the matches that pass, in the
 * service's order. Without operators this IS `OfflineIndex.search` (same objects, order,
 * fragments, tokens). With only operators (no text), objects are listed by name (code
 * point, then id). Either way the answer is offline-only: the service has no operators.
 * When few objects pass the filters (at most FEW_MAX), the text is matched on those alone
 * instead (a filter keeping little of a frequent word no longer reads every candidate).
 * A token may lead to an empty last page (the filters are not run ahead to know).
 */
import { AppError } from '../../app/errors.js';
import { parseFilters, passes, quoteOperator, type Filter } from '../../app/filters/filters.js';
import type { SearchPage } from '../../app/model/remote-object.js';
import {
  DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, compareCodePoints, decodeSearchToken, encodeSearchToken, parseQuery, selectPage, type DocMatch,
} from '../../app/search/index.js';
import { decodeOpaque, encodeOpaque } from '../../app/util/base64url.js';
import { docOf } from './engine.js';
import type { OfflineIndex, SearchOpts } from './offline-index.js';
import type { ObjectFacts } from './object-facts.js';

export interface FilteredPage extends SearchPage {
  /** True when the query used operators: the NAS cannot answer it. */
  offlineOnly: boolean;
  filters: Filter[];
}

const bad = (m: string): AppError => new AppError('BadRequest', m, { status: 400 });

/** Objects by name for operator-only queries, cached per facts version. */
const byNameCache = new WeakMap<ObjectFacts, { version: number; ids: string[] }>();

/**
 * Resolves once `searchFiltered(index, q)` will not build the object facts in one blocking
 * pass: when `q` has operators, the facts are built in chunks that yield to the event loop.
 */
export async function filtersReady(index: OfflineIndex, q: string): Promise<void> {
  const parsed = parseFilters(q);
  if (parsed.ok && parsed.query.filters.length > 0) await index.factsReady();
}

export function searchFiltered(index: OfflineIndex, q: string, opts: SearchOpts & { fewMax?: number } = {}): FilteredPage {
  const parsed = parseFilters(q);
  if (!parsed.ok) throw bad(parsed.message);
  const { text, filters } = parsed.query;
  if (filters.length === 0) return { ...index.search(q, opts), offlineOnly: false, filters };
  const limit = opts.limit === undefined ? DEFAULT_SEARCH_LIMIT : Math.min(opts.limit, MAX_SEARCH_LIMIT);
  if (!Number.isSafeInteger(limit) || limit < 1) throw bad('limit must be a positive integer');
  const facts = index.facts();
  const inFolders = filters.flatMap((f) => {
    if (f.op !== 'in') return [];
    const id = facts.folderAt(f.path);
    if (id === undefined) throw bad(`${quoteOperator('in', f.path)}: no such folder in the mirror`);
    return [id];
  });
  const under = (id: string, folder: string): boolean => facts.isUnder(id, folder);
  const ok = (id: string): boolean => {
    const f = facts.get(id);
    return f !== undefined && passes(f, filters, inFolders, under);
  };
  const picked: { id: string; match: DocMatch | undefined }[] = [];
  let pageToken = '';
  const few = fewPassing(facts, filters, inFolders, ok, opts.fewMax ?? FEW_MAX);
  if (text !== '' && few) {
    // few objects pass the filters: match the text on those alone, in the service's order (the
    // same answer as reading candidates: app/search decides matches, order and tokens)
    const pq = parseQuery(text);
    if (!pq.ok) throw bad(pq.message);
    const after = decodeSearchToken(opts.pageToken ?? '');
    if (after === undefined) throw bad('pageToken is not valid');
    const objects = index.store.getMany(few);
    const page = selectPage(few.flatMap((id) => { const o = objects.get(id); return o ? [{ doc: docOf(o), value: id }] : []; }), pq.query, limit, after);
    for (const i of page.items) picked.push({ id: i.value, match: i.match });
    pageToken = page.pageToken;
  } else if (text !== '') {
    const pq = parseQuery(text);
    if (!pq.ok) throw bad(pq.message);
    let after = decodeSearchToken(opts.pageToken ?? '');
    if (after === undefined) throw bad('pageToken is not valid');
    // batches grow (x4) so a filter that keeps few of many candidates costs a few engine pages, not thousands
    let batch = Math.max(256, limit * 4);
    for (;; batch = Math.min(batch * 4, 1 << 20)) {
      const page = index.candidates(pq.query, batch, after);
      const items = page.items;
      let i = 0;
      for (; i < items.length && picked.length < limit; i++) if (ok(items[i]!.id)) picked.push(items[i]!);
      if (picked.length === limit) {
        pageToken = i < items.length || page.pageToken !== '' ? encodeSearchToken(picked[picked.length - 1]!.match!.key) : '';
        break;
      }
      if (page.pageToken === '' || items.length === 0) break;
      after = items[items.length - 1]!.match.key;
    }
  } else {
    // few pass: sort those by name, not the whole mirror
    const ids = few ? few.map((id) => facts.get(id)!).sort(cmp).map((f) => f.id) : byName(facts);
    const cursor = decodeNameToken(opts.pageToken ?? '');
    if (cursor === undefined) throw bad('pageToken is not valid');
    let i = cursor ? firstAfter(facts, ids, cursor) : 0;
    for (; i < ids.length && picked.length < limit; i++) if (ok(ids[i]!)) picked.push({ id: ids[i]!, match: undefined });
    if (picked.length === limit && i < ids.length) {
      const last = facts.get(picked[picked.length - 1]!.id)!;
      pageToken = 'f' + encodeOpaque([last.name, last.id]);
    }
  }
  const objects = index.store.getMany(picked.map((p) => p.id));
  const matches = picked.flatMap((p) => {
    const file = objects.get(p.id);
    return file ? [{ file, fragments: p.match?.fragments ?? [{ text: file.name, locations: [] }] }] : [];
  });
  return { pageToken, matches, offlineOnly: true, filters };
}

/** At most this many objects passing the filters: the text is matched on them alone. */
const FEW_MAX = 2000;
const fewCache = new WeakMap<ObjectFacts, { version: number; key: string; ids: string[] | undefined }>();

/**
 * The ids of every object that passes the filters when there are at most `max` of them, else
 * undefined (one pass over the facts, stopped at max + 1; the last answer is kept per facts
 * version, so pages after the first cost nothing).
 */
function fewPassing(facts: ObjectFacts, filters: readonly Filter[], inFolders: readonly string[], ok: (id: string) => boolean, max: number): string[] | undefined {
  if (max <= 0) return undefined;
  const key = JSON.stringify([filters.map((f) => f.raw), inFolders, max]);
  const c = fewCache.get(facts);
  if (c && c.version === facts.version && c.key === key) return c.ids;
  let ids: string[] | undefined = [];
  for (const id of facts.byId.keys()) {
    if (id === facts.rootId || !ok(id)) continue;
    if (ids.push(id) > max) { ids = undefined; break; }
  }
  fewCache.set(facts, { version: facts.version, key, ids });
  return ids;
}

const cmp = (a: { name: string; id: string }, b: { name: string; id: string }): number => compareCodePoints(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function byName(facts: ObjectFacts): string[] {
  const c = byNameCache.get(facts);
  if (c && c.version === facts.version) return c.ids;
  const all = [...facts.byId.values()].sort(cmp);
  const ids = all.map((f) => f.id);
  byNameCache.set(facts, { version: facts.version, ids });
  return ids;
}

function firstAfter(facts: ObjectFacts, ids: readonly string[], cursor: { name: string; id: string }): number {
  let lo = 0, hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(facts.get(ids[mid]!)!, cursor) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function decodeNameToken(t: string): { name: string; id: string } | null | undefined {
  if (t === '') return null;
  if (t[0] !== 'f') return undefined;
  const v = decodeOpaque(t.slice(1));
  return Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string' ? { name: v[0], id: v[1] } : undefined;
}

