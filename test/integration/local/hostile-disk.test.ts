/**
 * A faulty disk (main/local/disk.ts FaultDisk) under the real engine and the real service:
 * only ENOENT is absence. EIO on an entry's lstat, EACCES on a folder's readdir: the batch
 * fails and waits, the status says why, nothing is sent, nothing is lost.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRig, waitFor, type Rig } from './harness.js';
import { FaultDisk } from '../../../main/local/disk.js';

let rig: Rig | undefined;
afterEach(async () => { await rig?.close(); rig = undefined; });

describe('faulty disk: never a false delete', () => {
  for (const fault of [{ op: 'lstat', path: '/F/a.txt', errno: 'EIO' }, { op: 'readdir', path: '/F', errno: 'EACCES' }] as const) {
    it(`${fault.errno} on ${fault.op} of ${fault.path}: the batch waits, the status says why, no DELETE`, async () => {
      const disk = new FaultDisk();
      rig = await startRig((svc, root) => { const f = svc.admin.createFolder(root, 'F'); svc.admin.createFile(f.id, 'a.txt'); svc.admin.createFile(f.id, 'b.txt'); }, { disk });
      const r = rig;
      r.mark();
      disk.add({ ...fault });
      writeFileSync(join(r.mirror, 'F', 'new.txt'), 'x');
      await waitFor(() => r.engine.status().error?.code === 'DiskError', 'status says the disk failed');
      expect(r.engine.status().error?.message).toContain(fault.errno);
      expect(r.engine.actions.activity().some((a) => a.kind === 'error' && a.reason.includes(fault.errno))).toBe(true);
      await r.engine.drainOutbox();
      expect(r.count('DELETE')).toBe(0);
      expect(r.count('POST')).toBe(0);
      expect(disk.failed.length).toBeGreaterThan(0);
      // the disk heals: the next read finds everything where it was
      disk.clear();
      await r.engine.fullRescan();
      await r.engine.drainOutbox();
      expect(r.engine.status().error).toBeNull();
      expect(r.count('DELETE')).toBe(0);
      expect(existsSync(join(r.mirror, 'F', 'a.txt'))).toBe(true);
      expect((await r.nasChildren(r.svc.admin.rootId())).has('F')).toBe(true);
    });
  }
});
