/**
 * A new file of at most one chunk goes up whole (engine/whole-upload.ts): the request that
 * names it carries its bytes and `done=true` and answers the new object (else one read binds it:
 * a device whose creates answer Location alone) (the real service, a real
 * folder). Exactly once when that request's answer is lost (the NAS took it): the next try finds
 * the file the NAS holds at that place with exactly the bytes sent and binds it (no second file,
 * no refusal); when the user's file left that place meanwhile, the NAS's goes (one file, at the
 * new name). Someone else's file of that name is never taken for ours.
 */
import { mkdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FaultTransport, type Fault } from '../../../main/client/fault-transport.js';
import { HttpTransport, type TransportRequest } from '../../../main/client/transport.js';
import { startTestService } from '../../../server/testing.js';
import { nasContent, startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Written a minute ago: stable at once (no wait for the creator's 2 s). */
function put(file: string, data: string | Buffer): void {
  writeFileSync(file, data);
  const past = new Date(Date.now() - 60_000);
  utimesSync(file, past, past);
}

const isWhole = (req: TransportRequest): boolean => req.method === 'POST' && req.url.includes('/files/resumable?done=true');

/**
 * A rig with a Docs folder whose transport can lose the answer of the first create sent whole
 * (the NAS applies it); `onLost` runs as that request goes.
 */
async function docsRig(loseFirst = false, onLost?: (r: Rig) => void): Promise<{ r: Rig; docs: string }> {
  let lose = loseFirst;
  const faults = new FaultTransport(new HttpTransport(), (req): Fault | undefined => {
    if (!lose || !isWhole(req)) return undefined;
    lose = false;
    if (onLost && rig) onLost(rig);
    return { kind: 'reset-after' };
  });
  let docs = '';
  rig = await startRig(
    (svc, root) => {
      docs = svc.admin.createFolder(root, 'Docs').id;
    },
    {},
    undefined,
    faults,
  );
  return { r: rig, docs };
}

const settled = (r: Rig): boolean => r.engine.core.creates.counts().open === 0 && r.engine.creator.sending.size === 0;

describe('a new file sent whole', () => {
  it('one request names it with its bytes and answers the new object: no chunk, no read; held as that NAS version', async () => {
    const { r, docs } = await docsRig();
    r.mark();
    put(join(r.mirror, 'Docs', 'notes.txt'), 'twelve bytes');
    await waitFor(async () => settled(r) && (await r.nasChildren(docs)).get('notes.txt')?.size === 12, 'notes.txt on the NAS');
    const o = (await r.nasChildren(docs)).get('notes.txt')!;
    expect((await nasContent(r.svc, o.id)).toString()).toBe('twelve bytes');
    const reads = r.svc.requests().filter((q) => q.method === 'GET' && q.path.endsWith(`/files/${o.id}`)).length;
    expect([r.count('POST', '/files/resumable'), r.count('PUT'), reads]).toEqual([1, 0, 0]);
    expect(r.engine.core.model.get(o.id)).toMatchObject({ lname: 'notes.txt', filled: false, content: { etag: o.eTag, size: 12 } });
    expect(r.engine.actions.localOnly()).toEqual([]);
  });

  it('a walk that stored the new file before its answer came (mid-upload: empty, another eTag): the answer binds it, the file stays as written', async () => {
    // the create's answer held back until a walk's view of the file, as it listed it during
    // the upload, is in the store (s31: that view stayed, and the file, held as the answered
    // version, read as "a new version on the NAS" and was emptied into a placeholder)
    let release: () => void = () => undefined;
    let held: Promise<void> | undefined;
    const gate = new Promise<void>((res) => (release = res));
    const inner = new HttpTransport();
    let docs = '';
    rig = await startRig(
      (svc, root) => {
        docs = svc.admin.createFolder(root, 'Docs').id;
      },
      {},
      undefined,
      {
        request: async (req) => {
          const res = await inner.request(req);
          if (isWhole(req) && held === undefined) {
            held = gate;
            await gate;
          }
          return res;
        },
        close: () => inner.close(),
      },
    );
    const r = rig;
    put(join(r.mirror, 'Docs', 'notes.txt'), 'twelve bytes');
    await waitFor(() => held !== undefined, 'the create sent');
    const o = (await r.nasChildren(docs)).get('notes.txt')!;
    expect(o.size).toBe(12);
    // what a listing during the upload showed
    r.engine.core.applier.apply([{ kind: 'added', after: { ...o, eTag: '"mid-upload"', size: 0 } }]);
    release();
    await waitFor(() => settled(r), 'the create bound');
    // (a walk now would bring the NAS's version back by itself: what counts is the store right after the bind)
    expect(r.engine.core.store.get(o.id)).toMatchObject({ eTag: o.eTag, size: 12 });
    expect(r.engine.core.model.get(o.id)).toMatchObject({ filled: false, content: { etag: o.eTag, size: 12 } });
    await r.engine.checkDirs();
    await r.engine.walkOnce();
    expect(readFileSync(join(r.mirror, 'Docs', 'notes.txt'), 'utf8')).toBe('twelve bytes');
    expect(r.engine.actions.activity(50).map((e) => e.kind)).not.toContain('remote-content');
  });

  it('a device whose creates answer Location alone (no body): one read by id binds each new folder and file', async () => {
    const svc = await startTestService({ quirks: 'bare-created' });
    try {
      rig = await startRig(() => undefined, {}, svc); // (an empty library: its root was never in the model before)
      const r = rig;
      r.mark();
      mkdirSync(join(r.mirror, 'Made'));
      put(join(r.mirror, 'Made', 'a.txt'), 'bare answers');
      await waitFor(async () => settled(r) && (await r.nasChildren(svc.admin.rootId())).has('Made'), 'Made on the NAS');
      const made = (await r.nasChildren(svc.admin.rootId())).get('Made')!;
      await waitFor(async () => settled(r) && (await r.nasChildren(made.id)).has('a.txt'), 'a.txt on the NAS');
      const a = (await r.nasChildren(made.id)).get('a.txt')!;
      expect((await nasContent(svc, a.id)).toString()).toBe('bare answers');
      const reads = (id: string): number => svc.requests().filter((q) => q.method === 'GET' && q.path.endsWith(`/files/${id}`)).length;
      expect([reads(made.id), reads(a.id)]).toEqual([1, 1]);
      expect(r.engine.core.model.get(a.id)).toMatchObject({ lname: 'a.txt', filled: false, content: { etag: a.eTag, size: 12 } });
      expect(r.engine.core.model.get(made.id)).toMatchObject({ lname: 'Made', kind: 'dir' });
      expect(r.engine.actions.localOnly()).toEqual([]);
    } finally {
      await rig?.close();
      rig = undefined;
      await svc.stop();
    }
  });

  it('its answer lost (the NAS took it): the next try finds it by its bytes and binds it; one file, never refused', async () => {
    const { r, docs } = await docsRig(true);
    const data = Buffer.from('the bytes sent once'.repeat(1000));
    put(join(r.mirror, 'Docs', 'report.bin'), data);
    await waitFor(async () => (await r.nasChildren(docs)).has('report.bin'), 'the NAS took the request');
    r.engine.creator.kick();
    await waitFor(() => settled(r), 'settled', 30_000);
    const kids = await r.nasChildren(docs);
    expect([...kids.keys()]).toEqual(['report.bin']);
    const o = kids.get('report.bin')!;
    expect((await nasContent(r.svc, o.id)).equals(data)).toBe(true);
    expect(r.engine.core.model.get(o.id)).toMatchObject({
      lname: 'report.bin',
      filled: false,
      content: { etag: o.eTag, size: data.length },
    });
    expect(r.engine.actions.localOnly()).toEqual([]);
    expect(r.engine.core.creates.refused()).toEqual([]);
  });

  it('its answer lost and the file renamed before the next try: the NAS file at the old name goes; one file, at the new name', async () => {
    // paused as the answer is lost, so the next try comes after the rename (a kick after a walk
    // could else bind draft.txt first, and the rename is then an ordinary one)
    const { r, docs } = await docsRig(true, (rg) => void rg.engine.setPaused(true));
    const data = Buffer.from('renamed while its answer was lost');
    put(join(r.mirror, 'Docs', 'draft.txt'), data);
    await waitFor(async () => (await r.nasChildren(docs)).has('draft.txt'), 'the NAS took the request');
    renameSync(join(r.mirror, 'Docs', 'draft.txt'), join(r.mirror, 'Docs', 'final.txt'));
    await waitFor(() => r.engine.core.creates.open().some((c) => c.name === 'final.txt'), 'the new name recorded');
    await r.engine.setPaused(false);
    r.engine.creator.kick();
    await waitFor(
      async () => {
        const kids = await r.nasChildren(docs);
        return settled(r) && kids.has('final.txt') && !kids.has('draft.txt');
      },
      'one file, at the new name',
      30_000,
    );
    const o = (await r.nasChildren(docs)).get('final.txt')!;
    expect((await nasContent(r.svc, o.id)).equals(data)).toBe(true);
    expect(readFileSync(join(r.mirror, 'Docs', 'final.txt')).equals(data)).toBe(true);
    expect(r.engine.actions.localOnly()).toEqual([]);
  });

  it("someone else's file of that name (other bytes) is not taken for ours: yours stays here, said", async () => {
    const { r, docs } = await docsRig(true);
    put(join(r.mirror, 'Docs', 'a.txt'), 'mine');
    await waitFor(async () => (await r.nasChildren(docs)).has('a.txt'), 'the NAS took the request');
    // meanwhile someone replaced it on the NAS with other bytes under the same name
    const theirs = (await r.nasChildren(docs)).get('a.txt')!;
    await r.client.delete(theirs.id);
    r.svc.admin.createFile(docs, 'a.txt', { content: Buffer.from('theirs') });
    r.engine.creator.kick();
    await waitFor(() => settled(r) && r.engine.core.creates.refused().length === 1, 'refused', 30_000);
    expect(readFileSync(join(r.mirror, 'Docs', 'a.txt'), 'utf8')).toBe('mine');
    const o = (await r.nasChildren(docs)).get('a.txt')!;
    expect((await nasContent(r.svc, o.id)).toString()).toBe('theirs');
  });
});
