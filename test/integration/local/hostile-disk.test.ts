/**
 * A faulty disk (main/local/disk.ts FaultDisk) under the real engine and the real service:
 * only ENOENT is absence. EIO on an entry's lstat, EACCES on a folder's readdir: the batch
 * fails and waits, the status says why, nothing is sent, nothing is lost. And the client's own
 * folder `.nas-mirror` replaced by a link to a folder outside: refused, paused, nothing written there.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceClient } from '../../../main/client/service-client.js';
import { startRig, waitFor, type Rig } from './harness.js';
import { FaultDisk } from '../../../main/local/disk.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('faulty disk: never a false delete', () => {
  for (const fault of [
    { op: 'lstat', path: '/F/a.txt', errno: 'EIO' },
    { op: 'readdir', path: '/F', errno: 'EACCES' },
  ] as const) {
    it(`${fault.errno} on ${fault.op} of ${fault.path}: the batch waits, the status says why, no DELETE`, async () => {
      const disk = new FaultDisk();
      rig = await startRig(
        (svc, root) => {
          const f = svc.admin.createFolder(root, 'F');
          svc.admin.createFile(f.id, 'a.txt');
          svc.admin.createFile(f.id, 'b.txt');
        },
        { disk },
      );
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

describe("the client's own folder as a symlink", () => {
  it('.nas-mirror replaced by a link to a folder outside: sync pauses and says why, nothing is written through it, the filled file stays', async () => {
    let fileId = '';
    rig = await startRig((svc, root) => {
      const f = svc.admin.createFolder(root, 'F');
      fileId = svc.admin.createFile(f.id, 'a.txt').id;
      svc.admin.createFile(root, 'top.txt');
    });
    const r = rig;
    writeFileSync(join(r.mirror, 'F', 'a.txt'), 'the user wrote this');
    await waitFor(() => r.engine.actions.localOnly().length === 1, 'filled placeholder seen');
    // the attacker's folder, with a copy of our marker so the marker check alone would pass
    const outside = mkdtempSync(join(tmpdir(), 'outside-'));
    try {
      cpSync(join(r.mirror, '.nas-mirror'), join(outside, 'copy'), { recursive: true });
      rmSync(join(r.mirror, '.nas-mirror'), { recursive: true, force: true });
      renameSync(join(outside, 'copy'), join(outside, 'ours'));
      symlinkSync(join(outside, 'ours'), join(r.mirror, '.nas-mirror'));
      const before = readdirSync(join(outside, 'ours')).sort();
      const untouched = (): void => {
        expect(readdirSync(join(outside, 'ours')).sort()).toEqual(before);
        expect(existsSync(join(outside, 'ours', 'local-only'))).toBe(false);
        if (existsSync(join(outside, 'ours', 'staging'))) expect(readdirSync(join(outside, 'ours', 'staging'))).toEqual([]);
      };
      // the NAS deletes the filled file: removing it would move it to .nas-mirror/local-only
      const other = new ServiceClient({ baseUrl: r.svc.baseUrl, token: r.svc.token() });
      await other.delete(fileId);
      other.close();
      await r.engine.syncNow();
      await waitFor(() => r.engine.status().mirrorMissing !== null, 'paused: our folder is a link');
      expect(r.engine.status().mirrorMissing).toContain('.nas-mirror in the mirror folder is a link');
      untouched();
      expect(readFileSync(join(r.mirror, 'F', 'a.txt'), 'utf8')).toBe('the user wrote this');
      // resuming does not write through the link either
      await expect(r.engine.setPaused(false)).rejects.toMatchObject({ message: expect.stringContaining('is a link') });
      untouched();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
