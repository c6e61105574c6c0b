/**
 * The engine against the real service in quirks mode (`--quirks`, server/quirks): a device
 * that ignores If-Match, a folder deleted with 202 that is still listed, trashed objects in
 * listings, 5xx/429 bursts, opaque eTags. Each quirk that could lose data is shown not to.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../server/testing.js';
import { startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
let svc: TestService | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  await svc?.stop();
  svc = undefined;
});

/** A change made on the NAS by someone else (another client), through HTTP. */
async function nasRename(s: TestService, id: string, name: string): Promise<void> {
  const r = await fetch(`${s.baseUrl}/sdk/v2/files/${id}/patch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token()}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(r.status).toBe(204);
}

const postsPerPath = (s: TestService, from: number): Map<string, number> => {
  const m = new Map<string, number>();
  for (const r of s.requests().slice(from)) if (r.method === 'POST') m.set(r.path, (m.get(r.path) ?? 0) + 1);
  return m;
};

describe('a device that ignores If-Match', () => {
  it('is detected by a stale probe, and a stale rename or delete is still never applied blindly', async () => {
    svc = await startTestService({ quirks: 'ignore-if-match' });
    let a = '';
    let b = '';
    let c = '';
    rig = await startRig(
      (s, root) => {
        a = s.admin.createFile(root, 'a.txt').id;
        b = s.admin.createFile(root, 'b.txt').id;
        c = s.admin.createFile(root, 'c.txt').id;
      },
      {},
      svc,
    );
    const r = rig;
    const s = svc;
    // A fresh rename goes through (the probe runs first, and finds the quirk).
    renameSync(join(r.mirror, 'c.txt'), join(r.mirror, 'c2.txt'));
    await waitFor(() => s.admin.get(c)?.name === 'c2.txt', 'fresh rename applied');
    expect(r.client.quirks.ifMatch).toBe('ignored');
    // Someone renames a and b on the NAS; the engine has not walked since (rewalk off).
    await nasRename(s, a, 'nas-a.txt');
    await nasRename(s, b, 'nas-b.txt');
    renameSync(join(r.mirror, 'a.txt'), join(r.mirror, 'mine-a.txt'));
    rmSync(join(r.mirror, 'b.txt'));
    await waitFor(() => r.engine.status().conflicts >= 1 && r.engine.status().outbox.pending === 0, 'stale changes settled');
    await r.engine.drainOutbox();
    expect(s.admin.get(a)?.name).toBe('nas-a.txt'); // not overwritten
    expect(s.admin.get(b)?.name).toBe('nas-b.txt'); // not deleted
    expect(s.requests().filter((q) => q.method === 'DELETE')).toHaveLength(0);
  }, 60_000);
});

describe('a folder deleted with 202 that is still listed, and trashed objects', () => {
  it('neither re-creates them locally nor sends the delete again', async () => {
    svc = await startTestService({ quirks: 'lingering-delete,trashed', lingerMs: 60_000 });
    let big = '';
    let f = '';
    rig = await startRig(
      (s, root) => {
        big = s.admin.createFolder(root, 'Big').id;
        for (let i = 0; i < 5; i++) s.admin.createFile(big, `in${i}.txt`);
        f = s.admin.createFile(root, 'loose.txt').id;
        s.admin.createFile(root, 'keep.txt');
      },
      {},
      svc,
    );
    const r = rig;
    const s = svc;
    r.mark();
    rmSync(join(r.mirror, 'Big'), { recursive: true });
    rmSync(join(r.mirror, 'loose.txt'));
    await waitFor(() => s.admin.get(big) === undefined && s.admin.get(f) === undefined, 'deletes applied on the NAS');
    await r.engine.drainOutbox();
    // The device still lists Big (as it was) and loose.txt (trashed: true).
    const listed = (await fetch(`${s.baseUrl}/sdk/v2/filesSearch/parents?ids=root&pageToken=`, {
      headers: { authorization: `Bearer ${s.token()}` },
    }).then((x) => x.json())) as { files: { id: string; trashed?: boolean }[] };
    expect(listed.files.find((o) => o.id === big)?.trashed).toBeUndefined();
    expect(listed.files.find((o) => o.id === f)?.trashed).toBe(true);
    await r.engine.syncNow();
    await r.engine.syncNow();
    expect(existsSync(join(r.mirror, 'Big'))).toBe(false);
    expect(existsSync(join(r.mirror, 'loose.txt'))).toBe(false);
    expect(existsSync(join(r.mirror, 'keep.txt'))).toBe(true);
    expect(r.count('DELETE')).toBe(2);
    expect(r.engine.status().conflicts).toBe(0);
    expect(r.engine.status().outbox.pending).toBe(0);
    // the ghost folder's own listing answers 404: that folder is gone, not the NAS (the walk completes)
    expect(r.engine.status().state).toBe('synced');
  }, 60_000);

  it("never mirrors objects that are already in the NAS's trash", async () => {
    svc = await startTestService({ quirks: 'trashed' });
    const s = svc;
    const gone = s.admin.createFile('root', 'trashed-before.txt');
    const del = await fetch(`${s.baseUrl}/sdk/v2/files/${gone.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${s.token()}` },
    });
    expect(del.status).toBe(204);
    rig = await startRig(
      (x, root) => {
        x.admin.createFile(root, 'alive.txt');
      },
      {},
      s,
    );
    expect(existsSync(join(rig.mirror, 'alive.txt'))).toBe(true);
    expect(existsSync(join(rig.mirror, 'trashed-before.txt'))).toBe(false);
    expect(rig.engine.status().objects).toBe(1); // alive.txt only
  }, 60_000);
});

describe('5xx and 429 bursts (a device rebooting)', () => {
  it('says offline with the reason, keeps the changes queued, and replays each exactly once', async () => {
    svc = await startTestService({ quirks: 'bursts' });
    const ids: string[] = [];
    rig = await startRig(
      (s, root) => {
        for (let i = 0; i < 4; i++) ids.push(s.admin.createFile(root, `f${i}.txt`).id);
      },
      {},
      svc,
    );
    const r = rig;
    const s = svc;
    const from = s.requests().length;
    s.quirks!.outage(4000);
    for (let i = 0; i < 4; i++) renameSync(join(r.mirror, `f${i}.txt`), join(r.mirror, `g${i}.txt`));
    await waitFor(() => r.engine.status().connection === 'offline' && r.engine.status().error !== null, 'offline with a reason');
    expect(r.engine.status().error!.message).toMatch(/Unavailable|Bad Gateway|Too Many Requests/);
    expect(r.engine.status().outbox.pending).toBeGreaterThan(0);
    await waitFor(() => ids.every((id, i) => s.admin.get(id)?.name === `g${i}.txt`), 'all renames replayed', 60_000);
    await r.engine.drainOutbox();
    expect(s.quirks!.refused()).toBeGreaterThan(0);
    const posts = postsPerPath(s, from);
    expect(posts.size).toBe(4);
    expect([...posts.values()].every((n) => n === 1)).toBe(true);
    expect(r.engine.status().conflicts).toBe(0);
    expect(r.engine.status().connection).toBe('online');
  }, 90_000);
});

describe('opaque eTags', () => {
  it('echoes them byte for byte: renames apply, a stale one is still refused', async () => {
    svc = await startTestService({ quirks: 'opaque-etags' });
    let a = '';
    let b = '';
    rig = await startRig(
      (s, root) => {
        a = s.admin.createFile(root, 'a.txt').id;
        b = s.admin.createFile(root, 'b.txt').id;
      },
      {},
      svc,
    );
    const r = rig;
    const s = svc;
    expect((await r.client.get(a)).eTag).toMatch(/^"x-[0-9a-f]{16}"$/);
    renameSync(join(r.mirror, 'a.txt'), join(r.mirror, 'a2.txt'));
    await waitFor(() => s.admin.get(a)?.name === 'a2.txt', 'rename with an opaque If-Match');
    await nasRename(s, b, 'nas-b.txt');
    renameSync(join(r.mirror, 'b.txt'), join(r.mirror, 'mine-b.txt'));
    await waitFor(() => r.engine.status().conflicts === 1, 'stale rename is a conflict');
    expect(s.admin.get(b)?.name).toBe('nas-b.txt');
    expect(r.client.quirks.ifMatch).toBe('honoured');
  }, 60_000);
});
