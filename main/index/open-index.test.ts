import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RemoteObject } from '../../app/model/remote-object.js';
import { FOLDER_MIME } from '../../app/model/remote-object.js';
import { MirrorStore } from '../mirror/store.js';
import { openStateDb } from '../state/db.js';
import { openOfflineIndex } from './open-index.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

const obj = (id: string, name: string, parentID = 'r', extra: Partial<RemoteObject> = {}): RemoteObject => ({
  id, parentID, name, eTag: '"Ag"', mimeType: extra.mimeType ?? 'text/plain', mTime: '2020-01-01T00:00:00Z', cTime: '2020-01-01T00:00:00Z', hidden: 'none', ...extra,
});

describe('openOfflineIndex', () => {
  it('builds, follows changes, saves, and reloads without a rebuild', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oi-'));
    dirs.push(dir);
    const db = openStateDb(dir);
    const store = new MirrorStore(db);
    store.setRoot(obj('r', '', '', { mimeType: FOLDER_MIME }));
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
    const change = { kind: 'updated' as const, before: obj('b', 'hello.txt'), after: obj('b', 'goodbye.txt'), aspects: { renamed: true, moved: false, metadata: false } };
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
});
