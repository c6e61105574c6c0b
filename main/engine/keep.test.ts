/**
 * The keeper alone (engine/keep.ts), on a real state db with a fake download: a pinned
 * folder's files are fetched a few at a time (never more than KEEP_CONCURRENCY requests; the
 * next goes once an answer is in, not once its file is in place), a failure is
 * said once (not again at the next walk when it is the same), a NAS without the content
 * interface stops the pass (its notice is Downloads'), and unpinning stops what was not begun.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../app/errors.js';
import type { RemoteObject } from '../../app/model/remote-object.js';
import type { ActivityInput } from '../local/local-store.js';
import { LocalStore } from '../local/local-store.js';
import { LocalModel, type LocalEntry } from '../local/model.js';
import { realDisk } from '../local/disk.js';
import { silentLogger } from '../log/logger.js';
import type { MirrorStore } from '../mirror/store.js';
import { openStateDb } from '../state/db.js';
import { Lock } from './core.js';
import type { PendingGet } from './downloads.js';
import { KEEP_CONCURRENCY, Keeper } from './keep.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const T0 = '2021-01-01T00:00:00.000Z';
const entry = (id: string, kind: 'file' | 'dir', lparent: string): LocalEntry => ({
  id,
  kind,
  lparent,
  lname: id,
  ino: `i-${id}`,
  filled: false,
  rparent: lparent,
  rname: id,
  etag: `"${id}"`,
  mtime: T0,
  setag: `"${id}"`,
  state: 'ok',
});
const obj = (id: string): RemoteObject => ({
  id,
  parentID: 'Docs',
  eTag: `"${id}"`,
  mimeType: 'application/octet-stream',
  name: id,
  mTime: T0,
  cTime: T0,
  hidden: 'none',
  size: 10,
});

type Get = (id: string) => Promise<{ path: string; downloaded: boolean }> | PendingGet;

function world(get: Get): { keeper: Keeper; acts: ActivityInput[]; local: LocalStore } {
  const dir = mkdtempSync(join(tmpdir(), 'nm-keep-'));
  dirs.push(dir);
  const db = openStateDb(dir);
  const local = new LocalStore(db);
  const files = Array.from({ length: 20 }, (_, i) => entry(`f${i}`, 'file', 'Docs'));
  const model = new LocalModel('root', [entry('root', 'dir', ''), entry('Docs', 'dir', 'root'), ...files]);
  const store = { get: (id: string) => (id.startsWith('f') ? obj(id) : undefined) } as unknown as MirrorStore;
  const acts: ActivityInput[] = [];
  const keeper = new Keeper({
    core: { root: dir, db, model, store, local, disk: realDisk, activity: (a) => acts.push(a), log: silentLogger },
    lock: new Lock(),
    get,
    stopped: () => false,
    changed: () => undefined,
  });
  return { keeper, acts, local };
}

describe('Keeper', () => {
  it('downloads a pinned folder a few at a time and says a failure once', async () => {
    let now = 0;
    let most = 0;
    const asked: string[] = [];
    const { keeper, acts } = world(async (id) => {
      asked.push(id);
      most = Math.max(most, ++now);
      await new Promise((r) => setTimeout(r, 2));
      now--;
      if (id === 'f3') throw new AppError('NetworkError', 'cut');
      return { path: id, downloaded: true };
    });
    expect(await keeper.pin('Docs')).toEqual({ files: 20 });
    await keeper.idle();
    expect(asked.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `f${i}`).sort());
    expect(most).toBe(KEEP_CONCURRENCY);
    expect(acts.map((a) => a.kind)).toEqual(['pinned', 'kept', 'error']);
    expect(acts[1]!.summary).toBe('kept on this device: downloaded 19 files');
    expect(acts[2]!.reason).toContain('Docs/f3: cut');
    // the next walk: the same failure is not said again
    keeper.kick();
    await keeper.idle();
    expect(acts.filter((a) => a.kind === 'error')).toHaveLength(1);
  });

  it('sends the next request once an answer is in, while the files before are synced and put in place', async () => {
    let requests = 0;
    let most = 0;
    let placing = 0;
    let mostPlacing = 0;
    const { keeper, acts } = world((id) => {
      most = Math.max(most, ++requests);
      const fetched = new Promise<void>((r) => setTimeout(r, 2)).then(() => {
        requests--;
        mostPlacing = Math.max(mostPlacing, ++placing);
      });
      // each file takes 40 ms to be synced and put in place after its answer
      const done = fetched
        .then(() => new Promise((r) => setTimeout(r, 40)))
        .then(() => {
          placing--;
          if (id === 'f5') throw new AppError('Conflict', 'changed while it downloaded');
          return { path: id, downloaded: true };
        });
      return Object.assign(done, { fetched });
    });
    await keeper.pin('Docs');
    await keeper.idle();
    expect(most).toBe(KEEP_CONCURRENCY);
    // the requests did not wait for the files before them: more of those in progress than requests
    expect(mostPlacing).toBeGreaterThan(KEEP_CONCURRENCY);
    expect(acts.map((a) => a.kind)).toEqual(['pinned', 'kept', 'error']);
    expect(acts[1]!.summary).toBe('kept on this device: downloaded 19 files');
    expect(acts[2]!.reason).toContain('Docs/f5: changed while it downloaded');
  });

  it('a NAS without the content interface stops the pass, with no error line of its own', async () => {
    let calls = 0;
    const { keeper, acts } = world(async () => {
      calls++;
      throw new AppError('NoContentInterface', 'no content here');
    });
    await keeper.pin('Docs');
    await keeper.idle();
    expect(calls).toBeLessThanOrEqual(KEEP_CONCURRENCY);
    expect(acts.map((a) => a.kind)).toEqual(['pinned']);
  });

  it('unpinned meanwhile: what was not begun is not downloaded; unpinning a file kept through its folder is refused', async () => {
    const asked: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const { keeper, local } = world(async (id) => {
      asked.push(id);
      await gate;
      return { path: id, downloaded: true };
    });
    await keeper.pin('Docs');
    const inside = { code: 'Conflict', message: expect.stringContaining('through the folder Docs') };
    await expect(keeper.unpin('f1')).rejects.toMatchObject(inside);
    await keeper.unpin('Docs');
    expect(local.pins().size).toBe(0);
    release();
    await keeper.idle();
    expect(asked.length).toBe(KEEP_CONCURRENCY);
    await expect(keeper.unpin('Docs')).rejects.toMatchObject({ code: 'BadRequest' });
  });
});
