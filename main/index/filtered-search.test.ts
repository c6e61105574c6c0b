/**
 * The `on:` operator on a real offline index: for random device views (what is downloaded,
 * changed, kept; a few files the mirror folder does not hold), every page of a filtered
 * search equals the plain query's whole answer filtered by `passes` with the view's states
 * (operators only: every object that passes, in name order), by both paths (the few matched
 * alone, the engine's candidates narrowed), built ahead or not; a new view is a new answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFilters, passes } from '../../app/filters/filters.js';
import { stateIn, type DeviceView } from '../../app/filters/on-device.js';
import { FOLDER_MIME, type RemoteObject, type SearchPage } from '../../app/model/remote-object.js';
import { prng } from '../../app/util/prng.js';
import { MirrorStore } from '../mirror/store.js';
import { openStateDb, type Db } from '../state/db.js';
import { slotMask, slotTest } from './fact-filter.js';
import { filtersReady, searchFiltered } from './filtered-search.js';
import { numberOrder } from './number-order.js';
import type { OfflineIndex } from './offline-index.js';
import { openOfflineIndex } from './open-index.js';

const WORDS = ['photo', 'report', 'budget', 'trip', 'notes'];
const EXTS = ['jpg', 'pdf', 'txt', 'mp4'];
const MIMES: Record<string, string> = { jpg: 'image/jpeg', pdf: 'application/pdf', txt: 'text/plain', mp4: 'video/mp4' };

let dir = '';
let db: Db;
let index: OfflineIndex;
const objects: RemoteObject[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'on-device-'));
  db = openStateDb(dir);
  const store = new MirrorStore(db);
  const T = '2020-01-01T00:00:00Z';
  const base = { eTag: '"e"', mTime: T, cTime: T, hidden: 'none' as const };
  store.setRoot({ ...base, id: 'R', parentID: '', mimeType: FOLDER_MIME, name: 'R' });
  const r = prng(41);
  const folders = ['R'];
  for (let i = 0; i < 900; i++) {
    const parentID = folders[Math.floor(r() * folders.length)]!;
    const word = WORDS[Math.floor(r() * WORDS.length)]!;
    if (i < 60 || r() < 0.05) {
      objects.push({ ...base, id: `d${i}`, parentID, mimeType: FOLDER_MIME, name: `${word} ${i}` });
      folders.push(`d${i}`);
    } else {
      const ext = EXTS[i % EXTS.length]!;
      objects.push({ ...base, id: `f${i}`, parentID, mimeType: MIMES[ext]!, name: `${word} ${i}.${ext}`, size: 1 + i });
    }
  }
  store.apply(objects.map((after) => ({ kind: 'added', after })));
  index = (await openOfflineIndex(store, dir)).index;
}, 60_000);
afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A random view: `share` of the objects held (folders only as kept), a few files not in the mirror folder. */
function randomView(r: () => number, share: number, key: string): DeviceView {
  const held = new Map<string, 'here' | 'edited' | 'pinned'>();
  const absent = new Set<string>();
  for (const o of objects) {
    const folder = o.mimeType === FOLDER_MIME;
    if (r() < share) held.set(o.id, folder ? 'pinned' : (['here', 'edited', 'pinned'] as const)[Math.floor(r() * 3)]!);
    else if (!folder && r() < 0.03) absent.add(o.id);
  }
  const files = new Set(objects.filter((o) => o.mimeType !== FOLDER_MIME && !absent.has(o.id)).map((o) => o.id));
  return { key, held, isFile: (id) => files.has(id) };
}

function allPages(get: (t: string) => SearchPage): SearchPage[] {
  const out: SearchPage[] = [];
  for (let t = '', guard = 0; guard < 1000; guard++) {
    const p = get(t);
    out.push(p);
    if (p.pageToken === '') return out;
    t = p.pageToken;
  }
  throw new Error('too many pages');
}

/** The reference: the plain query's whole answer (operators only: every object, in name order), filtered by `passes`. */
function reference(q: string, view: DeviceView): string[] {
  const parsed = parseFilters(q);
  if (!parsed.ok) throw new Error(parsed.message);
  const { text, filters } = parsed.query;
  const facts = index.facts();
  const inFolders = filters.flatMap((f) => (f.op === 'in' ? [facts.folderAt(f.path)!] : []));
  const keep = (o: RemoteObject): boolean =>
    passes(
      facts.get(o.id)!,
      filters,
      inFolders,
      (id, folder) => facts.isUnder(id, folder),
      (id) => stateIn(view, id),
    );
  const all =
    text === ''
      ? [...objects].sort(numberOrder)
      : allPages((t) => index.search(text, { limit: 1000, pageToken: t })).flatMap((p) => p.matches.map((m) => m.file));
  return all.filter(keep).map((o) => o.id);
}

describe('on: over a real index', () => {
  it('every page equals the plain answer filtered by the device states, both ways, for views from none to most held', async () => {
    const r = prng(7);
    const ops = [
      'on:device',
      'on:nas',
      'on:kept',
      'on:here ext:jpg',
      'on:placeholder kind:doc',
      'on:pinned kind:folder',
      'on:device on:nas',
    ];
    let nonEmpty = 0;
    for (const [n, share] of [0, 0.01, 0.1, 0.6, 0.95].entries()) {
      const view = randomView(r, share, `view ${n}`);
      for (let i = 0; i < 14; i++) {
        const text = ['', 'photo', 'report 1', 'e', 'trip'][i % 5]!;
        const q = `${text} ${ops[i % ops.length]!}`.trim();
        const limit = [1, 7, 50][i % 3]!;
        if (i % 2) await filtersReady(index, q, () => view); // as the API calls it
        const [few, viaCandidates] = [undefined, 0].map((fewMax) =>
          allPages((t) => {
            const p = searchFiltered(index, q, { limit, pageToken: t, device: () => view, ...(fewMax === undefined ? {} : { fewMax }) });
            expect(p.offlineOnly).toBe(true);
            return p;
          }).flatMap((p) => p.matches),
        );
        expect(few, q).toEqual(viaCandidates); // same objects, order and fragments
        const want = reference(q, view);
        expect(
          few!.map((m) => m.file.id),
          `${q} (share ${share}, limit ${limit})`,
        ).toEqual(want);
        if (want.length > 0) nonEmpty++;
      }
    }
    expect(nonEmpty).toBeGreaterThan(40);
  }, 60_000);

  it('a new view (a file kept, another freed) is a new answer, not the cached one', () => {
    const files = new Set(objects.filter((o) => o.mimeType !== FOLDER_MIME).map((o) => o.id));
    const [a, b] = [...files];
    const one: DeviceView = { key: 'one', held: new Map([[a!, 'here']]), isFile: (id) => files.has(id) };
    const ids = (q: string, view: DeviceView): string[] =>
      allPages((t) => searchFiltered(index, q, { limit: 1000, pageToken: t, device: () => view })).flatMap((p) =>
        p.matches.map((m) => m.file.id),
      );
    expect(ids('on:device', one)).toEqual([a]);
    const nas = ids('on:nas', one);
    expect(nas).not.toContain(a);
    expect(nas).toHaveLength(files.size - 1);
    const two: DeviceView = { key: 'two', held: new Map([[b!, 'pinned']]), isFile: one.isFile };
    expect(ids('on:device', two)).toEqual([b]);
    expect(ids('on:nas', two)).toContain(a);
    expect(ids('on:nas', two)).not.toContain(b);
  });

  it('the compiled test and mask equal passes() on every fact', () => {
    const view = randomView(prng(3), 0.2, 'mask');
    const facts = index.facts();
    for (const q of ['on:device', 'on:nas', 'on:kept', 'on:nas ext:pdf', 'kind:folder on:kept']) {
      const parsed = parseFilters(q);
      if (!parsed.ok) throw new Error(parsed.message);
      const test = slotTest(facts, parsed.query.filters, [], view);
      const mask = slotMask(facts, parsed.query.filters, [], view);
      for (const fact of facts.byId.values()) {
        const want = passes(
          fact,
          parsed.query.filters,
          [],
          () => true,
          (id) => stateIn(view, id),
        );
        const s = facts.slotOfId(fact.id)!;
        expect(test(s), `${q} ${fact.id}`).toBe(want);
        expect(mask[s] === 1, `mask: ${q} ${fact.id}`).toBe(want);
      }
    }
  });

  it('says so when nothing can tell what is on this device', () => {
    expect(() => searchFiltered(index, 'photo on:device')).toThrow(/on: needs what the engine knows of this device/);
    expect(() => searchFiltered(index, 'photo on:moon', { device: () => randomView(prng(1), 0, 'x') })).toThrow(/not a place/);
  });
});
