/**
 * Two folders that trade names in one go (a swap through a temporary name: a file manager, a
 * script, or the engine placing the NAS's swap) keep being watched: a rename inside each, made
 * right after, reaches the NAS on its own (no sync asked). Before: chokidar kept a watch at
 * each path that was on the other folder or on none, and the renames inside waited for the
 * 6-hourly rescan (the convergence soak's seed 9026 round 21; 8003 round 8). The mechanism's
 * test that fails without it is main/local/watch.test.ts (rewatch); here, the wiring through the
 * engine (a user's swap found by a batch, the NAS's swap placed by a reconcile) on a real folder.
 */
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestService } from '../../../server/testing.js';
import { startRig, waitFor, type Rig } from './harness.js';

/** A rename made on the NAS by someone else (another client), through HTTP. */
async function nasRename(s: TestService, id: string, name: string): Promise<void> {
  const r = await fetch(`${s.baseUrl}/sdk/v2/files/${id}/patch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token()}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(r.status).toBe(204);
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

interface Ids {
  a: string;
  b: string;
  a1: string;
  b1: string;
}

async function rigWithTwoFolders(): Promise<{ r: Rig; ids: Ids }> {
  const ids = { a: '', b: '', a1: '', b1: '' };
  rig = await startRig((svc, root) => {
    const m = svc.admin.createFolder(root, 'Music').id;
    ids.a = svc.admin.createFolder(m, 'Archive').id;
    ids.b = svc.admin.createFolder(m, 'Documents').id;
    ids.a1 = svc.admin.createFile(ids.a, 'a1.txt').id;
    ids.b1 = svc.admin.createFile(ids.b, 'b1.txt').id;
  });
  return { r: rig, ids };
}

describe('a swap of two folders, then a change inside each', () => {
  it('made by the user: the swap and both renames inside reach the NAS', async () => {
    const { r, ids } = await rigWithTwoFolders();
    const music = join(r.mirror, 'Music');
    renameSync(join(music, 'Archive'), join(music, 'Archive.swap'));
    renameSync(join(music, 'Documents'), join(music, 'Archive'));
    renameSync(join(music, 'Archive.swap'), join(music, 'Documents'));
    await waitFor(() => r.svc.admin.get(ids.a)!.name === 'Documents' && r.svc.admin.get(ids.b)!.name === 'Archive', 'the swap on the NAS');
    await r.engine.drainOutbox();
    renameSync(join(music, 'Documents', 'a1.txt'), join(music, 'Documents', 'a2.txt'));
    renameSync(join(music, 'Archive', 'b1.txt'), join(music, 'Archive', 'b2.txt'));
    await waitFor(
      () => r.svc.admin.get(ids.a1)!.name === 'a2.txt' && r.svc.admin.get(ids.b1)!.name === 'b2.txt',
      'both renames inside on the NAS',
    );
  }, 60_000);

  it('made on the NAS and placed by the engine: renames the user makes inside both folders then reach the NAS', async () => {
    const { r, ids } = await rigWithTwoFolders();
    const music = join(r.mirror, 'Music');
    await nasRename(r.svc, ids.a, 'Archive.swap');
    await nasRename(r.svc, ids.b, 'Archive');
    await nasRename(r.svc, ids.a, 'Documents');
    await r.engine.syncNow();
    await waitFor(() => existsSync(join(music, 'Documents', 'a1.txt')) && existsSync(join(music, 'Archive', 'b1.txt')), 'the swap placed');
    renameSync(join(music, 'Documents', 'a1.txt'), join(music, 'Documents', 'a2.txt'));
    renameSync(join(music, 'Archive', 'b1.txt'), join(music, 'Archive', 'b2.txt'));
    await waitFor(
      () => r.svc.admin.get(ids.a1)!.name === 'a2.txt' && r.svc.admin.get(ids.b1)!.name === 'b2.txt',
      'both renames inside on the NAS',
    );
  }, 60_000);
});
