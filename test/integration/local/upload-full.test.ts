/**
 * Issue 23, part 4: a full NAS (507, the service's disk without room: `diskRoom`) while a new
 * file and a new version of a file changed here go up (the real service, a real folder, the
 * real engine). The status and the activity log say so in words (no HTTP status), the files
 * stay here and listed, nothing on the NAS is lost; once the NAS has room, each goes up once.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpTransport, type Transport } from '../../../main/client/transport.js';
import { CHUNK_BYTES } from '../../../main/engine/creates.js';
import { startTestService } from '../../../server/testing.js';
import { nasContent, startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const bytes = (n: number, seed: number): Buffer => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 13 + seed * 3 + (i >> 10)) & 0xff;
  return b;
};

/** Sets the file's time a minute back: stable at once (no wait for the creator's 2 s). */
function aged(file: string): void {
  const past = new Date(Date.now() - 60_000);
  utimesSync(file, past, past);
}

describe('a full NAS (507) while files go up', () => {
  it('a new file (its second chunk) and a new version: said in words, kept here and listed; once the NAS has room, each goes up once', async () => {
    const svc = await startTestService({ diskRoom: 100_000_000 });
    const ids: Record<string, string> = {};
    const v1 = Buffer.from('the version on the NAS');
    // the uploads' requests as the engine sent them (with their query) and their answers
    const puts: { url: URL; status: number }[] = [];
    const inner = new HttpTransport();
    const recording: Transport = {
      request: async (req) => {
        const res = await inner.request(req);
        if (req.method === 'PUT') puts.push({ url: new URL(req.url), status: res.status });
        return res;
      },
      close: () => inner.close(),
    };
    rig = await startRig(
      (s, root) => {
        ids['Docs'] = s.admin.createFolder(root, 'Docs').id;
        ids['report'] = s.admin.createFile(ids['Docs'], 'report.txt', { content: v1, mTime: Date.parse('2021-03-04T05:06:07Z') }).id;
      },
      {},
      svc,
      recording,
    );
    const r = rig;
    const base = svc.admin.get(ids['report']!)!.eTag;
    // room for the new file's first chunk, not its second
    svc.disk!.setRoom(CHUNK_BYTES + 100_000);
    const video = bytes(CHUNK_BYTES + 300_000, 1);
    const outside = join(r.state, '..', 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'video.bin'), video);
    aged(join(outside, 'video.bin'));
    renameSync(join(outside, 'video.bin'), join(r.mirror, 'Docs', 'video.bin'));
    await waitFor(() => /1 file waits/.test(r.engine.status().error?.message ?? ''), 'the status says the NAS is full', 30_000);
    const videoId = (await r.nasChildren(ids['Docs']!)).get('video.bin')!.id;
    expect(await r.client.uploadOffset(videoId)).toBe(CHUNK_BYTES); // the first chunk kept
    // then the user's content written into a placeholder: its new version meets the full NAS too
    const mine = bytes(200_000, 2);
    writeFileSync(join(r.mirror, 'Docs', 'report.txt'), mine);
    aged(join(r.mirror, 'Docs', 'report.txt'));
    await waitFor(() => /2 files wait/.test(r.engine.status().error?.message ?? ''), 'the status says 2 files wait', 30_000);

    const s = r.engine.status();
    expect(s.error).toEqual({
      code: 'NasFull',
      message: 'the NAS is full: 2 files wait on this computer and go up once it has room; nothing is lost',
    });
    expect(s.uploads.waiting).toBe(2);
    const said = r.engine.actions.activity().filter((a) => a.kind === 'error');
    expect(said.map((a) => [a.path, a.summary]).sort()).toEqual([
      ['Docs/report.txt', 'its new version is not on the NAS yet: the NAS is full'],
      ['Docs/video.bin', 'not uploaded yet: the NAS is full'],
    ]);
    for (const a of said)
      expect(a.reason).toBe(
        'the NAS has no room left for it: it stays on this computer, nothing is lost, and it goes up once the NAS has room',
      );
    expect(JSON.stringify([s.error, said])).not.toMatch(/507|Insufficient/);
    expect(
      r.engine.actions
        .localOnly()
        .map((l) => [l.path, l.reason])
        .sort(),
    ).toEqual([
      ['Docs/report.txt', 'changed here: its new version waits for room on the NAS (it is full); nothing is lost'],
      ['Docs/video.bin', 'new here: waits for room on the NAS (it is full); nothing is lost'],
    ]);
    // kept: both files here as the user made them; the NAS keeps its version of report.txt
    expect(sha(readFileSync(join(r.mirror, 'Docs', 'video.bin')))).toBe(sha(video));
    expect(sha(readFileSync(join(r.mirror, 'Docs', 'report.txt')))).toBe(sha(mine));
    expect((await nasContent(r.svc, ids['report']!)).equals(v1)).toBe(true);
    expect(svc.admin.get(ids['report']!)!.eTag).toBe(base);

    // room again: each goes up once (at the next try; a walk kicks the creator)
    const before = puts.length;
    svc.disk!.setRoom(100_000_000);
    await r.engine.syncNow();
    await waitFor(
      async () => {
        const kids = await r.nasChildren(ids['Docs']!);
        return (
          r.engine.core.creates.counts().open === 0 &&
          kids.get('video.bin')?.size === video.length &&
          svc.admin.get(videoId)?.resumable === undefined &&
          kids.get('report.txt')?.size === mine.length
        );
      },
      'both on the NAS',
      30_000,
    );
    const kids = await r.nasChildren(ids['Docs']!);
    expect([...kids.keys()].sort()).toEqual(['report.txt', 'video.bin']);
    expect(kids.get('video.bin')!.id).toBe(videoId);
    expect(sha(await nasContent(r.svc, videoId))).toBe(sha(video));
    expect(sha(await nasContent(r.svc, ids['report']!))).toBe(sha(mine));
    expect(readdirSync(join(r.mirror, 'Docs')).sort()).toEqual(['report.txt', 'video.bin']);
    expect(r.svc.requests().filter((q) => q.method === 'POST' && q.path.endsWith('/files/resumable'))).toHaveLength(1);
    // the new file went on from the chunk the NAS kept (never from 0 again); each finished once
    const videoPuts = puts.slice(before).filter((p) => p.url.pathname.includes(videoId) && p.status === 204);
    expect(videoPuts.map((p) => p.url.searchParams.get('offset'))).toEqual([String(CHUNK_BYTES)]);
    expect(puts.filter((p) => p.url.searchParams.get('done') === 'true' && p.status === 204)).toHaveLength(2);
    const after = r.engine.status();
    expect(after.error).toBeNull();
    expect([after.conflicts, after.localOnly, after.uploads.waiting]).toEqual([0, 0, 0]);
    expect(r.engine.actions.localOnly()).toEqual([]);
    expect(
      r.engine.actions
        .activity()
        .filter((a) => a.kind === 'uploaded')
        .map((a) => a.path)
        .sort(),
    ).toEqual(['Docs/report.txt', 'Docs/video.bin']);
  }, 60_000);
});
