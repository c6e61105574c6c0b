/**
 * Restart after changes made while the engine was stopped (cleanly, and killed with
 * SIGKILL): local rename, local delete, remote rename, remote delete, and both sides at once
 * (a local move into a folder the NAS renamed meanwhile). Each change reaches the other side
 * exactly once; the catch-up walk transfers only the folders that changed (304 for the rest).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from '../../../server/testing.js';
import { HttpTransport, type Transport } from '../../../main/client/transport.js';
import { startRig, waitFor, type Rig } from './harness.js';
import { startRunProcess } from './run-process.js';

let rig: Rig | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Tree {
  [path: string]: string;
}

/** Docs/a.txt, Docs/b.txt, Photos/p.jpg, Music/m.mp3, Keep/k.txt, top.txt, plus 30 quiet folders. */
function seed(svc: TestService, root: string): Tree {
  const ids: Tree = {};
  for (const d of ['Docs', 'Photos', 'Music', 'Keep']) ids[d] = svc.admin.createFolder(root, d).id;
  ids['Docs/a.txt'] = svc.admin.createFile(ids['Docs']!, 'a.txt').id;
  ids['Docs/b.txt'] = svc.admin.createFile(ids['Docs']!, 'b.txt').id;
  ids['Photos/p.jpg'] = svc.admin.createFile(ids['Photos']!, 'p.jpg').id;
  ids['Music/m.mp3'] = svc.admin.createFile(ids['Music']!, 'm.mp3').id;
  ids['Keep/k.txt'] = svc.admin.createFile(ids['Keep']!, 'k.txt').id;
  ids['top.txt'] = svc.admin.createFile(root, 'top.txt').id;
  for (let i = 0; i < 30; i++) {
    const q = svc.admin.createFolder(root, `Quiet ${i}`).id;
    for (let j = 0; j < 3; j++) svc.admin.createFile(q, `q${j}.txt`);
  }
  return ids;
}

/** The changes made while stopped: two local, two remote, and one of each on related objects. */
async function changeWhileStopped(
  svc: TestService,
  mirror: string,
  ids: Tree,
  patch: (id: string, body: { name?: string; parentID?: string }) => Promise<unknown>,
  del: (id: string) => Promise<unknown>,
): Promise<void> {
  renameSync(join(mirror, 'Docs', 'a.txt'), join(mirror, 'Docs', 'a renamed.txt'));
  rmSync(join(mirror, 'top.txt'));
  await patch(ids['Photos/p.jpg']!, { name: 'p renamed.jpg' });
  await del(ids['Music/m.mp3']!);
  // both sides at once: the user moves b.txt into Keep while the NAS renames Keep
  renameSync(join(mirror, 'Docs', 'b.txt'), join(mirror, 'Keep', 'b.txt'));
  await patch(ids['Keep']!, { name: 'Keep (NAS)' });
}

async function expectConverged(svc: TestService, mirror: string, ids: Tree): Promise<void> {
  const name = (k: string): string | undefined => svc.admin.get(ids[k]!)?.name;
  await waitFor(
    () =>
      name('Docs/a.txt') === 'a renamed.txt' &&
      svc.admin.get(ids['top.txt']!) === undefined &&
      svc.admin.get(ids['Docs/b.txt']!)?.parentID === ids['Keep'],
    'local changes on the NAS',
    30_000,
  );
  await waitFor(
    () => existsSync(join(mirror, 'Photos', 'p renamed.jpg')) && !existsSync(join(mirror, 'Photos', 'p.jpg')),
    'remote rename on disk',
    30_000,
  );
  await waitFor(() => !existsSync(join(mirror, 'Music', 'm.mp3')), 'remote delete on disk', 30_000);
  await waitFor(
    () => existsSync(join(mirror, 'Keep (NAS)', 'b.txt')) && !existsSync(join(mirror, 'Keep')),
    'both sides: b.txt in the renamed folder',
    30_000,
  );
  expect(name('Keep')).toBe('Keep (NAS)');
  expect(readdirSync(join(mirror, 'Docs')).sort()).toEqual(['a renamed.txt']);
  expect(existsSync(join(mirror, 'top.txt'))).toBe(false);
}

describe('restart after changes made while stopped', () => {
  it('clean stop: every change reaches the other side exactly once; the catch-up walk lists only what changed', async () => {
    let ids: Tree = {};
    /** Each listing request: its status, and how many folders it asked (small folders go several in one). */
    const listings: { status: number; folders: number }[] = [];
    const inner = new HttpTransport();
    const recording: Transport = {
      request: async (req) => {
        const res = await inner.request(req);
        if (req.url.includes('/filesSearch/parents'))
          listings.push({ status: res.status, folders: (new URL(req.url).searchParams.get('ids') ?? '').split(',').length });
        return res;
      },
      close: () => inner.close(),
    };
    rig = await startRig(
      (svc, root) => {
        ids = seed(svc, root);
      },
      {},
      undefined,
      recording,
    );
    const r = rig;
    await r.engine.stop();
    await changeWhileStopped(
      r.svc,
      r.mirror,
      ids,
      (id, b) => r.client.patch(id, b),
      (id) => r.client.delete(id),
    );
    r.mark();
    listings.length = 0;
    await r.restart();
    await expectConverged(r.svc, r.mirror, ids);
    await r.engine.drainOutbox();
    // the catch-up walk: only the requests holding the root, Docs, Photos, Music and Keep answered 200
    // (a quiet small folder asked in the same request as one of them comes again with it), the
    // others 304; the 35 folders in a handful of requests
    const said = JSON.stringify(listings); // (a CI run once saw no 304 at all: say what there was)
    expect(listings.filter((l) => l.status === 200).length, said).toBeLessThanOrEqual(5);
    expect(listings.filter((l) => l.status === 304).length, said).toBeGreaterThan(0);
    expect(listings.every((l) => l.status === 200 || l.status === 304)).toBe(true);
    expect(listings.reduce((n, l) => n + l.folders, 0)).toBeGreaterThanOrEqual(35);
    expect(listings.length).toBeLessThan(15);
    // exactly once: a rename, a move, a delete
    expect(r.count('POST', '/files/')).toBe(2);
    expect(r.count('DELETE', '/files/')).toBe(1);
    expect(r.engine.status().conflicts).toBe(0);
    expect(r.engine.status().outbox.pending).toBe(0);
  });

  it('SIGKILL: a real `nas-mirror run` killed, changes made, started again: the same, exactly once', async () => {
    const svc = await startTestService();
    cleanups.push(() => svc.stop());
    const ids = seed(svc, svc.admin.rootId());
    const base = mkdtempSync(join(tmpdir(), 'nas-restart-'));
    cleanups.push(() => rmSync(base, { recursive: true, force: true }));
    const state = join(base, 'state');
    const mirror = join(base, 'mirror');
    let p = startRunProcess(svc, state, mirror);
    cleanups.push(() => {
      p.child.kill('SIGKILL');
    });
    await waitFor(() => p.err().includes('watching'), 'ready', 60_000);
    await waitFor(() => existsSync(join(mirror, 'Quiet 29', 'q2.txt')), 'placeholders', 30_000);
    p.child.kill('SIGKILL');
    await p.exit;
    const token = svc.token();
    const call = async (method: string, path: string, body?: unknown): Promise<void> => {
      const res = await fetch(`${svc.baseUrl}/sdk/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status}`);
    };
    await changeWhileStopped(
      svc,
      mirror,
      ids,
      (id, b) => call('POST', `/files/${id}/patch`, b),
      (id) => call('DELETE', `/files/${id}`),
    );
    const before = svc.requests().length;
    p = startRunProcess(svc, state, mirror);
    await expectConverged(svc, mirror, ids);
    await waitFor(() => p.err().includes('watching'), 'ready again', 30_000);
    expect(
      svc
        .requests()
        .slice(before)
        .filter((q) => q.method === 'POST' && q.path.includes('/files/')),
    ).toHaveLength(2);
    expect(
      svc
        .requests()
        .slice(before)
        .filter((q) => q.method === 'DELETE' && q.path.includes('/files/')),
    ).toHaveLength(1);
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);
  });
});

describe('the watcher limit', () => {
  it('ENOSPC: the engine polls folders, says how many watches it needs, and a rename still reaches the NAS', async () => {
    let ids: Tree = {};
    rig = await startRig(
      (svc, root) => {
        ids = seed(svc, root);
      },
      { watcher: { pollIntervalMs: 100 } },
    );
    const r = rig;
    r.engine.simulateWatcherError(Object.assign(new Error('watch ENOSPC'), { code: 'ENOSPC' }));
    await waitFor(() => r.engine.status().watcher.polling, 'polling');
    // root, 34 folders, .nas-mirror/selftest and .nas-mirror: one watch each
    expect(r.engine.status().watcher.notice).toContain('needs 37 watches');
    expect(r.engine.actions.activity().some((a) => a.summary === 'watching by polling')).toBe(true);
    await waitFor(
      () => r.engine.actions.activity().some((a) => a.kind === 'watcher' && a.summary.includes('self-test')),
      'self-test after the switch',
    );
    const q1 = r.engine.core.store.childByName(r.engine.core.store.childByName('root', 'Quiet 7')!.id, 'q1.txt')!.id;
    renameSync(join(r.mirror, 'Quiet 7', 'q1.txt'), join(r.mirror, 'Quiet 7', 'q1 renamed.txt'));
    await waitFor(() => r.svc.admin.get(q1)?.name === 'q1 renamed.txt', 'rename sent while polling');
    expect(r.svc.admin.get(ids['Docs/a.txt']!)?.name).toBe('a.txt');
  });
});
