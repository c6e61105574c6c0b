import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { FaultTransport } from '../../../main/client/fault-transport.js';
import { HttpTransport } from '../../../main/client/transport.js';
import { startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('local folder: renames', () => {
  it('renames a folder holding 10,000 descendants with exactly ONE patch', async () => {
    let big = '';
    rig = await startRig((svc, root) => {
      big = svc.admin.createFolder(root, 'Big').id;
      for (let d = 0; d < 100; d++) {
        const sub = svc.admin.createFolder(big, `sub${d}`).id;
        for (let f = 0; f < 99; f++) svc.admin.createFile(sub, `file${f}.txt`);
      }
    });
    const r = rig;
    expect(r.engine.status().objects).toBe(10_001);
    r.mark();
    renameSync(join(r.mirror, 'Big'), join(r.mirror, 'Huge'));
    await waitFor(() => r.svc.admin.get(big)!.name === 'Huge', 'NAS folder renamed', 60_000);
    await r.engine.drainOutbox();
    // let the watcher deliver the rest of the tree's events, then check nothing else was sent
    await r.engine.fullRescan();
    await r.engine.drainOutbox();
    expect(r.count('POST')).toBe(1);
    expect(r.count('DELETE')).toBe(0);
  }, 120_000);

  it('case-only rename', async () => {
    let id = '';
    rig = await startRig((svc, root) => {
      id = svc.admin.createFile(root, 'readme.md').id;
      svc.admin.createFile(root, 'other');
    });
    const r = rig;
    renameSync(join(r.mirror, 'readme.md'), join(r.mirror, 'README.md'));
    await waitFor(() => r.svc.admin.get(id)!.name === 'README.md', 'case-only rename on the NAS');
  });

  it('a -> b -> c in quick succession ends as c, never deleted', async () => {
    let id = '';
    rig = await startRig((svc, root) => {
      id = svc.admin.createFile(root, 'a').id;
      svc.admin.createFile(root, 'other');
    });
    const r = rig;
    r.mark();
    renameSync(join(r.mirror, 'a'), join(r.mirror, 'b'));
    renameSync(join(r.mirror, 'b'), join(r.mirror, 'c'));
    await waitFor(() => r.svc.admin.get(id)!.name === 'c', 'NAS shows c');
    await r.engine.drainOutbox();
    expect(r.count('DELETE')).toBe(0);
    expect(r.count('POST')).toBeLessThanOrEqual(2);
  });

  it('swaps two names through a temporary name', async () => {
    let x = '';
    let y = '';
    rig = await startRig((svc, root) => {
      x = svc.admin.createFile(root, 'x.txt').id;
      y = svc.admin.createFile(root, 'y.txt').id;
      svc.admin.createFile(root, 'z');
    });
    const r = rig;
    r.mark();
    renameSync(join(r.mirror, 'x.txt'), join(r.mirror, 'tmp'));
    renameSync(join(r.mirror, 'y.txt'), join(r.mirror, 'x.txt'));
    renameSync(join(r.mirror, 'tmp'), join(r.mirror, 'y.txt'));
    await waitFor(() => r.svc.admin.get(x)!.name === 'y.txt' && r.svc.admin.get(y)!.name === 'x.txt', 'names swapped on the NAS');
    await r.engine.drainOutbox();
    expect(r.engine.status().conflicts).toBe(0);
    expect(r.count('DELETE')).toBe(0);
  });

  it('a rename waiting while the NAS deletes the file (a walk sees the delete first): the rename meets 404, and the placeholder goes at the next walk', async () => {
    let a = '';
    let writesDown = false;
    const faults = new FaultTransport(new HttpTransport(), (req) =>
      writesDown && req.method === 'POST' ? { kind: 'status', status: 503 } : undefined,
    );
    rig = await startRig(
      (svc, root) => {
        a = svc.admin.createFile(root, 'a.txt').id;
        svc.admin.createFile(root, 'keep.txt');
      },
      {},
      undefined,
      faults,
    );
    const r = rig;
    writesDown = true;
    renameSync(join(r.mirror, 'a.txt'), join(r.mirror, 'b.txt'));
    await waitFor(() => r.engine.status().outbox.pending === 1 && faults.stats.faults > 0, 'the rename queued, not sent yet');
    // another client deletes it; a walk takes the delete in while the rename waits (its placeholder stays: the user's intent)
    expect(
      (await fetch(`${r.svc.baseUrl}/sdk/v2/files/${a}`, { method: 'DELETE', headers: { authorization: `Bearer ${r.svc.token()}` } }))
        .status,
    ).toBe(204);
    await r.engine.syncNow();
    expect(existsSync(join(r.mirror, 'b.txt'))).toBe(true);
    writesDown = false;
    await r.engine.drainOutbox();
    await waitFor(() => r.engine.status().conflicts === 1, 'the rename meets 404: a conflict');
    await r.engine.syncNow();
    await waitFor(() => !existsSync(join(r.mirror, 'b.txt')), 'the placeholder of what the NAS deleted goes');
    expect(existsSync(join(r.mirror, 'keep.txt'))).toBe(true);
  });
});
