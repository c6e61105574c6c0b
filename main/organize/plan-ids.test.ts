/**
 * Organize from a hand-picked selection: the arguments are checked on arrival (exactly one of
 * q/ids, bounded), and a plan from ids keeps the given order, takes files and folders alike,
 * lists each id once and reports an id the mirror does not hold as a problem, never a throw.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ORGANIZE, organizeArgs, sourceOf } from '../../app/contract/organize-shapes.js';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import type { OfflineIndex } from '../index/offline-index.js';
import { openOfflineIndex } from '../index/open-index.js';
import { MirrorStore } from '../mirror/store.js';
import { openStateDb, type Db } from '../state/db.js';
import { buildPlan } from './plan.js';

const obj = (id: string, name: string, parentID = 'r', extra: Partial<RemoteObject> = {}): RemoteObject => ({
  id,
  parentID,
  name,
  eTag: '"Ag"',
  mimeType: extra.mimeType ?? 'image/jpeg',
  mTime: '2020-05-06T00:00:00Z',
  cTime: '2020-05-06T00:00:00Z',
  hidden: 'none',
  ...extra,
});

describe('organizeArgs', () => {
  const parse = (v: unknown): unknown => organizeArgs.parse(v, 'args');
  it('takes a query or ids, exactly one', () => {
    expect(parse({ q: 'IMG', rename: '{name}' })).toEqual({ q: 'IMG', rename: '{name}' });
    expect(parse({ ids: ['a', 'b'], move: 'Photos' })).toEqual({ ids: ['a', 'b'], move: 'Photos' });
    expect(() => parse({ q: 'IMG', ids: ['a'], rename: 'x' })).toThrow('args: give either q or ids, not both');
    expect(() => parse({ rename: 'x' })).toThrow('args: give q (a search) or ids (objects)');
    expect(() => parse({ ids: [], rename: 'x' })).toThrow('args.ids: empty');
  });
  it('checks each id and the bound', () => {
    expect(() => parse({ ids: ['a', 7] })).toThrow('args.ids[1]: expected a string');
    expect(() => parse({ ids: [''] })).toThrow('args.ids[0]: shorter than 1');
    expect(() => parse({ ids: Array.from({ length: MAX_ORGANIZE + 1 }, (_, i) => `o${i}`) })).toThrow(
      `args.ids: more than ${MAX_ORGANIZE} items`,
    );
    expect(() => parse({ ids: ['a'], extra: 1 })).toThrow('args.extra: unknown field');
    expect(() => parse('nope')).toThrow('args: expected an object');
  });
  it('names its source for Activity', () => {
    expect(sourceOf({ q: 'IMG' })).toBe('IMG');
    expect(sourceOf({ ids: ['a', 'b', 'c'] })).toBe('3 selected objects');
    expect(sourceOf({ ids: ['a'] })).toBe('1 selected object');
  });
});

describe('buildPlan from ids', () => {
  let dir: string, db: Db, index: OfflineIndex;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'plan-ids-'));
    db = openStateDb(dir);
    const store = new MirrorStore(db);
    store.setRoot(obj('r', 'home', '', { mimeType: FOLDER_MIME }));
    store.apply([
      { kind: 'added', after: obj('f', 'Trip', 'r', { mimeType: FOLDER_MIME }) },
      { kind: 'added', after: obj('a', 'b.jpg', 'f') },
      { kind: 'added', after: obj('b', 'a.jpg', 'f') },
      { kind: 'added', after: obj('c', 'c.jpg', 'r') },
    ]);
    ({ index } = await openOfflineIndex(store, dir));
    await index.factsReady();
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the given order, takes folders, numbers the known ones, reports unknown ids', () => {
    const plan = buildPlan(index, { ids: ['c', 'gone', 'a', 'f', 'a', 'r'], rename: 'pick {counter}' });
    expect(plan.items.map((i) => [i.id, i.status, i.to])).toEqual([
      ['c', 'ok', 'pick 1'],
      ['gone', 'invalid', ''],
      ['a', 'ok', 'Trip/pick 2'],
      ['f', 'ok', 'pick 3'],
      ['r', 'invalid', ''],
    ]);
    expect(plan.items[1]!.problem).toMatch(/no object with id gone in the mirror/);
    expect(plan.items[3]).toMatchObject({ folder: true, from: 'Trip' });
    expect(plan.counts).toEqual({ ok: 3, unchanged: 0, collision: 0, invalid: 2, missingFolder: 0 });
    expect(plan.truncated).toBeUndefined();
  });
  it('flags collisions and missing folders as for a query', () => {
    const plan = buildPlan(index, { ids: ['a', 'b'], rename: 'same.jpg', move: 'Nowhere' });
    expect(plan.counts.missingFolder).toBe(2);
    expect(plan.missingFolders).toEqual(['/Nowhere']);
    expect(buildPlan(index, { ids: ['a', 'b'], rename: 'same.jpg' }).counts).toMatchObject({ ok: 1, collision: 1 });
  });
  it('only unknown ids: a plan with nothing to change, not an error', () => {
    const plan = buildPlan(index, { ids: ['x', 'y'], rename: '{name}' });
    expect(plan.counts).toMatchObject({ ok: 0, invalid: 2 });
  });
});
