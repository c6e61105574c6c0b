/**
 * Moving a mirror folder across two REAL devices (/tmp is the root disk, /dev/shm a tmpfs:
 * rename between them fails with EXDEV): copy, verify, switch, then the old tree removed;
 * interrupted mid-copy, nothing changes and a re-run starts cleanly; a copy renamed into place
 * but never committed is dropped by the next move. The state db and local model are the real
 * ones (a hand-made model of the tree on disk).
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalStore } from '../local/local-store.js';
import type { LocalEntry } from '../local/model.js';
import { openStateDb, type Db } from '../state/db.js';
import { stagingFor, type MoveProgress } from './copy-tree.js';
import { MARKER, dropUncommittedCopy, moveAcrossDisks } from './move-across-disks.js';

const SHM = '/dev/shm';
const twoDevices = existsSync(SHM) && statSync(SHM).dev !== statSync(tmpdir()).dev;

let stateDir: string;
let from: string;
let shm: string;
let db: Db;

const ino = (p: string): string => lstatSync(p, { bigint: true }).ino.toString();
const entry = (id: string, kind: 'dir' | 'file', lparent: string, lname: string, path: string): LocalEntry => ({
  id,
  kind,
  lparent,
  lname,
  ino: ino(path),
  filled: false,
  rparent: lparent,
  rname: lname,
  etag: 'e1',
  mtime: '2020-01-01T00:00:00Z',
  setag: 'e1',
  state: 'ok',
});

beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'nm-move-state-'));
  from = join(mkdtempSync(join(tmpdir(), 'nm-move-from-')), 'NAS');
  shm = mkdtempSync(join(SHM, 'nm-move-to-'));
  mkdirSync(join(from, 'Photos', '2019'), { recursive: true });
  writeFileSync(join(from, 'Photos', '2019', 'a.jpg'), ''); // a placeholder
  writeFileSync(join(from, 'Photos', 'notes.txt'), 'real content, written here'); // filled by the user
  writeFileSync(join(from, 'local-only.txt'), 'mine');
  symlinkSync('Photos/notes.txt', join(from, 'link-to-notes'));
  db = openStateDb(stateDir);
  const local = new LocalStore(db);
  const m = local.loadModel('root');
  m.put(entry('root', 'dir', '', '', from));
  m.put(entry('d1', 'dir', 'root', 'Photos', join(from, 'Photos')));
  m.put(entry('d2', 'dir', 'd1', '2019', join(from, 'Photos', '2019')));
  m.put(entry('f1', 'file', 'd2', 'a.jpg', join(from, 'Photos', '2019', 'a.jpg')));
  m.put({ ...entry('f2', 'file', 'd1', 'notes.txt', join(from, 'Photos', 'notes.txt')), filled: true });
  m.setStamp('d1', 'stale-stamp');
  local.flush(m);
  local.setMeta('mirrorDir', from);
});
afterEach(() => {
  db.close();
  for (const d of [stateDir, join(from, '..'), shm]) rmSync(d, { recursive: true, force: true });
});

const commit = (to: string) => () => {
  new LocalStore(db).setMeta('mirrorDir', to);
};

describe.skipIf(!twoDevices)('moving the mirror to another disk (/tmp -> /dev/shm)', () => {
  it('copies, verifies, switches the state to the new inodes, then removes the old tree', async () => {
    const to = join(shm, 'NAS');
    expect(() => renameSync(from, to)).toThrow(/EXDEV/); // really two devices
    const seen: MoveProgress[] = [];
    const { oldRemoved } = await moveAcrossDisks({ db, from, to, rootId: 'root', commit: commit(to), onProgress: (p) => seen.push(p) });
    expect(oldRemoved).toBe(true);
    expect(existsSync(from)).toBe(false);
    expect(readdirSync(to).sort()).toEqual(['Photos', 'link-to-notes', 'local-only.txt']);
    expect(readFileSync(join(to, 'Photos', 'notes.txt'), 'utf8')).toBe('real content, written here');
    expect(readFileSync(join(to, 'link-to-notes'), 'utf8')).toBe('real content, written here'); // still a link
    expect(lstatSync(join(to, 'link-to-notes')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(to, MARKER))).toBe(false);
    expect(existsSync(stagingFor(to))).toBe(false);
    // the model knows the copy's inodes (else every placeholder would look replaced), stamps forgotten
    const local = new LocalStore(db);
    const m = local.loadModel('root');
    expect(m.get('f1')!.ino).toBe(ino(join(to, 'Photos', '2019', 'a.jpg')));
    expect(m.get('root')!.ino).toBe(ino(to));
    expect(m.get('f2')).toMatchObject({ filled: true, ino: ino(join(to, 'Photos', 'notes.txt')) });
    expect(m.stamp('d1')).toBeUndefined();
    expect(local.meta('mirrorDir')).toBe(to);
    // progress: counted, copied every entry, checked, switched, done
    expect([...new Set(seen.map((p) => p.phase))]).toEqual(['counting', 'copying', 'verifying', 'switching', 'removing-old', 'done']);
    expect(seen.find((p) => p.phase === 'verifying')).toMatchObject({ done: 6, total: 6, bytes: 30, totalBytes: 30 });
  });

  it('interrupted mid-copy: the old tree and the state are untouched, the partial copy is gone; a re-run completes', async () => {
    const to = join(shm, 'NAS');
    const before = new LocalStore(db).loadModel('root').get('f1')!.ino;
    await expect(
      moveAcrossDisks({
        db,
        from,
        to,
        rootId: 'root',
        commit: commit(to),
        beforeEntry: (_rel, i) => {
          if (i === 3) throw new Error('power cut');
        },
      }),
    ).rejects.toThrow('power cut');
    expect(readdirSync(from).sort()).toEqual(['Photos', 'link-to-notes', 'local-only.txt']);
    expect(existsSync(to)).toBe(false);
    expect(existsSync(stagingFor(to))).toBe(false);
    expect(new LocalStore(db).meta('mirrorDir')).toBe(from);
    expect(new LocalStore(db).loadModel('root').get('f1')!.ino).toBe(before);
    // a staging folder left by a crash (no chance to clean up) is simply started over
    mkdirSync(join(stagingFor(to), 'Photos'), { recursive: true });
    await moveAcrossDisks({ db, from, to, rootId: 'root', commit: commit(to) });
    expect(readdirSync(to).sort()).toEqual(['Photos', 'link-to-notes', 'local-only.txt']);
    expect(new LocalStore(db).meta('mirrorDir')).toBe(to);
  });

  it('a copy renamed into place but never committed (crash before the switch) is dropped by the next move', async () => {
    const to = join(shm, 'NAS');
    // what a crash between the rename and the state transaction leaves: the copy, with our marker
    await expect(
      moveAcrossDisks({
        db,
        from,
        to,
        rootId: 'root',
        commit: () => {
          throw new Error('crash before the switch');
        },
      }),
    ).rejects.toThrow('crash before the switch');
    expect(existsSync(join(to, MARKER))).toBe(true);
    expect(existsSync(from)).toBe(true);
    expect(new LocalStore(db).meta('mirrorDir')).toBe(from);
    dropUncommittedCopy(db);
    expect(existsSync(to)).toBe(false);
    expect(existsSync(from)).toBe(true);
    // a folder of the user's at that place (no marker) is never removed
    mkdirSync(to);
    writeFileSync(join(to, 'theirs.txt'), 'x');
    new LocalStore(db).setMeta('mirrorMovePending', to);
    dropUncommittedCopy(db);
    expect(readdirSync(to)).toEqual(['theirs.txt']);
  });
});
