/**
 * Issue 23, part 3: new folders and files put in the mirror folder are created on the NAS,
 * exactly once (spec sync.md section 8, content.md). The real service, a real folder, the
 * real watcher.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CHUNK_BYTES } from '../../../main/engine/creates.js';
import { startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
afterEach(async () => { await rig?.close(); rig = undefined; });

/** The NAS's content of a file, by id. */
async function nasBytes(r: Rig, id: string): Promise<Buffer> {
  const res = await fetch(`${r.svc.baseUrl}/sdk/v2/files/${encodeURIComponent(id)}/content`, { headers: { authorization: `Bearer ${r.svc.token()}` } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('local folder: new folders and files are created on the NAS', () => {
  it('a folder dropped in with files and a subfolder: folders first, each file uploaded once, bound (no placeholder twin), listed nowhere as local only', async () => {
    let photos = '';
    rig = await startRig((svc, root) => { photos = svc.admin.createFolder(root, 'Photos').id; });
    const r = rig;
    const big = randomBytes(CHUNK_BYTES * 2 + 12_345);
    mkdirSync(join(r.mirror, 'Photos', 'Trip', 'Day 1'), { recursive: true });
    writeFileSync(join(r.mirror, 'Photos', 'Trip', 'notes.txt'), 'our trip\n');
    writeFileSync(join(r.mirror, 'Photos', 'Trip', 'Day 1', 'big.raw'), big);
    writeFileSync(join(r.mirror, 'Photos', 'Trip', 'Day 1', 'empty.txt'), '');
    r.mark();
    const trip = async (): Promise<string | undefined> => (await r.nasChildren(photos)).get('Trip')?.id;
    await waitFor(async () => (await trip()) !== undefined, 'Trip on the NAS');
    const tripId = (await trip())!;
    const day1 = async (): Promise<string | undefined> => (await r.nasChildren(tripId)).get('Day 1')?.id;
    await waitFor(async () => (await day1()) !== undefined, 'Day 1 on the NAS');
    const dayId = (await day1())!;
    await waitFor(async () => { const k = await r.nasChildren(dayId); return k.get('big.raw')?.size === big.length && k.get('empty.txt')?.size === 0; }, 'both files complete on the NAS', 60_000);
    await waitFor(async () => (await r.nasChildren(tripId)).get('notes.txt')?.size === 9, 'notes.txt complete on the NAS');
    const bigId = (await r.nasChildren(dayId)).get('big.raw')!.id;
    expect((await nasBytes(r, bigId)).equals(big)).toBe(true);
    await waitFor(() => r.engine.creator.sending.size === 0 && r.engine.core.creates.counts().open === 0, 'no create left');
    // exactly once: two folders, three uploads started; a walk afterwards changes nothing
    expect(r.count('POST', '/files/resumable')).toBe(3);
    expect(r.count('POST', '/files') - r.count('POST', '/files/resumable') - r.count('POST', '/patch')).toBe(2);
    await r.engine.syncNow();
    expect(r.engine.actions.localOnly()).toEqual([]);
    expect(readFileSync(join(r.mirror, 'Photos', 'Trip', 'Day 1', 'big.raw')).equals(big)).toBe(true);
    // bound: the model knows the new objects by their NAS ids, each file as this device's copy of the NAS version
    const e = r.engine.core.model.get(bigId)!;
    expect(e).toMatchObject({ lname: 'big.raw', filled: false });
    expect(e.content?.size).toBe(big.length);
    expect(r.engine.deviceStates([bigId]).get(bigId)).toBe('here');
    // a rename of the uploaded file is an ordinary rename of that object
    renameSync(join(r.mirror, 'Photos', 'Trip', 'Day 1', 'big.raw'), join(r.mirror, 'Photos', 'Trip', 'Day 1', 'big-renamed.raw'));
    await waitFor(() => r.svc.admin.get(bigId)?.name === 'big-renamed.raw', 'the rename reached the NAS');
    expect((await r.nasChildren(dayId)).size).toBe(2);
  });

  it('a restart in the middle of an upload resumes at the offset the NAS holds (never started twice)', async () => {
    let docs = '';
    rig = await startRig((svc, root) => { docs = svc.admin.createFolder(root, 'Docs').id; });
    const r = rig;
    const data = randomBytes(CHUNK_BYTES * 3 + 7);
    writeFileSync(join(r.mirror, 'Docs', 'video.mp4'), data);
    // stopped as soon as the first chunk is on the NAS
    await waitFor(() => r.engine.core.creates.open().some((c) => c.offset >= CHUNK_BYTES), 'one chunk sent', 30_000);
    await r.restart();
    await waitFor(async () => r.engine.core.creates.counts().open === 0 && (await r.nasChildren(docs)).get('video.mp4')?.size === data.length, 'complete after the restart', 60_000);
    const id = (await r.nasChildren(docs)).get('video.mp4')!.id;
    expect((await nasBytes(r, id)).equals(data)).toBe(true);
    expect([...(await r.nasChildren(docs)).keys()]).toEqual(['video.mp4']);
    expect(r.svc.requests().filter((q) => q.method === 'POST' && q.path.includes('/files/resumable')).length).toBe(1);
  });

  it('a file still being written goes up once stable, with its final content; with uploads off a new file stays here, listed', async () => {
    let docs = '';
    rig = await startRig((svc, root) => { docs = svc.admin.createFolder(root, 'Docs').id; svc.admin.createFile(docs, 'taken.txt'); });
    const r = rig;
    writeFileSync(join(r.mirror, 'Docs', 'mine.txt'), 'v1');
    writeFileSync(join(r.mirror, 'Docs', 'mine.txt'), 'v1 and more');
    await waitFor(async () => r.engine.core.creates.counts().open === 0 && (await r.nasChildren(docs)).get('mine.txt')?.size === 11, 'the final content only');
    expect(statSync(join(r.mirror, 'Docs', 'mine.txt')).size).toBe(11);
    // uploads off: a new file stays on this computer, listed
    await r.restart({ uploads: false });
    writeFileSync(join(r.mirror, 'Docs', 'kept-here.txt'), 'here');
    await waitFor(() => r.engine.actions.localOnly().some((l) => l.path === 'Docs/kept-here.txt'), 'listed local only');
    expect((await r.nasChildren(docs)).has('kept-here.txt')).toBe(false);
  });
});
