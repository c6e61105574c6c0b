/**
 * The window contract's handlers over a real state db and offline index (no engine): the order
 * in which answers leave when the window asks a search and its completions back to back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppStatus } from '../../app/contract/shapes.js';
import { NaiveEngine } from '../../app/search/naive.js';
import { OfflineIndex } from '../index/offline-index.js';
import { Vocabulary } from '../index/vocabulary.js';
import { silentLogger } from '../log/logger.js';
import { MirrorStore } from '../mirror/store.js';
import { openStateDb } from '../state/db.js';
import { createHandlers, type SettingsProvider } from './handlers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

describe('handlers', () => {
  it('a search asked just before its completions is answered before the first completions load the word list', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'handlers-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const db = openStateDb(dir);
    cleanups.push(() => db.close());
    const store = new MirrorStore(db);
    const order: string[] = [];
    // the saved word list, loaded on first use (at a million names ~0.1 s, synchronously)
    const vocabulary = Vocabulary.lazySaved(store, () => {
      order.push('word list loaded');
      return { words: ['holiday'], counts: [1] };
    });
    const index = new OfflineIndex(store, new NaiveEngine(), vocabulary);
    const h = createHandlers({
      index: () => index,
      store,
      engine: () => null,
      whyNoEngine: () => 'no engine in this test',
      status: () => ({}) as AppStatus,
      desktop: { open: async () => undefined, reveal: async () => undefined },
      settings: {} as SettingsProvider,
      log: silentLogger,
    });
    // as the window's transport delivers them: both calls in one turn
    const searched = h.search({ q: 'hol' }).then(() => order.push('search answered'));
    const suggested = h.suggest({ prefix: 'hol' }).then((s) => order.push(`completions: ${s.words.join(',')}`));
    await Promise.all([searched, suggested]);
    expect(order).toEqual(['search answered', 'word list loaded', 'completions: holiday']);
  });
});
