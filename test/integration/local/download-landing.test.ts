/**
 * A run killed while downloads go in place (the real service, a real mirror folder, the real
 * engine): the landings are recorded before a turn's renames, so a kill between the renames
 * and the model's rows leaves files the next start adopts as the engine's downloads (content
 * recorded, never the user's: nothing goes up as a new version), and a landing whose rename
 * did not happen is dropped (the placeholder stays one; the download resumes at the next Open).
 * The kill is the disk seam's: a call happens (or not), then every later disk call fails and
 * the state db is closed, so nothing after that instant is written.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FaultDisk, type DiskOp } from '../../../main/local/disk.js';
import { LocalStore } from '../../../main/local/local-store.js';
import { openStateDb, type Db } from '../../../main/state/db.js';
import { startRig, waitFor, type Rig } from './harness.js';

const bytes = (n: number, seed: number): Buffer => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 37 + seed * 5 + (i >> 9)) & 0xff;
  return b;
};
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const NAS_MTIME = Date.parse('2021-03-04T05:06:07Z');
const OPS: readonly DiskOp[] = [
  'lstat',
  'readdir',
  'readdirKinds',
  'rename',
  'mkdir',
  'rmdir',
  'unlink',
  'rmFile',
  'utimes',
  'createFile',
  'writeFile',
  'readlink',
  'realpath',
  'exists',
  'readChunk',
];

/** A disk killed right BEFORE the first rename of a partial: that rename does not happen, nor any later call; the state db closes. */
class KilledBeforeLanding extends FaultDisk {
  killed = false;
  constructor(private readonly db: Db) {
    super();
  }
  override rename(from: string, to: string): void {
    if (!this.killed && from.endsWith('.part')) {
      this.killed = true;
      this.db.close();
      for (const op of OPS) this.add({ op, path: /^/, errno: 'EIO' });
    }
    super.rename(from, to);
  }
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Docs/<name> for each file, with real content; ids by name (and Docs). */
async function contentRig(files: Record<string, Buffer>): Promise<{ r: Rig; ids: Record<string, string> }> {
  const ids: Record<string, string> = {};
  const r = await startRig((svc, root) => {
    const docs = svc.admin.createFolder(root, 'Docs');
    ids['Docs'] = docs.id;
    for (const [name, content] of Object.entries(files)) ids[name] = svc.admin.createFile(docs.id, name, { content, mTime: NAS_MTIME }).id;
  });
  rig = r;
  await waitFor(() => Object.keys(files).every((n) => existsSync(join(r.mirror, 'Docs', n))), 'placeholders');
  return { r, ids };
}

/** The engine restarted on a disk that dies right after the first rename of a partial (the rename happened). */
async function killedAfterLanding(r: Rig): Promise<{ crashed: () => boolean }> {
  const disk = new FaultDisk();
  const db = openStateDb(r.state);
  let crashed = false;
  await r.restart({ disk, db });
  disk.add({
    op: 'rename',
    path: /\.part$/,
    errno: 'EIO',
    times: 1,
    crash: () => {
      crashed = true;
      db.close();
    },
  });
  return { crashed: () => crashed };
}

/** A rig whose Open of Docs/<name> was killed right after the partial's rename (the file in place, its rows not written). */
async function openKilledAfterLanding(name: string, data: Buffer): Promise<{ r: Rig; id: string; file: string }> {
  const { r, ids } = await contentRig({ [name]: data });
  const id = ids[name]!;
  const kill = await killedAfterLanding(r);
  await expect(r.engine.download(id)).rejects.toThrow();
  expect(kill.crashed()).toBe(true);
  return { r, id, file: join(r.mirror, 'Docs', name) };
}

/** The landing records in the state db, read beside the engine. */
function landingsStored(r: Rig): string[] {
  const db = openStateDb(r.state);
  try {
    return new LocalStore(db).landings().map((l) => l.id);
  } finally {
    db.close();
  }
}

/** What the engine holds of a file: the engine's download of the NAS's version, at the file on disk now. */
function expectDownloaded(r: Rig, id: string, file: string, data: Buffer): void {
  const st = statSync(file);
  expect(sha(readFileSync(file))).toBe(sha(data));
  expect(r.engine.core.model.get(id)).toMatchObject({
    filled: false,
    ino: String(st.ino),
    content: { etag: r.svc.admin.get(id)!.eTag, size: data.length, ino: String(st.ino), mtimeMs: NAS_MTIME },
  });
}

/** A whole round (walk, the folders read, the outbox, the keeper, the creator) and a full read: nothing went to the NAS. */
async function expectNothingSent(r: Rig): Promise<void> {
  await r.engine.fullRescan();
  await r.engine.round();
  expect(r.count('POST') + r.count('PUT') + r.count('PATCH') + r.count('DELETE')).toBe(0);
  expect(r.count('', 'resumable')).toBe(0);
  const s = r.engine.status();
  expect([s.outbox.pending, s.localOnly, s.conflicts]).toEqual([0, 0, 0]);
  expect(r.engine.actions.activity(100).map((a) => a.kind)).not.toContain('uploaded');
  expect(r.engine.core.local.landings()).toEqual([]);
}

describe('killed while downloads go in place', () => {
  it('Open, killed after the rename and before the rows: the next start adopts the file, nothing goes up', async () => {
    const data = bytes(300_000, 1); // over RECORD_FROM: a download record names it too
    const { r, ids } = await contentRig({ 'a.bin': data, 'b.bin': bytes(5_000, 2) });
    const id = ids['a.bin']!;
    const file = join(r.mirror, 'Docs', 'a.bin');
    const kill = await killedAfterLanding(r);
    await expect(r.engine.download(id)).rejects.toThrow(); // the kill's error (the activity log is closed by then)
    expect(kill.crashed()).toBe(true);
    // the file has the NAS's bytes; the state db still calls it a placeholder, and records its landing
    expect(sha(readFileSync(file))).toBe(sha(data));
    expect(landingsStored(r)).toEqual([id]);
    r.mark();
    await r.restart();
    expectDownloaded(r, id, file, data);
    expect(r.engine.core.local.download(id)).toBeUndefined();
    expect(r.engine.actions.activity(50).find((a) => a.kind === 'downloaded')?.reason).toContain('recorded at this start');
    await expectNothingSent(r);
    expectDownloaded(r, id, file, data);
    // an Open now: here already, nothing fetched
    r.mark();
    expect(await r.engine.download(id)).toEqual({ path: file, downloaded: false });
    expect(r.count('GET', '/content')).toBe(0);
  }, 60_000);

  it('Open, killed after the rename, then the folder restored from a copy (every inode new): adopted by size and time, nothing goes up', async () => {
    const data = bytes(250_000, 4);
    const { r, id, file } = await openKilledAfterLanding('d.bin', data);
    expect(landingsStored(r)).toEqual([id]);
    const inoBefore = statSync(file).ino;
    // what a remount of a disk whose ids change, or a restore from a backup, does to every inode
    cpSync(r.mirror, `${r.mirror}.copy`, { recursive: true, preserveTimestamps: true });
    rmSync(r.mirror, { recursive: true });
    renameSync(`${r.mirror}.copy`, r.mirror);
    expect(statSync(file).ino).not.toBe(inoBefore);
    r.mark();
    await r.restart();
    expectDownloaded(r, id, file, data);
    await expectNothingSent(r);
    expectDownloaded(r, id, file, data);
  }, 60_000);

  it('Open, killed after the rename, the next start without the mirror folder: adopted once the folder is back', async () => {
    const data = bytes(120_000, 5);
    const { r, id, file } = await openKilledAfterLanding('e.bin', data);
    renameSync(r.mirror, `${r.mirror}.away`); // the disk unplugged
    r.mark();
    await r.restart();
    await waitFor(() => !!r.engine.status().mirrorMissing, 'the folder said missing');
    expect(landingsStored(r)).toEqual([id]);
    renameSync(`${r.mirror}.away`, r.mirror); // plugged back
    await waitFor(() => !r.engine.status().mirrorMissing, 'the folder back');
    await waitFor(() => r.engine.core.local.landings().length === 0, 'the landing adopted');
    expectDownloaded(r, id, file, data);
    await expectNothingSent(r);
  }, 60_000);

  it('Open, killed before the rename: the landing record is dropped, nothing adopted; the next Open finishes it', async () => {
    const data = bytes(200_000, 3);
    const { r, ids } = await contentRig({ 'c.bin': data });
    const id = ids['c.bin']!;
    const file = join(r.mirror, 'Docs', 'c.bin');
    const ino = statSync(file).ino;
    const db = openStateDb(r.state);
    const disk = new KilledBeforeLanding(db);
    await r.restart({ disk, db });
    await expect(r.engine.download(id)).rejects.toThrow(); // the kill's error (the activity log is closed by then)
    expect(disk.killed).toBe(true);
    expect([statSync(file).size, statSync(file).ino]).toEqual([0, ino]); // the placeholder as it was
    expect(landingsStored(r)).toEqual([id]);
    r.mark();
    await r.restart();
    expect(r.engine.core.local.landings()).toEqual([]);
    expect(r.engine.core.model.get(id)).toMatchObject({ filled: false, ino: String(ino) });
    expect(r.engine.core.model.get(id)!.content).toBeUndefined();
    expect([statSync(file).size, statSync(file).ino]).toEqual([0, ino]);
    await expectNothingSent(r);
    expect(r.engine.core.model.get(id)).toMatchObject({ filled: false, ino: String(ino) });
    expect(r.engine.core.model.get(id)!.content).toBeUndefined();
    expect(await r.engine.download(id)).toEqual({ path: file, downloaded: true });
    expectDownloaded(r, id, file, data);
  }, 60_000);

  it('Keep on a folder, killed after the first rename of a turn: that file is adopted, the others come down; nothing goes up', async () => {
    const data: Record<string, Buffer> = {
      'a.bin': bytes(200_000, 4),
      'b.bin': bytes(3_000, 5),
      'c.bin': bytes(50_000, 6),
      'd.bin': bytes(9_000, 7),
    };
    const { r, ids } = await contentRig(data);
    const kill = await killedAfterLanding(r);
    expect(await r.engine.pin(ids['Docs']!)).toEqual({ files: 4 });
    await waitFor(() => kill.crashed(), 'killed after the first rename');
    const names = Object.keys(data);
    const landed = names.filter((n) => statSync(join(r.mirror, 'Docs', n)).size > 0);
    expect(landed).toHaveLength(1); // the disk died after it: no other rename happened
    r.mark();
    await r.restart();
    const first = landed[0]!;
    expectDownloaded(r, ids[first]!, join(r.mirror, 'Docs', first), data[first]!);
    // the rest: placeholders (a landing of the same turn whose rename did not happen was dropped), then kept
    await waitFor(() => names.every((n) => statSync(join(r.mirror, 'Docs', n)).size > 0), 'the rest of the pinned folder');
    await r.engine.pins.idle();
    for (const n of names) expectDownloaded(r, ids[n]!, join(r.mirror, 'Docs', n), data[n]!);
    expect(r.count('GET', `${ids[first]!}/content`)).toBe(0);
    await expectNothingSent(r);
  }, 60_000);
});
