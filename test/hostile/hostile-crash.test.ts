/**
 * A run killed between "changed on disk" and "state written", then restarted (the real
 * service, a real folder, the real engine): the FaultDisk lets one write happen and then
 * "kills the process": every later disk call fails and the state db is closed, so nothing
 * after that instant reaches the disk or the state. The next engine starts from that exact
 * state. Each ends with the NAS change on disk once, nothing sent that the user did not do,
 * no placeholder lost or moved aside, and a further restart changes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FaultDisk, type Fault } from '../../main/local/disk.js';
import { openStateDb } from '../../main/state/db.js';
import { startRig, waitFor, type Rig } from '../integration/local/harness.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

interface Ids {
  F: string;
  a: string;
  b: string;
}

async function seeded(): Promise<{ r: Rig; ids: Ids }> {
  const ids = { F: '', a: '', b: '' };
  rig = await startRig((svc, root) => {
    ids.F = svc.admin.createFolder(root, 'F').id;
    ids.a = svc.admin.createFile(ids.F, 'a.txt').id;
    ids.b = svc.admin.createFile(ids.F, 'b.txt').id;
    svc.admin.createFile(root, 'top.txt');
  });
  return { r: rig, ids };
}

/** Runs the engine's next round on a disk that dies right after the call `fault` names; then starts a fresh engine. */
async function crashThenRestart(r: Rig, fault: Omit<Fault, 'errno' | 'crash'>): Promise<void> {
  const disk = new FaultDisk();
  const db = openStateDb(r.state);
  let crashed = false;
  disk.add({
    ...fault,
    errno: 'EIO',
    times: 1,
    crash: () => {
      crashed = true;
      db.close();
    },
  });
  await r.restart({ disk, db }).catch(() => undefined);
  await r.engine.syncNow().catch(() => undefined);
  expect(crashed).toBe(true);
  r.mark();
  await r.restart();
  await r.engine.drainOutbox();
}

/** Nothing sent, nothing aside, nothing in staging, no conflict; and a further restart changes nothing. */
async function expectCalm(r: Rig): Promise<void> {
  await r.engine.fullRescan();
  await r.engine.drainOutbox();
  expect(r.count('POST')).toBe(0);
  expect(r.count('DELETE')).toBe(0);
  expect(r.engine.actions.localOnly()).toHaveLength(0);
  expect(r.engine.actions.conflicts().conflicts).toHaveLength(0);
  expect(r.engine.status().heldDeletes).toBe(0);
  expect(existsSync(join(r.mirror, '.nas-mirror', 'local-only'))).toBe(false);
  expect(readdirSync(join(r.mirror, '.nas-mirror', 'staging'))).toEqual([]);
  expect(existsSync(join(r.mirror, 'top.txt'))).toBe(true);
}

describe('killed between "changed on disk" and "state written": a restart recovers', () => {
  it('a NAS rename, killed with the placeholder in staging: put back, then renamed; nothing sent', async () => {
    const { r, ids } = await seeded();
    const ino = statSync(join(r.mirror, 'F', 'a.txt')).ino;
    await r.client.patch(ids.a, { name: 'a2.txt' });
    await crashThenRestart(r, { op: 'rename', path: '/F/a.txt' });
    await waitFor(() => existsSync(join(r.mirror, 'F', 'a2.txt')), 'renamed after the restart');
    expect(existsSync(join(r.mirror, 'F', 'a.txt'))).toBe(false);
    expect(statSync(join(r.mirror, 'F', 'a2.txt')).ino).toBe(ino);
    await expectCalm(r);
    await r.restart();
    await expectCalm(r);
    expect(r.svc.admin.get(ids.a)?.name).toBe('a2.txt');
  });

  it('a NAS rename, killed after the placeholder landed: taken as done; nothing sent', async () => {
    const { r, ids } = await seeded();
    const ino = statSync(join(r.mirror, 'F', 'a.txt')).ino;
    await r.client.patch(ids.a, { name: 'a2.txt' });
    await crashThenRestart(r, { op: 'rename', path: /staging\// });
    expect(existsSync(join(r.mirror, 'F', 'a2.txt'))).toBe(true);
    expect(existsSync(join(r.mirror, 'F', 'a.txt'))).toBe(false);
    expect(statSync(join(r.mirror, 'F', 'a2.txt')).ino).toBe(ino);
    await expectCalm(r);
    await r.restart();
    await expectCalm(r);
    expect(r.svc.admin.get(ids.a)?.name).toBe('a2.txt');
  });

  it('a NAS folder move, killed after the folder landed: its children follow; nothing sent', async () => {
    const { r, ids } = await seeded();
    const g = r.svc.admin.createFolder(r.svc.admin.rootId(), 'G');
    await r.engine.syncNow();
    await waitFor(() => existsSync(join(r.mirror, 'G')), 'G placed');
    await r.client.patch(ids.F, { parentID: g.id, name: 'F moved' });
    await crashThenRestart(r, { op: 'rename', path: /staging\// });
    await waitFor(() => existsSync(join(r.mirror, 'G', 'F moved', 'a.txt')), 'moved folder with its children');
    expect(existsSync(join(r.mirror, 'F'))).toBe(false);
    expect(readdirSync(join(r.mirror, 'G', 'F moved')).sort()).toEqual(['a.txt', 'b.txt']);
    await expectCalm(r);
  });

  it('a new NAS file, killed right after the placeholder was created: adopted, not moved aside', async () => {
    const { r, ids } = await seeded();
    r.svc.admin.createFile(ids.F, 'new.txt');
    await crashThenRestart(r, { op: 'createFile', path: '/F/new.txt' });
    await waitFor(() => r.engine.actions.activity().some((a) => a.kind === 'remote-added' || a.summary.includes('placed')), 'reconciled');
    expect(existsSync(join(r.mirror, 'F', 'new.txt'))).toBe(true);
    await expectCalm(r);
    await r.restart();
    await expectCalm(r);
    expect(existsSync(join(r.mirror, 'F', 'new.txt'))).toBe(true);
  });

  it("a NAS delete, killed right after the placeholder was removed: done, never read as the user's delete", async () => {
    const { r, ids } = await seeded();
    await r.client.delete(ids.b);
    await r.svc.admin.drainDeletes();
    await crashThenRestart(r, { op: 'unlink', path: '/F/b.txt' });
    expect(existsSync(join(r.mirror, 'F', 'b.txt'))).toBe(false);
    await expectCalm(r);
    await r.restart();
    await expectCalm(r);
    expect(existsSync(join(r.mirror, 'F', 'a.txt'))).toBe(true);
  });

  it('a local rename, killed after the disk showed it but before the outbox held it: sent exactly once after the restart', async () => {
    const { r, ids } = await seeded();
    // the user's rename is on disk; the engine is killed while reading it (before the batch's transaction)
    const disk = new FaultDisk();
    const db = openStateDb(r.state);
    await r.restart({ disk, db });
    disk.add({ op: 'lstat', path: '/F/mine.txt', errno: 'EIO', times: 1, crash: () => db.close() });
    renameSync(join(r.mirror, 'F', 'a.txt'), join(r.mirror, 'F', 'mine.txt'));
    await waitFor(() => disk.failed.length > 0, 'killed while reading the batch');
    r.mark();
    await r.restart();
    await r.engine.drainOutbox();
    await waitFor(() => r.svc.admin.get(ids.a)?.name === 'mine.txt', 'the rename reaches the NAS');
    await r.restart();
    await r.engine.fullRescan();
    await r.engine.drainOutbox();
    expect(r.count('POST')).toBe(1);
    expect(r.count('DELETE')).toBe(0);
  });
});
