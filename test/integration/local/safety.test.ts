import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startRig, waitFor, type Rig } from './harness.js';
import { FaultTransport } from '../../../main/client/fault-transport.js';
import { HttpTransport } from '../../../main/client/transport.js';
import { ServiceClient } from '../../../main/client/service-client.js';
import { openServiceDb } from '../../../server/store/schema.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('local folder: nothing lost', () => {
  it('rm -rf of the mirror root pauses sync and deletes nothing; resume restores the placeholders', async () => {
    rig = await startRig((svc, root) => {
      const f = svc.admin.createFolder(root, 'F');
      for (let i = 0; i < 30; i++) svc.admin.createFile(f.id, `x${i}`);
      svc.admin.createFile(root, 'top.txt');
    });
    const r = rig;
    r.mark();
    rmSync(r.mirror, { recursive: true, force: true });
    await waitFor(() => r.engine.status().mirrorMissing !== null, 'paused: mirror missing');
    await r.engine.drainOutbox();
    expect(r.count('DELETE')).toBe(0);
    expect(r.engine.status().state).toBe('mirror-missing');
    await r.engine.setPaused(false);
    await waitFor(() => existsSync(join(r.mirror, 'F', 'x29')) && existsSync(join(r.mirror, 'top.txt')), 'placeholders restored');
    await r.engine.fullRescan();
    await r.engine.drainOutbox();
    expect(r.count('DELETE')).toBe(0);
    // the watcher follows the recreated folder
    renameSync(join(r.mirror, 'top.txt'), join(r.mirror, 'top2.txt'));
    await waitFor(async () => (await r.nasChildren(r.svc.admin.rootId())).has('top2.txt'), 'rename after restore reaches the NAS');
  });

  it('a start with the mirror folder gone (a disk not plugged in) creates nothing at its path and says it is missing', async () => {
    rig = await startRig((svc, root) => {
      for (let i = 0; i < 3; i++) svc.admin.createFile(root, `x${i}`);
    });
    const r = rig;
    await r.engine.stop();
    rmSync(r.mirror, { recursive: true, force: true });
    r.mark();
    await r.restart();
    await waitFor(() => r.engine.status().mirrorMissing !== null, 'paused: mirror missing');
    // nothing made at the path (on an unplugged disk's mount point, a folder there would hide the disk when it comes back)
    expect(existsSync(r.mirror)).toBe(false);
    expect(r.engine.status().mirrorMissing).toMatch(/is missing/);
    expect(r.count('DELETE')).toBe(0);
  });

  it('an emptied mirror folder pauses sync and deletes nothing', async () => {
    rig = await startRig((svc, root) => {
      for (let i = 0; i < 5; i++) svc.admin.createFile(root, `x${i}`);
    });
    const r = rig;
    r.mark();
    for (const n of readdirSync(r.mirror)) if (n !== '.nas-mirror') rmSync(join(r.mirror, n), { recursive: true });
    await waitFor(() => r.engine.status().mirrorMissing !== null, 'paused: emptied');
    expect(r.count('DELETE')).toBe(0);
  });

  it('1,000 deletes at once are held; rejecting brings the placeholders back', async () => {
    rig = await startRig(
      (svc, root) => {
        const f = svc.admin.createFolder(root, 'Many');
        for (let i = 0; i < 1000; i++) svc.admin.createFile(f.id, `m${i}`);
        svc.admin.createFile(root, 'keep');
      },
      { threshold: { count: 50, percent: 10 } },
    );
    const r = rig;
    r.mark();
    for (const n of readdirSync(join(r.mirror, 'Many'))) rmSync(join(r.mirror, 'Many', n));
    await waitFor(() => r.engine.status().heldObjects === 1000, 'all 1000 held', 30_000);
    expect(r.count('DELETE')).toBe(0);
    const held = r.engine.actions.conflicts().held;
    expect(held).toHaveLength(1000);
    expect((await r.engine.actions.resolveHeld(['all'], 'reject')).done).toBe(1000);
    await waitFor(() => readdirSync(join(r.mirror, 'Many')).length === 1000, 'placeholders back');
    await r.engine.fullRescan();
    await r.engine.drainOutbox();
    expect(r.count('DELETE')).toBe(0);
    expect(r.engine.status().heldDeletes).toBe(0);
  }, 60_000);

  it('held deletes approved are sent', async () => {
    let f = '';
    rig = await startRig(
      (svc, root) => {
        f = svc.admin.createFolder(root, 'Many').id;
        for (let i = 0; i < 60; i++) svc.admin.createFile(f, `m${i}`);
        for (let i = 0; i < 600; i++) svc.admin.createFile(root, `k${i}`);
      },
      { threshold: { count: 50, percent: 10 } },
    );
    const r = rig;
    rmSync(join(r.mirror, 'Many'), { recursive: true });
    await waitFor(() => r.engine.status().heldDeletes === 1, 'folder delete held');
    await r.engine.actions.resolveHeld(['all'], 'approve');
    await waitFor(() => r.svc.admin.get(f) === undefined, 'deleted on the NAS');
  });

  it('a folder deleted after deletes inside it were held is held too: the held ones are never deleted with it unasked', async () => {
    let f = '';
    let keep = '';
    rig = await startRig(
      (svc, root) => {
        f = svc.admin.createFolder(root, 'Many').id;
        keep = svc.admin.createFile(f, 'keep.txt').id;
        for (let i = 0; i < 60; i++) svc.admin.createFile(f, `m${i}`);
        for (let i = 0; i < 600; i++) svc.admin.createFile(root, `k${i}`);
      },
      { threshold: { count: 50, percent: 10 } },
    );
    const r = rig;
    r.mark();
    for (let i = 0; i < 60; i++) rmSync(join(r.mirror, 'Many', `m${i}`));
    await waitFor(() => r.engine.status().heldDeletes === 60, 'the 60 deletes held');
    rmSync(join(r.mirror, 'Many'), { recursive: true });
    await waitFor(() => r.engine.status().heldDeletes === 61, 'the folder delete held too');
    await r.engine.drainOutbox();
    expect(r.count('DELETE')).toBe(0);
    expect(r.engine.actions.conflicts().held.find((h) => h.id === f)!.reason).toMatch(/it held Many\/m\d+, which waits for your choice/);
    // Keep on the folder brings it back with everything in it, and clears the rows below it
    await r.engine.actions.resolveHeld([f], 'reject');
    await waitFor(
      () => existsSync(join(r.mirror, 'Many', 'm0')) && existsSync(join(r.mirror, 'Many', 'keep.txt')),
      'the folder back with what it held',
    );
    expect(r.engine.status().heldDeletes).toBe(0);
    expect(r.count('DELETE')).toBe(0);
    expect(r.svc.admin.get(keep)).toBeDefined();
  });

  it('refuses hostile names from the service and writes nothing outside the mirror', async () => {
    rig = await startRig((svc, root) => {
      svc.admin.createFile(root, 'fine.txt');
      // The reference service validates names; plant hostile ones underneath it, as a broken or malicious NAS would send them.
      const a = svc.admin.createFile(root, 'evil1');
      const b = svc.admin.createFolder(root, 'evil2');
      svc.admin.createFile(b.id, 'child');
      // Written by a second connection, as an admin process would, so the service reloads its index.
      const db = openServiceDb(svc.dataDir);
      db.prepare('UPDATE objects SET name = ? WHERE id = ?').run('../x', a.id);
      db.prepare('UPDATE objects SET name = ? WHERE id = ?').run('a/b', b.id);
      db.prepare("UPDATE meta SET value = value + 1 WHERE key = 'tree_version'").run();
      db.close();
    });
    const r = rig;
    expect(existsSync(join(r.mirror, 'fine.txt'))).toBe(true);
    expect(existsSync(join(r.mirror, '..', 'x'))).toBe(false);
    expect(existsSync(join(r.mirror, 'a'))).toBe(false);
    expect(r.engine.actions.activity().filter((a) => a.kind === 'refused')).toHaveLength(2);
    expect(readdirSync(r.mirror).sort()).toEqual(['.nas-mirror', 'fine.txt']);
  });
});

/** doc.txt renamed to mine.txt locally while paused (queued), then `patch` applied on the NAS by another client. */
async function renameLocallyWhileNasPatches(patch: { name?: string; hidden?: 'mac' }): Promise<{ r: Rig; id: string }> {
  let id = '';
  rig = await startRig((svc, root) => {
    id = svc.admin.createFile(root, 'doc.txt').id;
    svc.admin.createFile(root, 'z');
  });
  const r = rig;
  await r.engine.setPaused(true);
  renameSync(join(r.mirror, 'doc.txt'), join(r.mirror, 'mine.txt'));
  await waitFor(() => r.engine.status().outbox.pending === 1, 'local rename queued');
  const other = new ServiceClient({ baseUrl: r.svc.baseUrl, token: r.svc.token() });
  await other.patch(id, patch);
  other.close();
  return { r, id };
}

describe('local folder: races and conflicts', () => {
  it('NAS rename racing a local rename: 412 -> conflict, the NAS wins on disk', async () => {
    const { r, id } = await renameLocallyWhileNasPatches({ name: 'theirs.txt' });
    await r.engine.setPaused(false);
    await waitFor(() => r.engine.status().conflicts === 1, 'conflict listed');
    await waitFor(() => existsSync(join(r.mirror, 'theirs.txt')) && !existsSync(join(r.mirror, 'mine.txt')), 'NAS name on disk');
    expect(r.svc.admin.get(id)!.name).toBe('theirs.txt');
    // re-apply the kept intent
    const c = r.engine.actions.conflicts().conflicts[0]!;
    await r.engine.actions.resolveConflicts([c.id], 'reapply');
    await waitFor(
      () => r.svc.admin.get(id)!.name === 'mine.txt' && existsSync(join(r.mirror, 'mine.txt')),
      're-applied on the NAS and on disk',
    );
  });

  it('a local rename then delete of the same file, racing a NAS rename: both kept as conflicts, the file comes back', async () => {
    let id = '';
    rig = await startRig((svc, root) => {
      id = svc.admin.createFile(root, 'doc.txt').id;
      svc.admin.createFile(root, 'z');
    });
    const r = rig;
    await r.engine.setPaused(true);
    renameSync(join(r.mirror, 'doc.txt'), join(r.mirror, 'mine.txt'));
    await waitFor(() => r.engine.status().outbox.pending === 1, 'rename queued');
    rmSync(join(r.mirror, 'mine.txt'));
    await waitFor(() => r.engine.status().outbox.pending === 2, 'delete queued');
    const other = new ServiceClient({ baseUrl: r.svc.baseUrl, token: r.svc.token() });
    await other.patch(id, { name: 'theirs.txt' });
    other.close();
    r.mark();
    await r.engine.setPaused(false);
    await waitFor(() => r.engine.status().conflicts === 2, 'two conflicts');
    await waitFor(() => existsSync(join(r.mirror, 'theirs.txt')), 'the NAS version is back on disk');
    expect(r.count('DELETE')).toBe(0);
    expect(r.svc.admin.get(id)!.name).toBe('theirs.txt');
  });

  it('NAS delete of a locally renamed object: conflict, the placeholder goes', async () => {
    let id = '';
    rig = await startRig((svc, root) => {
      id = svc.admin.createFile(root, 'doc.txt').id;
      svc.admin.createFile(root, 'z');
    });
    const r = rig;
    await r.engine.setPaused(true);
    renameSync(join(r.mirror, 'doc.txt'), join(r.mirror, 'mine.txt'));
    await waitFor(() => r.engine.status().outbox.pending === 1, 'local rename queued');
    const other = new ServiceClient({ baseUrl: r.svc.baseUrl, token: r.svc.token() });
    await other.delete(id);
    other.close();
    await r.engine.setPaused(false);
    await waitFor(() => r.engine.status().conflicts === 1, 'conflict listed');
    await waitFor(() => !existsSync(join(r.mirror, 'mine.txt')), 'placeholder removed');
    const c = r.engine.actions.conflicts().conflicts[0]!;
    expect(c.remote).toBe('deleted on the NAS');
    expect(await r.engine.actions.resolveConflicts([c.id], 'reapply')).toEqual({
      done: 0,
      failed: [{ id: c.id, message: 'the object is no longer on the NAS' }],
    });
    expect((await r.engine.actions.resolveConflicts([c.id], 'drop')).done).toBe(1);
    expect(r.engine.status().conflicts).toBe(0);
  });

  it('offline: changes wait, then replay when the NAS is back; a lost answer is checked, not resent', async () => {
    let offline = false;
    let lose = false;
    const ft = new FaultTransport(new HttpTransport(), (req) => {
      if (offline) return { kind: 'reset-before' };
      if (lose && req.method === 'POST') {
        lose = false;
        return { kind: 'reset-after' };
      }
      return undefined;
    });
    const names: Record<string, string> = {};
    rig = await startRig(
      (svc, root) => {
        for (let i = 0; i < 5; i++) names[`f${i}`] = svc.admin.createFile(root, `f${i}`).id;
      },
      {},
      undefined,
      ft,
    );
    const r = rig;
    r.mark();
    offline = true;
    for (let i = 0; i < 5; i++) renameSync(join(r.mirror, `f${i}`), join(r.mirror, `g${i}`));
    await waitFor(() => r.engine.status().connection === 'offline' && r.engine.status().outbox.pending === 5, 'offline with 5 waiting');
    expect(r.count('POST')).toBe(0);
    lose = true;
    offline = false;
    await r.engine.drainOutbox();
    await waitFor(
      () => Object.entries(names).every(([k, id]) => r.svc.admin.get(id)!.name === k.replace('f', 'g')),
      'all renamed on the NAS',
      30_000,
    );
    expect(r.count('POST')).toBe(5); // the lost answer was checked with a GET, not resent
    expect(r.engine.status().conflicts).toBe(0);
  });

  it('undo of a rename sends the inverse patch and the disk follows', async () => {
    let id = '';
    rig = await startRig((svc, root) => {
      id = svc.admin.createFile(root, 'a.txt').id;
      svc.admin.createFile(root, 'z');
    });
    const r = rig;
    renameSync(join(r.mirror, 'a.txt'), join(r.mirror, 'b.txt'));
    await waitFor(() => r.svc.admin.get(id)!.name === 'b.txt', 'renamed on the NAS');
    await waitFor(() => r.engine.actions.activity().some((a) => a.undoable), 'undoable activity');
    const act = r.engine.actions.activity().find((a) => a.undoable)!;
    await r.engine.actions.undo(act.id);
    await waitFor(
      () => r.svc.admin.get(id)!.name === 'a.txt' && existsSync(join(r.mirror, 'a.txt')) && !existsSync(join(r.mirror, 'b.txt')),
      'undone on the NAS and on disk',
    );
  });

  it('a NAS rename is applied on disk as a rename, not seen as a user change', async () => {
    let id = '';
    rig = await startRig((svc, root) => {
      const f = svc.admin.createFolder(root, 'Folder');
      id = f.id;
      for (let i = 0; i < 50; i++) svc.admin.createFile(f.id, `c${i}`);
    });
    const r = rig;
    const other = new ServiceClient({ baseUrl: r.svc.baseUrl, token: r.svc.token() });
    await other.patch(id, { name: 'Renamed' });
    other.close();
    r.mark();
    await r.engine.syncNow();
    await waitFor(() => existsSync(join(r.mirror, 'Renamed', 'c49')) && !existsSync(join(r.mirror, 'Folder')), 'renamed on disk');
    await r.engine.fullRescan();
    await r.engine.drainOutbox();
    expect(r.count('POST') + r.count('DELETE')).toBe(0);
  });

  it('412 when the NAS changed only what the rename does not touch: re-based and applied', async () => {
    const { r, id } = await renameLocallyWhileNasPatches({ hidden: 'mac' });
    r.mark();
    await r.engine.setPaused(false);
    await waitFor(() => r.svc.admin.get(id)!.name === 'mine.txt', 'renamed after re-base');
    // the NAS applies the patch before its answer reaches the engine, which then says it
    await waitFor(() => r.engine.actions.activity().some((a) => a.reason.includes('re-based')), 'the re-base in the activity');
    expect(r.svc.admin.get(id)!.hidden).toBe('mac');
    expect(r.engine.status().conflicts).toBe(0);
    expect(r.count('POST')).toBe(2); // 412, then the re-based patch
  });

  it('412 re-base on a NAS move: the disk follows the NAS folder, the base holds the NAS parent (never the old parent with the new eTag)', async () => {
    let id = '';
    let dest = '';
    rig = await startRig((svc, root) => {
      id = svc.admin.createFile(root, 'doc.txt').id;
      dest = svc.admin.createFolder(root, 'Quotes').id;
      svc.admin.createFile(root, 'z');
    });
    const r = rig;
    await r.engine.setPaused(true);
    renameSync(join(r.mirror, 'doc.txt'), join(r.mirror, 'mine.txt'));
    await waitFor(() => r.engine.status().outbox.pending === 1, 'local rename queued');
    const other = new ServiceClient({ baseUrl: r.svc.baseUrl, token: r.svc.token() });
    await other.patch(id, { parentID: dest });
    other.close();
    await r.engine.setPaused(false);
    await waitFor(() => r.svc.admin.get(id)!.name === 'mine.txt', 'renamed after re-base');
    expect(r.svc.admin.get(id)!.parentID).toBe(dest);
    await waitFor(
      () => existsSync(join(r.mirror, 'Quotes', 'mine.txt')) && !existsSync(join(r.mirror, 'mine.txt')),
      'the disk follows the NAS move',
    );
    expect(r.engine.core.model.get(id)!.rparent).toBe(dest);
    // a later walk finds nothing to correct: the base and the NAS agree
    r.mark();
    await r.engine.syncNow();
    expect(existsSync(join(r.mirror, 'Quotes', 'mine.txt'))).toBe(true);
    expect(r.count('POST') + r.count('DELETE')).toBe(0);
    expect(r.engine.status().conflicts).toBe(0);
  });

  it('deleting a folder that gained something on the NAS the user has not seen: conflict, nothing deleted, folder back', async () => {
    let f = '';
    rig = await startRig((svc, root) => {
      f = svc.admin.createFolder(root, 'Folder').id;
      svc.admin.createFile(f, 'known.txt');
      for (let i = 0; i < 10; i++) svc.admin.createFile(root, `k${i}`);
    });
    const r = rig;
    await r.engine.setPaused(true);
    rmSync(join(r.mirror, 'Folder'), { recursive: true });
    await waitFor(() => r.engine.status().outbox.pending === 1, 'delete queued');
    r.svc.admin.createFile(f, 'surprise.txt');
    r.mark();
    await r.engine.setPaused(false);
    await waitFor(() => r.engine.status().conflicts === 1, 'conflict');
    expect(r.count('DELETE')).toBe(0);
    expect(r.svc.admin.get(f)).toBeDefined();
    expect(r.engine.actions.conflicts().conflicts[0]!.reason).toContain('not seen');
    await waitFor(() => existsSync(join(r.mirror, 'Folder', 'known.txt')), 'folder placeholder back');
    await r.engine.syncNow();
    await waitFor(() => existsSync(join(r.mirror, 'Folder', 'surprise.txt')), 'new NAS file placed');
  });
});

describe('local folder: permissions', () => {
  it('a read-only token: each change becomes a conflict, the NAS wins on disk, the queue is not blocked', async () => {
    let id = '';
    let svcToken = '';
    rig = await startRig((svc, root) => {
      id = svc.admin.createFile(root, 'a.txt').id;
      svc.admin.createFile(root, 'b.txt');
      svcToken = svc.token('nas_read_only');
    });
    const r = rig;
    await r.engine.stop();
    const ro = new ServiceClient({ baseUrl: r.svc.baseUrl, token: svcToken, retries: 0 });
    await r.restart({ client: ro });
    renameSync(join(r.mirror, 'a.txt'), join(r.mirror, 'c.txt'));
    renameSync(join(r.mirror, 'b.txt'), join(r.mirror, 'd.txt'));
    await waitFor(() => r.engine.status().conflicts === 2, 'two conflicts');
    await waitFor(() => existsSync(join(r.mirror, 'a.txt')) && existsSync(join(r.mirror, 'b.txt')), 'NAS names back on disk');
    expect(r.svc.admin.get(id)!.name).toBe('a.txt');
    expect(r.engine.actions.conflicts().conflicts[0]!.reason).toContain('403');
    await r.engine.stop();
    ro.close();
  });
});
