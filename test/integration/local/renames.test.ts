import { afterEach, describe, expect, it } from 'vitest';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
afterEach(async () => { await rig?.close(); rig = undefined; });

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
    rig = await startRig((svc, root) => { id = svc.admin.createFile(root, 'readme.md').id; svc.admin.createFile(root, 'other'); });
    const r = rig;
    renameSync(join(r.mirror, 'readme.md'), join(r.mirror, 'README.md'));
    await waitFor(() => r.svc.admin.get(id)!.name === 'README.md', 'case-only rename on the NAS');
  });

  it('a -> b -> c in quick succession ends as c, never deleted', async () => {
    let id = '';
    rig = await startRig((svc, root) => { id = svc.admin.createFile(root, 'a').id; svc.admin.createFile(root, 'other'); });
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
    rig = await startRig((svc, root) => { x = svc.admin.createFile(root, 'x.txt').id; y = svc.admin.createFile(root, 'y.txt').id; svc.admin.createFile(root, 'z'); });
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
});
