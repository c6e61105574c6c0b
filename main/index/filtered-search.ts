/**
 * Search with operators (app/filters): the plain text goes to the offline index exactly as
 * the service would answer it, and the filters keep only the matches that pass, in the
 * service's order. Without operators this IS `OfflineIndex.search` (same objects, order,
 * fragments, tokens). With only operators (no text), objects are listed in rule 7's order
 * with no term: name length, name by code point, id (kept-order.ts). Either way the answer is offline-only: the service has no operators.
 * The filters are compiled to one test over the columns of the object facts
 * (fact-filter.ts) and handed to the text engine, which applies it to each candidate before
 * matching it and finds the narrowed page with the same pruning as a plain page (narrowing.ts).
 * When few objects pass the filters (at most FEW_MAX), the text is matched on those alone.
 * `in:` is resolved here to a folder of the facts; `on:` reads the device view the caller hands
 * over (the engine's, or the stored state's on the command line): it is not a fact of the NAS.
 */
import { AppError } from '../../app/errors.js';
import { parseFilters, quoteOperator, type Filter } from '../../app/filters/filters.js';
import type { DeviceView } from '../../app/filters/on-device.js';
import type { SearchPage } from '../../app/model/remote-object.js';
import {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  decodeSearchToken,
  parseQuery,
  selectPage,
  type DocMatch,
} from '../../app/search/index.js';
import { decodeOpaque, encodeOpaque } from '../../app/util/base64url.js';
import { numberOrder } from './number-order.js';
import { docOf, type Named } from './engine.js';
import { slotMask, slotMaskSteps, slotTest, type SlotTest } from './fact-filter.js';
import { insertBest } from './kept-order.js';
import { narrowing, numbersReady } from './narrowing.js';
import type { OfflineIndex, SearchOpts } from './offline-index.js';
import type { ObjectFacts } from './object-facts.js';

/** What the device view comes from: called only when the query has an `on:` operator. */
export type DeviceSource = () => DeviceView;

export interface FilteredPage extends SearchPage {
  /** True when the query used operators: the NAS cannot answer it. */
  offlineOnly: boolean;
  filters: Filter[];
}

const bad = (m: string): AppError => new AppError('BadRequest', m, { status: 400 });

/**
 * Resolves once `searchFiltered(index, q)` will not build in one blocking pass what can be
 * built ahead in chunks that yield to the event loop: the object facts, the map of the
 * engine's numbers to them, the few objects that pass (or that they are not few), and what
 * the engine's narrowed page will use (a short term's answer order, the kept numbers).
 */
export async function filtersReady(index: OfflineIndex, q: string, device?: DeviceSource): Promise<void> {
  const parsed = parseFilters(q);
  if (!parsed.ok || parsed.query.filters.length === 0) return;
  const facts = await index.factsReady();
  const num = index.numbering();
  await numbersReady(num, facts);
  const { filters } = parsed.query;
  let r: Resolved | { missing: string };
  try {
    r = resolve(facts, filters, device);
  } catch {
    return; // no device view to read (no engine): the query itself says why
  }
  if ('missing' in r) return;
  const test = slotTest(facts, filters, r.inFolders, r.device);
  if (!num || (await fewReady(facts, filters, r, test, FEW_MAX))) return; // the few are matched alone
  const text = parseQuery(parsed.query.text);
  if (!text.ok && parsed.query.text !== '') return;
  await index.prepareNarrowed(text.ok ? text.query : null, narrowing(num, facts, test, filterKey(filters, r), maskOf(facts, filters, r)));
}

/** What the filters read besides the facts: the folder id each `in:` names, in order, and the device view for `on:`. */
interface Resolved {
  inFolders: string[];
  device: DeviceView | undefined;
}

/**
 * The filters resolved: `in:` paths to folder ids (or the first path not in the mirror), and the
 * device view when an `on:` asks for it (an error when there is none to ask).
 */
function resolve(facts: ObjectFacts, filters: readonly Filter[], device: DeviceSource | undefined): Resolved | { missing: string } {
  const inFolders: string[] = [];
  for (const f of filters) {
    if (f.op !== 'in') continue;
    const id = facts.folderAt(f.path);
    if (id === undefined) return { missing: f.path };
    inFolders.push(id);
  }
  if (!filters.some((f) => f.op === 'on')) return { inFolders, device: undefined };
  if (!device)
    throw new AppError('Unavailable', 'on: needs what the engine knows of this device (what is downloaded or kept): not known here');
  return { inFolders, device: device() };
}

export function searchFiltered(
  index: OfflineIndex,
  q: string,
  opts: SearchOpts & { fewMax?: number; device?: DeviceSource } = {},
): FilteredPage {
  const parsed = parseFilters(q);
  if (!parsed.ok) throw bad(parsed.message);
  const { text, filters } = parsed.query;
  if (filters.length === 0) return { ...index.search(q, opts), offlineOnly: false, filters };
  const limit = opts.limit === undefined ? DEFAULT_SEARCH_LIMIT : Math.min(opts.limit, MAX_SEARCH_LIMIT);
  if (!Number.isSafeInteger(limit) || limit < 1) throw bad('limit must be a positive integer');
  const facts = index.facts();
  const r = resolve(facts, filters, opts.device);
  if ('missing' in r) throw bad(`${quoteOperator('in', r.missing)}: no such folder in the mirror`);
  const test = slotTest(facts, filters, r.inFolders, r.device);
  const picked: { id: string; match: DocMatch | undefined }[] = [];
  let pageToken = '';
  const few = fewPassing(facts, filters, r, test, opts.fewMax ?? FEW_MAX);
  if (text !== '') {
    const pq = parseQuery(text);
    if (!pq.ok) throw bad(pq.message);
    const after = decodeSearchToken(opts.pageToken ?? '');
    if (after === undefined) throw bad('pageToken is not valid');
    if (few) {
      // few objects pass the filters: match the text on those alone, in the service's order (the
      // same answer as the engine's: app/search decides matches, order and tokens)
      const ids = Array.from(few, (s) => facts.columns().ids[s]!);
      const objects = index.store.getMany(ids);
      const page = selectPage(
        ids.flatMap((id) => {
          const o = objects.get(id);
          return o ? [{ doc: docOf(o), value: id }] : [];
        }),
        pq.query,
        limit,
        after,
      );
      for (const i of page.items) picked.push({ id: i.value, match: i.match });
      pageToken = page.pageToken;
    } else {
      // the engine applies the filters to each candidate as it finds the page
      const page = index.candidates(
        pq.query,
        limit,
        after,
        narrowing(index.numbering(), facts, test, filterKey(filters, r), maskOf(facts, filters, r)),
      );
      picked.push(...page.items);
      pageToken = page.pageToken;
    }
  } else {
    // the first `limit` in (name length, name, id) order after the cursor: a walk of the engine's
    // numbers from the cursor (kept-order.ts), else one pass over the objects that pass
    const cursor = decodeNameToken(opts.pageToken ?? '');
    if (cursor === undefined) throw bad('pageToken is not valid');
    const num = index.numbering();
    const best =
      (!few && num && index.firstKept(limit + 1, cursor, narrowing(num, facts, test, filterKey(filters, r), maskOf(facts, filters, r)))) ||
      firstInOrder(facts, few ?? slotMask(facts, filters, r.inFolders, r.device), test, limit + 1, cursor);
    for (const x of best.slice(0, limit)) picked.push({ id: x.id, match: undefined });
    if (best.length > limit) pageToken = 'f' + encodeOpaque([best[limit - 1]!.name, best[limit - 1]!.id]);
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
const fewCache = new WeakMap<ObjectFacts, { version: number; key: string; slots: number[] | undefined }>();

/**
 * The slots of every object that passes the filters when there are at most `max` of them,
 * else undefined (one pass over the columns, stopped at max + 1; the last answer is kept
 * per facts version, so pages after the first cost nothing).
 */
function fewPassing(facts: ObjectFacts, filters: readonly Filter[], r: Resolved, test: SlotTest, max: number): number[] | undefined {
  if (max <= 0) return undefined;
  const key = filterKey(filters, r) + max;
  const c = fewCache.get(facts);
  if (c && c.version === facts.version && c.key === key) return c.slots;
  const steps = fewSteps(facts, test, max, Infinity);
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return keepFew(facts, key, r.value);
}

/** The same, built ahead in chunks that yield (dropped when the facts change meanwhile); true when few pass. */
async function fewReady(facts: ObjectFacts, filters: readonly Filter[], r: Resolved, test: SlotTest, max: number): Promise<boolean> {
  const key = filterKey(filters, r) + max;
  const c = fewCache.get(facts);
  if (c && c.version === facts.version && c.key === key) return c.slots !== undefined;
  const version = facts.version;
  const steps = fewSteps(facts, test, max, 50_000);
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return keepFew(facts, key, r.value) !== undefined;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (facts.version !== version) return false;
  }
}

function* fewSteps(facts: ObjectFacts, test: SlotTest, max: number, chunk: number): Generator<void, number[] | undefined> {
  const { slots: n, rootSlot } = facts.columns();
  const slots: number[] = [];
  for (let s = 0; s < n; s++) {
    if ((s + 1) % chunk === 0) yield;
    if (s === rootSlot || !test(s)) continue;
    if (slots.push(s) > max) return undefined;
  }
  return slots;
}

function keepFew(facts: ObjectFacts, key: string, slots: number[] | undefined): number[] | undefined {
  fewCache.set(facts, { version: facts.version, key, slots });
  return slots;
}

/** The filters' mask over the slots, in steps (narrowing.ts builds the kept numbers with it). */
const maskOf =
  (facts: ObjectFacts, filters: readonly Filter[], r: Resolved) =>
  (chunk: number): Generator<void, Uint8Array> =>
    slotMaskSteps(facts, filters, r.inFolders, chunk, r.device);

/** Names the filters as resolved (the same key, the same test): a new device snapshot is a new key. */
const filterKey = (filters: readonly Filter[], r: Resolved): string =>
  JSON.stringify([filters.map((f) => f.raw), r.inFolders, r.device?.key ?? null]);

/**
 * The first `k` objects in (name length, name by code point, id) order after `cursor` among
 * `among` (slots that pass `test`, or a mask of those that pass): one pass keeping the best
 * k (not the root itself). For engines without that order kept, and the few that pass.
 */
function firstInOrder(facts: ObjectFacts, among: readonly number[] | Uint8Array, test: SlotTest, k: number, cursor: Named | null): Named[] {
  const { names, ids, rootSlot } = facts.columns();
  const best: Named[] = [];
  const consider = (s: number): void => {
    if (s === rootSlot) return;
    const x = { name: names[s]!, id: ids[s]! };
    if (!cursor || numberOrder(x, cursor) > 0) insertBest(best, x, k);
  };
  if (among instanceof Uint8Array) {
    for (let s = 0; s < among.length; s++) if (among[s] === 1) consider(s);
  } else for (const s of among) if (test(s)) consider(s);
  return best;
}

function decodeNameToken(t: string): Named | null | undefined {
  if (t === '') return null;
  if (t[0] !== 'f') return undefined;
  const v = decodeOpaque(t.slice(1));
  return Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string' ? { name: v[0], id: v[1] } : undefined;
}
