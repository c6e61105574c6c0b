import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RemoteObject } from '../../app/model/remote-object.js';
import { FOLDER_MIME } from '../../app/model/remote-object.js';
import { MirrorStore } from '../mirror/store.js';
import { openStateDb } from '../state/db.js';
import { searchFiltered } from './filtered-search.js';
import { openOfflineIndex, type OpenIndexOptions } from './open-index.js';
import { hasVocabulary, loadVocabulary, saveVocabulary, vocabularyFile } from './vocabulary-file.js';
import { Vocabulary } from './vocabulary.js';
import { existsSync } from 'node:fs';
import { loadIndex } from './persist.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const obj = (id: string, name: string, parentID = 'r', extra: Partial<RemoteObject> = {}): RemoteObject => ({
  id,
  parentID,
  name,
  eTag: '"Ag"',
  mimeType: extra.mimeType ?? 'text/plain',
  mTime: '2020-01-01T00:00:00Z',
  cTime: '2020-01-01T00:00:00Z',
  hidden: 'none',
  ...extra,
});

/** A fresh state folder whose store holds a root and these objects. */
function storeWith(...objects: RemoteObject[]) {
  const dir = mkdtempSync(join(tmpdir(), 'oi-'));
  dirs.push(dir);
  const db = openStateDb(dir);
  const store = new MirrorStore(db);
  store.setRoot(obj('r', 'home', '', { mimeType: FOLDER_MIME }));
  store.apply(objects.map((after) => ({ kind: 'added' as const, after })));
  return { dir, db, store };
}

/** A fresh state folder with a root, and its index with an overlay limit of 10 (rebuilt in the worker); `more`: other options. */
async function lagsAfterTen(more: OpenIndexOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'oi-'));
  dirs.push(dir);
  const db = openStateDb(dir);
  const store = new MirrorStore(db);
  store.setRoot(obj('r', 'home', '', { mimeType: FOLDER_MIME }));
  const opened = await openOfflineIndex(store, dir, { overlayLimit: 10, workerThreshold: 0, ...more });
  return { dir, db, store, opened };
}

describe('openOfflineIndex', () => {
  it('follow: a batch past the overlay limit is caught up by rebuilds; exact again after, then follows the overlay', async () => {
    const { dir, db, store, opened } = await lagsAfterTen();
    // the app's status says "search is catching up" from these calls
    const told: boolean[] = [];
    opened.onLagging((l) => told.push(l));
    // and "… 40 %": how much search finds, in whole percents, while it catches up
    const percents: (number | undefined)[] = [];
    opened.onProgress((p) => percents.push(p));
    const apply = (cs: Parameters<typeof store.apply>[0]): void => {
      store.apply(cs);
      opened.follow(cs);
    };
    apply([{ kind: 'added', after: obj('x0', 'small one.txt') }]);
    expect(opened.lagging).toBe(false);
    expect(told).toEqual([]);
    expect(opened.index.search('small').matches).toHaveLength(1);
    // a first walk's worth: past the limit
    apply(Array.from({ length: 50 }, (_, i) => ({ kind: 'added' as const, after: obj(`p${i}`, `photo ${i}.jpg`) })));
    expect(opened.lagging).toBe(true);
    // more while catching up (a walk still running): not lost
    apply(Array.from({ length: 5 }, (_, i) => ({ kind: 'added' as const, after: obj(`q${i}`, `photo late ${i}.jpg`) })));
    await opened.caughtUp();
    expect(opened.lagging).toBe(false);
    expect(told).toEqual([true, false]);
    expect(opened.progress).toBeUndefined();
    expect(percents.at(-1)).toBeUndefined();
    const shown = percents.filter((p): p is number => p !== undefined);
    expect(shown.every((p) => Number.isInteger(p) && p >= 0 && p <= 99)).toBe(true);
    expect(Math.max(...shown)).toBeGreaterThanOrEqual(90);
    expect(opened.index.search('photo', { limit: 100 }).matches).toHaveLength(55);
    expect(opened.engine.overlaySize).toBe(0);
    // caught up by builds without the vocabulary: the worker built the vocabulary alone (never this thread)
    expect(hasVocabulary(dir, store.generation())).toBe(true);
    expect(opened.index.suggest('phot', 5).length).toBeGreaterThan(0);
    // small changes follow the overlay again
    apply([{ kind: 'added', after: obj('z', 'zebra.txt') }]);
    expect(opened.lagging).toBe(false);
    expect(opened.index.search('zebra').matches.map((m) => m.file.id)).toEqual(['z']);
    await opened.save();
    const again = await openOfflineIndex(store, dir);
    expect(again.source).toBe('loaded');
    expect(again.index.search('photo', { limit: 100 }).matches).toHaveLength(55);
    db.close();
  });

  it("in a big store the catch-up waits for the writes to end: rebuilt at the walk's end (catchUpNow) or at a save", async () => {
    // every store counts as big here
    const { db, store, opened } = await lagsAfterTen({ deferAbove: 0 });
    const apply = (cs: Parameters<typeof store.apply>[0]): void => {
      store.apply(cs);
      opened.follow(cs);
    };
    apply(Array.from({ length: 50 }, (_, i) => ({ kind: 'added' as const, after: obj(`p${i}`, `photo ${i}.jpg`) })));
    expect(opened.lagging).toBe(true);
    apply([{ kind: 'added', after: obj('late', 'photo late.jpg') }]);
    expect(opened.index.search('photo').matches).toHaveLength(0);
    // the walk ended
    opened.catchUpNow();
    await opened.caughtUp();
    expect(opened.lagging).toBe(false);
    expect(opened.index.search('photo', { limit: 100 }).matches).toHaveLength(51);
    // again, and this time a save (the app stops) ends the wait
    apply(Array.from({ length: 20 }, (_, i) => ({ kind: 'added' as const, after: obj(`d${i}`, `draft ${i}.txt`) })));
    expect(opened.lagging).toBe(true);
    await opened.save();
    expect(opened.lagging).toBe(false);
    expect(opened.index.search('draft', { limit: 100 }).matches).toHaveLength(20);
    db.close();
  });

  it('the object facts follow the changes while the index lags (filtered searches find what arrived meanwhile)', async () => {
    const { db, store, opened } = await lagsAfterTen();
    const apply = (cs: Parameters<typeof store.apply>[0]): void => {
      store.apply(cs);
      opened.follow(cs);
    };
    apply([{ kind: 'added', after: obj('x0', 'small one.txt') }]);
    expect(opened.index.facts().size).toBe(1); // built before the lag
    apply(Array.from({ length: 50 }, (_, i) => ({ kind: 'added' as const, after: obj(`p${i}`, `photo ${i}.jpg`) })));
    expect(opened.lagging).toBe(true);
    apply([{ kind: 'removed', before: obj('x0', 'small one.txt') }]);
    await opened.caughtUp();
    expect(opened.index.facts().size).toBe(50);
    expect(searchFiltered(opened.index, 'photo ext:jpg', { limit: 100, fewMax: 0 }).matches).toHaveLength(50);
    expect(searchFiltered(opened.index, 'ext:jpg', { limit: 100, fewMax: 0 }).matches).toHaveLength(50);
    expect(searchFiltered(opened.index, 'ext:txt', { limit: 100 }).matches).toHaveLength(0);
    db.close();
  });

  it("a catch-up rebuild during a first walk's bulk fill only reads: the parent index stays dropped, the walk's writes go on", async () => {
    const { db, store, opened } = await lagsAfterTen();
    const parentIndex = (): unknown =>
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'mirror_objects_parent'").get();
    store.beginBulkFill();
    expect(parentIndex()).toBeUndefined();
    const apply = (cs: Parameters<typeof store.apply>[0]): void => {
      store.apply(cs);
      opened.follow(cs);
    };
    apply(Array.from({ length: 50 }, (_, i) => ({ kind: 'added' as const, after: obj(`p${i}`, `photo ${i}.jpg`) })));
    expect(opened.lagging).toBe(true);
    // the walk keeps writing while the worker reads (each write is its own transaction, as the walk's batches are)
    let n = 0;
    while (opened.lagging && n < 300) {
      apply([{ kind: 'added', after: obj(`w${n}`, `photo walk ${n}.jpg`) }]);
      n++;
      await new Promise((r) => setTimeout(r, 5));
    }
    await opened.caughtUp();
    expect(parentIndex()).toBeUndefined();
    store.endBulkFill();
    expect(parentIndex()).toBeDefined();
    expect(opened.index.search('photo', { limit: 100_000 }).matches).toHaveLength(50 + n);
    db.close();
  });

  it('builds, follows changes, saves, and reloads without a rebuild', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oi-'));
    dirs.push(dir);
    const db = openStateDb(dir);
    const store = new MirrorStore(db);
    store.setRoot(obj('r', 'home', '', { mimeType: FOLDER_MIME }));
    store.apply([
      { kind: 'added', after: obj('f', 'Photos', 'r', { mimeType: FOLDER_MIME, childCount: 2 }) },
      { kind: 'added', after: obj('a', 'IMG_2041.JPG', 'f', { mimeType: 'image/jpeg', image: { cameraMake: 'Canon' } }) },
      { kind: 'added', after: obj('b', 'hello.txt') },
      { kind: 'added', after: obj('c', 'world hello.txt') },
    ]);
    const first = await openOfflineIndex(store, dir, { workerThreshold: 0 });
    expect(first.source).toBe('built');
    expect(first.index.search('hello').matches.map((m) => m.file.name)).toEqual(['hello.txt', 'world hello.txt']);
    expect(first.index.search('canon').matches[0]!.fragments).toEqual([{ text: 'Canon', locations: [{ index: 0, length: 5 }] }]);
    const change = {
      kind: 'updated' as const,
      before: obj('b', 'hello.txt'),
      after: obj('b', 'goodbye.txt'),
      aspects: { renamed: true, moved: false, metadata: false },
    };
    store.apply([change]);
    first.index.applyChanges([change]);
    expect(first.index.search('hello').matches.map((m) => m.file.name)).toEqual(['world hello.txt']);
    await first.save();
    const again = await openOfflineIndex(store, dir);
    expect(again.source).toBe('loaded');
    expect(again.index.search('o').matches.map((m) => m.file.name)).toEqual(first.index.search('o').matches.map((m) => m.file.name));
    expect(again.index.list('root').files.map((f) => f.name)).toEqual(['Photos', 'goodbye.txt', 'world hello.txt']);
    expect(again.index.parentAndName('f', 'IMG_2041.JPG').id).toBe('a');
    expect(again.index.suggest('hel')).toEqual(['hello']);
    expect(again.index.didYouMean('helo')).toBe('hello');
    db.close();
  });

  it('saves itself once the changes settle: a start after a kill loads it instead of rebuilding', async () => {
    const { dir, db, store } = storeWith(obj('a', 'hello.txt'));
    const first = await openOfflineIndex(store, dir, { workerThreshold: 0, settledSaveMs: 20 });
    expect(first.source).toBe('built');
    expect(first.index.suggest('hel')).toEqual(['hello']); // the vocabulary in memory: saved with the index
    const change = { kind: 'added' as const, after: obj('b', 'settled hello.txt') };
    store.apply([change]);
    first.follow([change]);
    // no save() (the engine was killed): the settled save wrote the index of this generation
    const t0 = Date.now();
    while (loadIndex(dir)?.generation !== store.generation()) {
      if (Date.now() - t0 > 10_000) throw new Error('the index was not saved once the changes settled');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(hasVocabulary(dir, store.generation())).toBe(true);
    const again = await openOfflineIndex(store, dir, { workerThreshold: 0 });
    expect(again.source).toBe('loaded');
    expect(again.index.search('hello').matches.map((m) => m.file.name)).toEqual(['hello.txt', 'settled hello.txt']);
    expect(again.index.suggest('sett')).toEqual(['settled']);
    db.close();
  });

  it('changes do not load a saved vocabulary: they are counted, and applied when it is first used', async () => {
    const { dir, db, store } = storeWith(obj('a', 'holiday beach.jpg'), obj('b', 'holiday.txt'));
    await (await openOfflineIndex(store, dir, { workerThreshold: 0 })).save();
    const opened = await openOfflineIndex(store, dir, { workerThreshold: 0 });
    expect(opened.source).toBe('loaded');
    const vocab = (opened.index as unknown as { vocabulary: Vocabulary }).vocabulary;
    const changes = [
      { kind: 'added' as const, after: obj('c', 'sunset.png') },
      {
        kind: 'updated' as const,
        before: obj('b', 'holiday.txt'),
        after: obj('b', 'notes.txt'),
        aspects: { renamed: true, moved: false, metadata: false },
      },
      { kind: 'removed' as const, before: obj('a', 'holiday beach.jpg') },
    ];
    store.apply(changes);
    opened.follow(changes);
    // followed without loading it (at 1M it is ~240 MB in memory)
    expect(vocab.isPending).toBe(true);
    expect(opened.index.suggest('sun')).toEqual(['sunset']);
    expect(vocab.isPending).toBe(false);
    expect(opened.index.suggest('hol')).toEqual([]);
    expect(opened.index.suggest('not')).toEqual(['notes']);
    expect(opened.index.suggest('tx')).toEqual(['txt']);
    await opened.save();
    expect(loadVocabulary(dir, store.generation())?.words.sort()).toEqual(['notes', 'png', 'sunset', 'txt']);
    db.close();
  });

  it('saves the vocabulary with the index generation, loads it instead of rebuilding, follows changes', async () => {
    const { dir, db, store } = storeWith(obj('a', 'holiday beach.jpg'), obj('b', 'holiday.txt'));
    const first = await openOfflineIndex(store, dir, { workerThreshold: 0 });
    // the build saved a vocabulary of the store's generation
    expect(loadVocabulary(dir, store.generation())?.words.sort()).toEqual(['beach', 'holiday', 'jpg', 'txt']);
    const change = { kind: 'added' as const, after: obj('c', 'sunset.png') };
    store.apply([change]);
    first.index.applyChanges([change]);
    expect(first.index.suggest('sun')).toEqual(['sunset']);
    await first.save();
    expect(loadVocabulary(dir, store.generation() - 1)).toBeUndefined();
    expect(hasVocabulary(dir, store.generation() - 1)).toBe(false);
    expect(hasVocabulary(dir, store.generation())).toBe(true);
    expect(loadVocabulary(dir, store.generation())?.words).toContain('sunset');
    // a reopen loads the file (a word only the file holds proves it is not rebuilt)
    const planted = Vocabulary.build([{ name: 'holiday beach sunset plantedword' }]);
    saveVocabulary(dir, store.generation(), planted.toJSON());
    const again = await openOfflineIndex(store, dir);
    expect(again.source).toBe('loaded');
    expect(again.index.suggest('plant')).toEqual(['plantedword']);
    // a stale file is ignored: built from the store on first use, then saved
    saveVocabulary(dir, store.generation() + 7, planted.toJSON());
    const third = await openOfflineIndex(store, dir);
    await third.save(); // builds the missing vocabulary from the store and saves it
    expect(hasVocabulary(dir, store.generation())).toBe(true);
    expect(third.index.suggest('plant')).toEqual([]);
    expect(third.index.suggest('hol')).toEqual(['holiday']);
    await third.save();
    expect(existsSync(vocabularyFile(dir))).toBe(true);
    expect(loadVocabulary(dir, store.generation())?.words.sort()).toEqual(['beach', 'holiday', 'jpg', 'png', 'sunset', 'txt']);
    // a loaded vocabulary follows later changes (removal drops a word used once)
    const gone = { kind: 'removed' as const, before: obj('c', 'sunset.png') };
    const fourth = await openOfflineIndex(store, dir);
    expect(fourth.source).toBe('loaded');
    store.apply([gone]);
    fourth.index.applyChanges([gone]);
    expect(fourth.index.suggest('sun')).toEqual([]);
    expect(fourth.index.suggest('beach')).toEqual(['beach']);
    db.close();
  });
});
