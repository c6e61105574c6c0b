/**
 * The local-folder scenarios with the mirror folder on a real file system (a loop image,
 * test/support/loop-fs.ts), one test file per kind so the kinds run side by side:
 * rename, move, folder rename, delete, held mass delete, wiped mirror, restart after
 * changes made while stopped; and the two identity cases of issue 21: remount-and-browse
 * and restore-from-copy. Each counts the requests at the service: exactly the user's
 * change is sent, nothing else.
 *
 * Every test starts on a freshly mounted disk. On exFAT (FUSE) inode numbers are handed out
 * per mount in lookup order, and a folder's mtime does not move when an entry inside it is
 * renamed; the remount test checks that the disk still behaves so (else it tests nothing).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestService } from '../../server/testing.js';
import { available, destroyAllDisks, makeDisk, type FsKind, type LoopDisk } from '../support/loop-fs.js';
import { lines, startDiskRig, waitFor, type DiskRig } from './disk-rig.js';

/** 213 objects in 13 folders: Docs, Photos (3 years), Music (2 albums), Many (80 files), Empty, 10 top-level files. */
type Ids = Record<string, string>;
function seedTree(svc: TestService, root: string): Ids {
  const ids: Ids = {};
  const dir = (parent: string, path: string): string =>
    (ids[path] = svc.admin.createFolder(parent === '' ? root : ids[parent]!, path.split('/').pop()!).id);
  // each file its own size and time, as real files have (what weak-evidence pairing compares, on disks without stable ids)
  let k = 0;
  const file = (parent: string, name: string): void => {
    k++;
    ids[parent ? `${parent}/${name}` : name] = svc.admin.createFile(parent === '' ? root : ids[parent]!, name, {
      size: 1000 + k,
      mTime: Date.parse('2021-06-01T10:00:00Z') + k * 61_000,
    }).id;
  };
  const pad = (i: number, n = 2): string => String(i).padStart(n, '0');
  dir('', 'Docs');
  for (const n of ['a.txt', 'b.txt', 'notes.md']) file('Docs', n);
  dir('Docs', 'Docs/Reports');
  for (let i = 0; i < 10; i++) file('Docs/Reports', `r${pad(i)}.pdf`);
  dir('', 'Photos');
  for (const [y, n] of [
    ['2019', 40],
    ['2020', 30],
    ['2021', 5],
  ] as const) {
    dir('Photos', `Photos/${y}`);
    for (let i = 0; i < n; i++) file(`Photos/${y}`, `img${pad(i, 3)}.jpg`);
  }
  dir('', 'Music');
  for (const a of ['Album A', 'Album B']) {
    dir('Music', `Music/${a}`);
    for (let i = 1; i <= 12; i++) file(`Music/${a}`, `t${pad(i)} song.mp3`);
  }
  dir('', 'Many');
  for (let i = 0; i < 80; i++) file('Many', `m${pad(i)}.txt`);
  dir('', 'Empty');
  for (let i = 0; i < 10; i++) file('', `top${pad(i)}.txt`);
  return ids;
}

/** What the engine would do next anyway: the folder stamp check, then the outbox until empty. */
async function settle(r: DiskRig): Promise<void> {
  await r.engine.checkDirs();
  await r.engine.drainOutbox();
}

/**
 * Waits up to 10 s for `cond`, without failing: the test then asserts what WAS sent, which
 * says more than a timeout (the user's change missing, and whatever else went instead).
 */
async function waitThenCheck(cond: () => boolean, what: string): Promise<void> {
  await waitFor(cond, what, 10_000).catch(() => undefined);
}

/** As a file manager or an indexer browses: every folder listed in reverse name order, every entry lstat'ed. */
function browseReverse(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir).sort().reverse()) {
    const st = lstatSync(join(dir, name));
    n++;
    if (st.isDirectory()) n += browseReverse(join(dir, name));
  }
  return n;
}

/** Inode numbers of the mirror's entries by path (`.nas-mirror` left out). */
function inodes(dir: string, prefix = '', out = new Map<string, bigint>()): Map<string, bigint> {
  for (const name of readdirSync(dir)) {
    if (prefix === '' && name === '.nas-mirror') continue;
    const st = lstatSync(join(dir, name), { bigint: true });
    out.set(prefix + name, st.ino);
    if (st.isDirectory()) inodes(join(dir, name), `${prefix}${name}/`, out);
  }
  return out;
}

export function diskSuite(kind: FsKind): void {
  const why = available(kind);
  describe.skipIf(why !== undefined)(`the mirror folder on a real ${kind} disk${why ? ` (skipped: ${why})` : ''}`, () => {
    let disk: LoopDisk | undefined;
    let rig: DiskRig | undefined;
    let ids: Ids = {};
    let n = 0;

    beforeAll(async () => {
      disk = await makeDisk(kind, 400);
    });
    // every test starts on a freshly mounted disk, as after plugging it in: on exFAT the
    // inode numbers then depend on this test alone, not on what earlier tests looked up
    beforeEach(async () => {
      await disk!.remount();
    });
    afterEach(async () => {
      const r = rig;
      rig = undefined;
      await r?.close();
      if (r) rmSync(r.mirror, { recursive: true, force: true });
    });
    afterAll(async () => {
      try {
        await rig?.close();
      } finally {
        await disk?.destroy();
        await destroyAllDisks();
      }
    });

    const start = async (): Promise<DiskRig> => {
      rig = await startDiskRig(join(disk!.dir, `mirror-${n++}`), (svc, root) => {
        ids = seedTree(svc, root);
      });
      return rig;
    };
    const name = (r: DiskRig, key: string): string | undefined => r.svc.admin.get(ids[key]!)?.name;
    const parent = (r: DiskRig, key: string): string | undefined => r.svc.admin.get(ids[key]!)?.parentID;

    it('rename', async () => {
      const r = await start();
      r.mark();
      renameSync(join(r.mirror, 'Docs', 'a.txt'), join(r.mirror, 'Docs', 'a renamed.txt'));
      await waitFor(() => name(r, 'Docs/a.txt') === 'a renamed.txt', 'the rename reaches the NAS');
      await settle(r);
      expect(r.sent()).toEqual([`PATCH ${ids['Docs/a.txt']}`]);
    });

    it('move', async () => {
      const r = await start();
      r.mark();
      renameSync(join(r.mirror, 'Docs', 'b.txt'), join(r.mirror, 'Music', 'Album A', 'b.txt'));
      await waitFor(() => parent(r, 'Docs/b.txt') === ids['Music/Album A'], 'the move reaches the NAS');
      await settle(r);
      expect(r.sent()).toEqual([`PATCH ${ids['Docs/b.txt']}`]);
      expect(name(r, 'Docs/b.txt')).toBe('b.txt');
    });

    it('folder rename', async () => {
      const r = await start();
      r.mark();
      renameSync(join(r.mirror, 'Photos', '2019'), join(r.mirror, 'Photos', '2019 Holidays'));
      await waitFor(() => name(r, 'Photos/2019') === '2019 Holidays', 'the folder rename reaches the NAS');
      await settle(r);
      expect(r.sent()).toEqual([`PATCH ${ids['Photos/2019']}`]);
      expect(parent(r, 'Photos/2019/img007.jpg')).toBe(ids['Photos/2019']);
    });

    it('delete', async () => {
      const r = await start();
      r.mark();
      rmSync(join(r.mirror, 'Docs', 'Reports', 'r03.pdf'));
      rmSync(join(r.mirror, 'Photos', '2021'), { recursive: true });
      await waitFor(
        () =>
          r.svc.admin.get(ids['Docs/Reports/r03.pdf']!) === undefined &&
          r.svc.admin.get(ids['Photos/2021']!) === undefined &&
          r.count('DELETE') >= 2,
        'both deletes reach the NAS',
      );
      await settle(r);
      expect(r.sent().sort()).toEqual([`DELETE ${ids['Docs/Reports/r03.pdf']}`, `DELETE ${ids['Photos/2021']}`].sort());
    });

    it('held mass delete', async () => {
      const r = await start();
      r.mark();
      for (const f of readdirSync(join(r.mirror, 'Many'))) rmSync(join(r.mirror, 'Many', f));
      await waitFor(() => r.engine.status().heldObjects === 80, 'the 80 deletes held (threshold 50)');
      await settle(r);
      expect(r.sent()).toEqual([]);
      expect(r.engine.status().heldDeletes).toBe(80);
      expect((await r.engine.actions.resolveHeld(['all'], 'reject')).done).toBe(80);
      await waitFor(() => readdirSync(join(r.mirror, 'Many')).length === 80, 'placeholders back after reject');
      await r.engine.fullRescan();
      await settle(r);
      expect(r.sent()).toEqual([]);
      expect(r.engine.status().heldDeletes).toBe(0);
      expect(lines(r.diskTree())).toEqual(lines(await r.nasTree()));
    });

    it('wiped mirror', async () => {
      const r = await start();
      const before = lines(await r.nasTree());
      r.mark();
      for (const e of readdirSync(r.mirror)) if (e !== '.nas-mirror') rmSync(join(r.mirror, e), { recursive: true, force: true });
      await waitFor(() => r.engine.status().mirrorMissing !== null, 'sync paused: the mirror was emptied');
      await r.engine.drainOutbox();
      expect(r.sent()).toEqual([]);
      expect(r.engine.status().state).toBe('mirror-missing');
      await r.engine.setPaused(false);
      await waitFor(() => lines(r.diskTree()).length === before.length, 'placeholders restored');
      await r.engine.fullRescan();
      await settle(r);
      expect(r.sent()).toEqual([]);
      expect(lines(await r.nasTree())).toEqual(before);
      expect(lines(r.diskTree())).toEqual(before);
      // and the restored folder is watched: a rename still reaches the NAS, alone
      renameSync(join(r.mirror, 'top01.txt'), join(r.mirror, 'top01 after.txt'));
      await waitFor(() => name(r, 'top01.txt') === 'top01 after.txt', 'a rename after the restore reaches the NAS');
      await settle(r);
      expect(r.sent()).toEqual([`PATCH ${ids['top01.txt']}`]);
    });

    it('restart after changes', async () => {
      const r = await start();
      await r.engine.stop();
      r.mark();
      renameSync(join(r.mirror, 'top02.txt'), join(r.mirror, 'top02 renamed.txt'));
      renameSync(join(r.mirror, 'Docs', 'notes.md'), join(r.mirror, 'Music', 'notes.md'));
      rmSync(join(r.mirror, 'Photos', '2020', 'img011.jpg'));
      await r.restart();
      await waitThenCheck(
        () =>
          name(r, 'top02.txt') === 'top02 renamed.txt' &&
          parent(r, 'Docs/notes.md') === ids['Music'] &&
          r.svc.admin.get(ids['Photos/2020/img011.jpg']!) === undefined,
        'the three changes reach the NAS',
      );
      await settle(r);
      expect(r.sent().sort()).toEqual(
        [`PATCH ${ids['top02.txt']}`, `PATCH ${ids['Docs/notes.md']}`, `DELETE ${ids['Photos/2020/img011.jpg']}`].sort(),
      );
      expect(lines(r.diskTree())).toEqual(lines(await r.nasTree()));
    });

    it('remount and browse', async () => {
      const r = await start();
      const key = 'Photos/2019/img007.jpg';
      const before = inodes(r.mirror);
      await r.engine.stop();
      await disk!.remount();
      expect(browseReverse(r.mirror)).toBeGreaterThan(200);
      const after = inodes(r.mirror);
      const renumbered = [...before].filter(([p, ino]) => after.get(p) !== ino).length;
      // exFAT: most entries got another number; the others keep theirs (stable ids)
      if (kind === 'exfat') expect(renumbered).toBeGreaterThan(100);
      else expect(renumbered).toBe(0);
      r.mark();
      renameSync(join(r.mirror, 'Photos', '2019', 'img007.jpg'), join(r.mirror, 'Photos', '2019', 'Rome 007.jpg'));
      await r.restart();
      await waitThenCheck(() => name(r, key) === 'Rome 007.jpg', 'the rename reaches the NAS');
      await settle(r);
      expect(r.sent()).toEqual([`PATCH ${ids[key]}`]);
      expect(lines(r.diskTree())).toEqual(lines(await r.nasTree()));
    });

    it('restore from copy', async () => {
      const r = await start();
      const key = 'Music/Album B/t05 song.mp3';
      await r.engine.stop();
      const copy = `${r.mirror}.copy`;
      execFileSync('cp', ['-a', r.mirror, copy], { stdio: ['ignore', 'ignore', 'pipe'] });
      rmSync(r.mirror, { recursive: true });
      renameSync(copy, r.mirror);
      expect(existsSync(join(r.mirror, '.nas-mirror'))).toBe(true);
      r.mark();
      renameSync(join(r.mirror, 'Music', 'Album B', 't05 song.mp3'), join(r.mirror, 'Music', 'Album B', 't05 encore.mp3'));
      // status must not say "synced" while the rename is not on the NAS
      r.engine = r.newEngine();
      const e = r.engine;
      const sentYet = (): boolean => name(r, key) === 't05 encore.mp3';
      // each sighting of "synced" while the rename was not on the NAS, as ms after start()
      const syncedEarly: number[] = [];
      let t0 = Date.now();
      const look = (state: string): void => {
        if (state === 'synced' && !sentYet()) syncedEarly.push(Date.now() - t0);
      };
      const off = e.events.on('status', (s) => look(s.state));
      const poll = setInterval(() => look(e.status().state), 20);
      try {
        t0 = Date.now();
        await e.start();
        look(e.status().state);
        await waitThenCheck(sentYet, 'the rename reaches the NAS');
        await settle(r);
      } finally {
        clearInterval(poll);
        off();
      }
      expect.soft(r.sent(), 'exactly the rename is sent').toEqual([`PATCH ${ids[key]}`]);
      const early = syncedEarly.length ? `${syncedEarly.length} times, first ${syncedEarly[0]} ms after start()` : 'never';
      expect.soft(early, 'status said "synced" before the rename was sent').toBe('never');
      expect(lines(r.diskTree())).toEqual(lines(await r.nasTree()));
    });
  });
}
