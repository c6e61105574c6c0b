/**
 * Issue 23, part 3: new folders and files put in the mirror folder are created on the NAS,
 * exactly once (spec sync.md section 8, content.md). The real service, a real folder, the
 * real watcher.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CHUNK_BYTES, STABLE_MS } from '../../../main/engine/creates.js';
import { nasContent, startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('local folder: new folders and files are created on the NAS', () => {
  it('a folder dropped in with files and a subfolder: folders first, each file uploaded once, bound (no placeholder twin); an empty file stays here, listed', async () => {
    let photos = '';
    rig = await startRig((svc, root) => {
      photos = svc.admin.createFolder(root, 'Photos').id;
    });
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
    // complete: its content readable (an upload still open lists its size so far and reads as 409)
    const done = async (folder: string, name: string, bytes: Buffer): Promise<boolean> => {
      const id = (await r.nasChildren(folder)).get(name)?.id;
      return id !== undefined && (await nasContent(r.svc, id).catch(() => undefined))?.equals(bytes) === true;
    };
    await waitFor(() => done(dayId, 'big.raw', big), 'the big file complete on the NAS', 60_000);
    await waitFor(async () => (await r.nasChildren(tripId)).get('notes.txt')?.size === 9, 'notes.txt complete on the NAS');
    const bigId = (await r.nasChildren(dayId)).get('big.raw')!.id;
    await waitFor(() => r.engine.creator.sending.size === 0 && r.engine.core.creates.counts().open === 0, 'no create left');
    // exactly once: two folders, two uploads started (an empty file looks like a placeholder: not
    // uploaded, listed); a walk afterwards changes nothing
    expect(r.count('POST', '/files/resumable')).toBe(2);
    expect((await r.nasChildren(dayId)).has('empty.txt')).toBe(false);
    expect(r.count('POST', '/files') - r.count('POST', '/files/resumable') - r.count('POST', '/patch')).toBe(2);
    await r.engine.syncNow();
    expect(r.engine.actions.localOnly().map((l) => [l.path, l.reason])).toEqual([
      ['Photos/Trip/Day 1/empty.txt', expect.stringMatching(/an empty file looks like placeholders/)],
    ]);
    expect(readFileSync(join(r.mirror, 'Photos', 'Trip', 'Day 1', 'big.raw')).equals(big)).toBe(true);
    // bound: the model knows the new objects by their NAS ids, each file as this device's copy of the NAS version
    const e = r.engine.core.model.get(bigId)!;
    expect(e).toMatchObject({ lname: 'big.raw', filled: false });
    expect(e.content?.size).toBe(big.length);
    expect(r.engine.deviceStates([bigId]).get(bigId)).toBe('here');
    // a rename of the uploaded file is an ordinary rename of that object
    renameSync(join(r.mirror, 'Photos', 'Trip', 'Day 1', 'big.raw'), join(r.mirror, 'Photos', 'Trip', 'Day 1', 'big-renamed.raw'));
    await waitFor(() => r.svc.admin.get(bigId)?.name === 'big-renamed.raw', 'the rename reached the NAS');
    expect((await r.nasChildren(dayId)).size).toBe(1);
  });

  it('an empty NAS: a folder made at the top of the mirror folder is created there (the root was never placed before)', async () => {
    rig = await startRig(() => undefined);
    const r = rig;
    const root = r.svc.admin.rootId();
    mkdirSync(join(r.mirror, 'First folder'));
    await waitFor(async () => (await r.nasChildren(root)).has('First folder'), 'the folder on the NAS');
    await waitFor(() => r.engine.core.creates.counts().open === 0, 'no create left');
    expect(r.engine.actions.localOnly()).toEqual([]);
    expect(r.engine.core.model.get(root)).toMatchObject({ kind: 'dir', state: 'ok' });
  });

  it('a restart in the middle of an upload resumes at the offset the NAS holds (never started twice)', async () => {
    let docs = '';
    rig = await startRig((svc, root) => {
      docs = svc.admin.createFolder(root, 'Docs').id;
    });
    const r = rig;
    const data = randomBytes(CHUNK_BYTES * 3 + 7);
    writeFileSync(join(r.mirror, 'Docs', 'video.mp4'), data);
    // stopped as soon as the first chunk is on the NAS; the status says how far (the window's and the tray's progress)
    await waitFor(
      () => {
        const up = r.engine.status().uploads;
        return r.engine.core.creates.open().some((c) => c.offset >= CHUNK_BYTES) && up.total === data.length && up.sent >= CHUNK_BYTES;
      },
      'one chunk sent, said in the status',
      30_000,
    );
    await r.restart();
    await waitFor(
      async () => r.engine.core.creates.counts().open === 0 && (await r.nasChildren(docs)).get('video.mp4')?.size === data.length,
      'complete after the restart',
      60_000,
    );
    const id = (await r.nasChildren(docs)).get('video.mp4')!.id;
    expect((await nasContent(r.svc, id)).equals(data)).toBe(true);
    expect([...(await r.nasChildren(docs)).keys()]).toEqual(['video.mp4']);
    expect(r.svc.requests().filter((q) => q.method === 'POST' && q.path.includes('/files/resumable')).length).toBe(1);
  });

  it('what looks like placeholders is not uploaded: a copy of placeholder files, a folder of them (soak seeds 7000, 7002)', async () => {
    rig = await startRig((svc, root) => {
      const d = svc.admin.createFolder(root, 'Music');
      for (let i = 0; i < 3; i++) svc.admin.createFile(d.id, `t${i}.mp3`);
    });
    const r = rig;
    r.mark();
    cpSync(join(r.mirror, 'Music'), join(r.mirror, 'Music copy'), { recursive: true });
    copyFileSync(join(r.mirror, 'Music', 't0.mp3'), join(r.mirror, 'Music', 't0 copy.mp3'));
    await waitFor(() => r.engine.actions.localOnly().length === 2, 'both listed local only');
    await r.engine.creator.idle();
    expect(r.count('POST')).toBe(0);
    // content put in the copied folder: now it goes up (the folder first), its empty files stay
    writeFileSync(join(r.mirror, 'Music copy', 'notes.txt'), 'real content');
    await waitFor(
      async () => {
        const c = (await r.nasChildren(r.svc.admin.rootId())).get('Music copy');
        return c !== undefined && (await r.nasChildren(c.id)).get('notes.txt')?.size === 12;
      },
      'the folder and the file with content on the NAS',
      30_000,
    );
  });

  it("many new files at once wait for the user's word (like mass deletes): approved, they upload; a dropped folder of many is held as one row, and rejected it stays here", async () => {
    let docs = '';
    rig = await startRig((svc, root) => {
      docs = svc.admin.createFolder(root, 'Docs').id;
    });
    const r = rig; // the harness's delete limit: 50
    r.mark();
    for (let i = 0; i < 60; i++) writeFileSync(join(r.mirror, 'Docs', `scan ${i}.pdf`), `page ${i}`);
    await waitFor(() => r.engine.status().uploads.held === 60, '60 uploads held');
    expect(r.count('POST', '/files/resumable')).toBe(0);
    expect(r.engine.status()).toMatchObject({ state: 'needs-attention', uploads: { held: 60 } });
    expect(r.engine.actions.heldUploads().map((h) => h.path)).toContain('Docs/scan 7.pdf');
    expect(r.engine.actions.localOnly().find((l) => l.path === 'Docs/scan 7.pdf')?.reason).toMatch(/waits for your OK to upload/);
    expect(await r.engine.actions.resolveUploads(['all'], true)).toMatchObject({ done: 60 });
    await waitFor(
      async () => (await r.nasChildren(docs)).size === 60 && r.engine.status().uploads.waiting === 0,
      'all 60 on the NAS',
      60_000,
    );
    expect(r.count('POST', '/files/resumable')).toBe(60);

    // a folder dropped in with 70 files: its one row is held (what it holds waits with it)
    mkdirSync(join(r.mirror, 'Docs', 'Old disk'));
    for (let i = 0; i < 70; i++) writeFileSync(join(r.mirror, 'Docs', 'Old disk', `f${i}.bin`), 'x');
    await waitFor(() => r.engine.actions.heldUploads().some((h) => h.path === 'Docs/Old disk' && h.folder), 'the folder held');
    expect(r.engine.actions.heldUploads()).toHaveLength(1);
    await r.engine.actions.resolveUploads(['all'], false);
    await waitFor(
      () => r.engine.actions.localOnly().some((l) => l.path === 'Docs/Old disk' && /keep it on this computer only/.test(l.reason)),
      'kept here, listed',
    );
    expect(r.engine.status().uploads).toEqual({ waiting: 0, held: 0, sent: 0, total: 0 });
    expect((await r.nasChildren(docs)).has('Old disk')).toBe(false);
  });

  it('a file changed here: its new version goes up (If-Match the version changed); when the NAS changed it too, both are kept, nothing lost', async () => {
    const ids: Record<string, string> = {};
    let docs = '';
    rig = await startRig((svc, root) => {
      docs = svc.admin.createFolder(root, 'Docs').id;
      ids['a'] = svc.admin.createFile(docs, 'report.txt', {
        content: Buffer.from('v1 from the NAS'),
        mTime: Date.parse('2021-03-04T05:06:07Z'),
      }).id;
      ids['b'] = svc.admin.createFile(docs, 'plan.txt', { content: Buffer.from('plan v1'), mTime: Date.parse('2021-03-04T05:06:07Z') }).id;
    });
    const r = rig;
    const file = join(r.mirror, 'Docs', 'report.txt');
    await r.engine.download(ids['a']!);
    writeFileSync(file, 'v2, edited here');
    await waitFor(
      async () => r.engine.core.creates.counts().open === 0 && (await nasContent(r.svc, ids['a']!)).toString() === 'v2, edited here',
      'the new version on the NAS',
    );
    expect(r.engine.deviceStates([ids['a']!]).get(ids['a']!)).toBe('here');
    expect(r.engine.actions.localOnly()).toEqual([]);
    expect(r.engine.status().conflicts).toBe(0);

    // both sides: the NAS gets a new version while the engine is stopped and the user edits theirs
    await r.engine.download(ids['b']!);
    await r.engine.stop();
    const e = r.svc.admin.get(ids['b']!)!;
    await r.client.startVersion(ids['b']!, { ifMatch: e.eTag });
    await r.client.putContent(ids['b']!, 0, Buffer.from('plan v2 by someone else'), true);
    writeFileSync(join(r.mirror, 'Docs', 'plan.txt'), 'plan v2 mine');
    await r.restart();
    const copyOf = async (): Promise<[string, { id: string }] | undefined> =>
      [...(await r.nasChildren(docs))].find(([n]) => n.startsWith('plan (conflicted copy '));
    await waitFor(
      async () => (await copyOf()) !== undefined && r.engine.core.creates.counts().open === 0,
      'the conflicted copy on the NAS',
      30_000,
    );
    const [copyName, copy] = (await copyOf())!;
    expect(copyName).toMatch(/^plan \(conflicted copy \d{4}-\d{2}-\d{2} \d{4}\)\.txt$/);
    expect((await nasContent(r.svc, copy.id)).toString()).toBe('plan v2 mine');
    expect((await nasContent(r.svc, ids['b']!)).toString()).toBe('plan v2 by someone else');
    await waitFor(
      () => existsSync(join(r.mirror, 'Docs', 'plan.txt')) && readFileSync(join(r.mirror, 'Docs', copyName), 'utf8') === 'plan v2 mine',
      'both on disk',
    );
    expect(r.engine.actions.activity().some((a) => a.kind === 'conflict' && a.summary.includes('both kept'))).toBe(true);
  });

  it('a file still being written goes up once stable, with its final content; with uploads off a new file stays here, listed', async () => {
    let docs = '';
    rig = await startRig((svc, root) => {
      docs = svc.admin.createFolder(root, 'Docs').id;
      svc.admin.createFile(docs, 'taken.txt');
    });
    const r = rig;
    writeFileSync(join(r.mirror, 'Docs', 'mine.txt'), 'v1');
    writeFileSync(join(r.mirror, 'Docs', 'mine.txt'), 'v1 and more');
    await waitFor(
      async () => r.engine.core.creates.counts().open === 0 && (await r.nasChildren(docs)).get('mine.txt')?.size === 11,
      'the final content only',
    );
    expect(statSync(join(r.mirror, 'Docs', 'mine.txt')).size).toBe(11);
    // uploads off: a new file stays on this computer, listed
    await r.restart({ uploads: false });
    writeFileSync(join(r.mirror, 'Docs', 'kept-here.txt'), 'here');
    await waitFor(() => r.engine.actions.localOnly().some((l) => l.path === 'Docs/kept-here.txt'), 'listed local only');
    expect((await r.nasChildren(docs)).has('kept-here.txt')).toBe(false);
  });

  it('paused by the user: nothing new goes up (an upload under way stops between chunks); resumed, it goes on from where the NAS is', async () => {
    let docs = '';
    rig = await startRig((svc, root) => {
      docs = svc.admin.createFolder(root, 'Docs').id;
    });
    const r = rig;
    const data = randomBytes(CHUNK_BYTES * 4 + 3);
    writeFileSync(join(r.mirror, 'Docs', 'big.bin'), data);
    await waitFor(() => r.engine.status().uploads.sent >= CHUNK_BYTES, 'the upload under way');
    await r.engine.setPaused(true);
    // the chunk in flight at the pause ends (the upload stops after it, between chunks)
    await r.engine.creator.idle();
    const sentAtPause = (): number => r.engine.core.creates.open().find((c) => c.name === 'big.bin')?.offset ?? -1;
    writeFileSync(join(r.mirror, 'Docs', 'small.txt'), 'made while paused');
    await waitFor(() => r.engine.core.creates.open().some((c) => c.name === 'small.txt'), 'the new file recorded');
    const recorded = Date.now();
    const before = sentAtPause();
    // past the stability wait (2 s) and a retry of the creator: still nothing more sent
    await waitFor(() => Date.now() - recorded > STABLE_MS + 1000, 'the stability wait passed');
    expect(sentAtPause()).toBe(before);
    expect(before).toBeLessThan(data.length);
    expect((await r.nasChildren(docs)).has('small.txt')).toBe(false);
    await r.engine.setPaused(false);
    await waitFor(
      async () => {
        const kids = await r.nasChildren(docs);
        return r.engine.core.creates.counts().open === 0 && kids.get('big.bin')?.size === data.length && kids.get('small.txt')?.size === 17;
      },
      'both on the NAS after resuming',
      60_000,
    );
    const id = (await r.nasChildren(docs)).get('big.bin')!.id;
    expect((await nasContent(r.svc, id)).equals(data)).toBe(true);
  });
});
