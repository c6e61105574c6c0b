/**
 * The disk seam under the real engine and the real service (main/local/disk.ts FaultDisk):
 * EIO / EACCES / ENOSPC on each kind of write the placeholder writer makes (create, mkdir,
 * rename, utimes, unlink, rmdir). Each ends the same way: the status says DiskError with the
 * errno, nothing is sent to the NAS, no placeholder is lost (a later scan reads nothing as
 * the user's change), and once the disk heals the next walk finishes the job.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FaultDisk, type Fault } from '../../main/local/disk.js';
import { startRig, waitFor, type Rig } from '../integration/local/harness.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

interface Ids {
  F: string;
  D: string;
  a: string;
  b: string;
}
const MTIME = '2020-02-02T02:02:02.000Z';

interface Case {
  what: string;
  fault: Omit<Fault, 'errno'>;
  /** The NAS change whose placeholder write fails. */
  nas(r: Rig, ids: Ids): Promise<unknown> | unknown;
  /** Still true while the disk refuses (what the user had is where it was). */
  kept(m: string): boolean;
  /** True once the write went through. */
  done(m: string): boolean;
}

const CASES: Case[] = [
  {
    what: 'create of a new NAS file',
    fault: { op: 'createFile', path: '/F/new.txt' },
    nas: (r, i) => r.svc.admin.createFile(i.F, 'new.txt'),
    kept: (m) => !existsSync(join(m, 'F', 'new.txt')),
    done: (m) => existsSync(join(m, 'F', 'new.txt')),
  },
  {
    what: 'mkdir of a new NAS folder',
    fault: { op: 'mkdir', path: '/NewDir' },
    nas: (r) => r.svc.admin.createFolder(r.svc.admin.rootId(), 'NewDir'),
    kept: (m) => !existsSync(join(m, 'NewDir')),
    done: (m) => existsSync(join(m, 'NewDir')),
  },
  {
    what: 'rename of a NAS rename',
    fault: { op: 'rename', path: '/F/a.txt' },
    nas: (r, i) => r.client.patch(i.a, { name: 'a2.txt' }),
    kept: (m) => existsSync(join(m, 'F', 'a.txt')),
    done: (m) => existsSync(join(m, 'F', 'a2.txt')) && !existsSync(join(m, 'F', 'a.txt')),
  },
  {
    what: 'utimes of a NAS mTime change',
    fault: { op: 'utimes', path: '/F/a.txt' },
    nas: (r, i) => r.client.patch(i.a, { mTime: MTIME }),
    kept: (m) => existsSync(join(m, 'F', 'a.txt')),
    done: (m) => statSync(join(m, 'F', 'a.txt')).mtimeMs === Date.parse(MTIME),
  },
  {
    what: 'unlink of a NAS file delete',
    fault: { op: 'unlink', path: '/F/b.txt' },
    nas: async (r, i) => {
      await r.client.delete(i.b);
      await r.svc.admin.drainDeletes();
    },
    kept: (m) => existsSync(join(m, 'F', 'b.txt')),
    done: (m) => !existsSync(join(m, 'F', 'b.txt')),
  },
  {
    what: 'rmdir of a NAS folder delete',
    fault: { op: 'rmdir', path: '/D' },
    nas: async (r, i) => {
      await r.client.delete(i.D);
      await r.svc.admin.drainDeletes();
    },
    kept: (m) => existsSync(join(m, 'D')),
    done: (m) => !existsSync(join(m, 'D')),
  },
];

async function faultyRig(): Promise<{ r: Rig; disk: FaultDisk; ids: Ids }> {
  const disk = new FaultDisk();
  const ids = { F: '', D: '', a: '', b: '' };
  rig = await startRig(
    (svc, root) => {
      ids.F = svc.admin.createFolder(root, 'F').id;
      ids.a = svc.admin.createFile(ids.F, 'a.txt').id;
      ids.b = svc.admin.createFile(ids.F, 'b.txt').id;
      ids.D = svc.admin.createFolder(root, 'D').id;
      svc.admin.createFile(ids.D, 'd1.txt');
      svc.admin.createFile(root, 'top.txt');
    },
    { disk, uploads: false },
  ); // a new folder stays local only here (the put-back of a move into one)
  return { r: rig, disk, ids };
}

/** The placeholders every case must keep (the ones no NAS change touched). */
const untouched = (m: string): boolean => ['top.txt', 'F', join('F', 'a.txt')].every((p) => existsSync(join(m, p)));

describe('a failing disk under the placeholder writer: said, nothing sent, nothing lost', () => {
  for (const c of CASES) {
    for (const errno of ['EIO', 'EACCES', 'ENOSPC']) {
      it(`${errno} on ${c.what}`, async () => {
        const { r, disk, ids } = await faultyRig();
        disk.add({ ...c.fault, errno });
        await c.nas(r, ids);
        r.mark();
        await r.engine.syncNow();
        await waitFor(() => r.engine.status().error?.code === 'DiskError', 'the status says the disk refused');
        expect(r.engine.status().error?.message).toContain(errno);
        expect(r.engine.actions.activity().some((a) => a.kind === 'error' && a.reason.includes(errno))).toBe(true);
        expect(disk.failed.some((f) => f.startsWith(`${c.fault.op} `))).toBe(true);
        expect(c.kept(r.mirror)).toBe(true);
        if (c.what.startsWith('utimes') || c.what.startsWith('rename')) expect(untouched(r.mirror)).toBe(true);
        // a full read of the folder finds nothing the user did: nothing is sent
        await r.engine.fullRescan();
        await r.engine.drainOutbox();
        expect(r.count('POST')).toBe(0);
        expect(r.count('DELETE')).toBe(0);
        expect(r.engine.actions.localOnly()).toHaveLength(0);
        expect(existsSync(join(r.mirror, 'top.txt'))).toBe(true);
        // the disk heals: the next walk finishes the job, the status clears
        disk.clear();
        await r.engine.syncNow();
        await waitFor(() => c.done(r.mirror), 'done once the disk heals');
        await waitFor(() => r.engine.status().error === null, 'the status clears');
        await r.engine.fullRescan();
        await r.engine.drainOutbox();
        expect(r.count('POST')).toBe(0);
        expect(r.count('DELETE')).toBe(0);
        expect(r.engine.actions.localOnly()).toHaveLength(0);
        expect(r.engine.actions.conflicts().conflicts).toHaveLength(0);
      });
    }
  }
});

describe('a failing disk under the local pipeline: said, nothing sent, nothing lost', () => {
  for (const errno of ['EIO', 'EACCES', 'EMFILE']) {
    it(`${errno} on the lstat of a folder's stamp: the folder is read, its scan fails and says why; no request`, async () => {
      const { r, disk } = await faultyRig();
      r.mark();
      disk.add({ op: 'lstat', path: /\/F$/, errno });
      await r.engine.checkDirs();
      await waitFor(() => r.engine.status().error?.code === 'DiskError', 'the status says the disk failed');
      expect(r.engine.status().error?.message).toContain(errno);
      await r.engine.drainOutbox();
      expect(r.count('POST')).toBe(0);
      expect(r.count('DELETE')).toBe(0);
      disk.clear();
      await r.engine.fullRescan();
      await waitFor(() => r.engine.status().error === null, 'cleared once the folder reads');
      expect(existsSync(join(r.mirror, 'F', 'a.txt'))).toBe(true);
      expect(r.count('DELETE')).toBe(0);
    });
  }

  it('EIO on the put-back of a move into a local-only folder: it stays where the user put it, the conflict says so; nothing sent, nothing deleted', async () => {
    const { r, disk, ids } = await faultyRig();
    mkdirSync(join(r.mirror, 'Mine'));
    await waitFor(() => r.engine.actions.localOnly().some((l) => l.path === 'Mine'), 'Mine listed local only');
    r.mark();
    disk.add({ op: 'rename', path: '/Mine/a.txt', errno: 'EIO' });
    renameSync(join(r.mirror, 'F', 'a.txt'), join(r.mirror, 'Mine', 'a.txt'));
    await waitFor(() => r.engine.status().conflicts === 1, 'the move is listed as a conflict');
    expect(disk.failed.some((f) => f.startsWith('rename ') && f.includes('/Mine/a.txt'))).toBe(true);
    expect(existsSync(join(r.mirror, 'Mine', 'a.txt'))).toBe(true);
    expect(
      r.engine.actions
        .activity()
        .some((a) => a.kind === 'conflict' && a.summary === 'left in Mine/a.txt: the disk refused to move it back (EIO)'),
    ).toBe(true);
    await r.engine.fullRescan();
    await r.engine.drainOutbox();
    expect(r.count('POST')).toBe(0);
    expect(r.count('DELETE')).toBe(0);
    expect(r.svc.admin.get(ids.a)?.parentID).toBe(ids.F);
  });
});
