/**
 * Issue 23, part 4: a real `nas-mirror run` killed with SIGKILL in the middle of an upload, at
 * exact points, then started again (the real service, a real mirror folder). The engine talks to
 * the service through a proxy of the test's (cut-proxy.ts) that kills it once the service has
 * answered a request and before the engine hears the answer (what the state db holds is then
 * what a kill between "the NAS answered" and "the state written" leaves), or once part of a
 * chunk's body reached the service. After the restart: the file is on the NAS once, with the
 * right bytes; no second upload, no restart from 0 when the NAS holds an offset; the local file
 * untouched and bound to the NAS object (no twin, nothing downloaded over it).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RemoteObject } from '../../../app/model/remote-object.js';
import { ServiceClient } from '../../../main/client/service-client.js';
import { CHUNK_BYTES } from '../../../main/engine/creates.js';
import { CreatesStore } from '../../../main/local/creates-store.js';
import { LocalStore } from '../../../main/local/local-store.js';
import { openStateDbReadOnly } from '../../../main/state/db.js';
import { startTestService, type TestService } from '../../../server/testing.js';
import { waitFor } from '../../support/wait.js';
import { nasContent } from './harness.js';
import { startCutProxy, type Cut, type CutProxy, type Exchange } from './cut-proxy.js';
import { startRunProcess, type RunProcess } from './run-process.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const bytes = (n: number, seed: number): Buffer => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7 + (i >> 11)) & 0xff;
  return b;
};
/** Two whole chunks and a bit: a first chunk, a middle one, a last one. */
const SIZE = CHUNK_BYTES * 2 + 12_345;

interface World {
  svc: TestService;
  proxy: CutProxy;
  /** The NAS as the test reads it (straight to the service, not through the proxy). */
  nas: ServiceClient;
  base: string;
  state: string;
  mirror: string;
  docs: string;
  p: RunProcess;
}

/** A service with Docs (and what `seed` adds), the proxy, and a running engine that has placed Docs. */
async function start(seed: (svc: TestService, docs: string) => void = () => undefined): Promise<World> {
  const svc = await startTestService();
  cleanups.push(() => svc.stop());
  const docs = svc.admin.createFolder(svc.admin.rootId(), 'Docs').id;
  seed(svc, docs);
  const proxy = await startCutProxy(svc.baseUrl);
  cleanups.push(() => proxy.stop());
  const base = mkdtempSync(join(tmpdir(), 'nas-upload-crash-'));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  const w: World = {
    svc,
    proxy,
    nas: new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token(), retries: 0 }),
    base,
    state: join(base, 'state'),
    mirror: join(base, 'mirror'),
    docs,
    p: undefined as unknown as RunProcess,
  };
  cleanups.push(() => {
    w.p.child.kill('SIGKILL');
  });
  await run(w);
  await waitFor(() => statSync(join(w.mirror, 'Docs'), { throwIfNoEntry: false })?.isDirectory() === true, 'Docs placed');
  return w;
}

/** Starts `nas-mirror run` through the proxy; resolves once it watches the folder. */
async function run(w: World): Promise<void> {
  w.p = startRunProcess({ baseUrl: w.proxy.baseUrl, token: () => w.svc.token() }, w.state, w.mirror);
  const p = w.p;
  await waitFor(() => p.err().includes('watching'), 'the engine watching', 30_000);
}

/** The engine killed with SIGKILL; resolves once it is gone. */
async function kill9(w: World): Promise<void> {
  w.p.child.kill('SIGKILL');
  await w.p.exit;
}

/** The user's file put in Docs whole, its time a minute ago (stable at once: no wait for the creator's 2 s). */
function drop(w: World, name: string, data: Buffer): string {
  const outside = join(w.base, 'outside');
  mkdirSync(outside, { recursive: true });
  const tmp = join(outside, name);
  writeFileSync(tmp, data);
  const past = new Date(Date.now() - 60_000);
  utimesSync(tmp, past, past);
  const file = join(w.mirror, 'Docs', name);
  renameSync(tmp, file);
  return file;
}

/** Docs on the NAS, by name. */
async function nasDocs(w: World): Promise<Map<string, RemoteObject>> {
  const out = new Map<string, RemoteObject>();
  for await (const page of w.nas.pages(w.docs)) for (const o of page.files) out.set(o.name, o);
  return out;
}

/** What the state db says of the upload of `id` (read beside the running engine). */
function stored(w: World, id: string) {
  const db = openStateDbReadOnly(w.state);
  try {
    const local = new LocalStore(db);
    return {
      entry: local.entryContent(id),
      open: new CreatesStore(db).counts().open,
      conflicts: local.conflicts().length,
      localOnly: local.localOnlyCount(),
      uploaded: local.activity(500).filter((a) => a.kind === 'uploaded'),
    };
  } finally {
    db.close();
  }
}

const isUpload = (x: Exchange): boolean => x.method === 'PUT' && x.path.endsWith('/resumable/content');
const isCreate = (x: Exchange): boolean => x.method === 'POST' && x.path.endsWith('/files/resumable');
const offsetOf = (x: Exchange): number => Number(x.query.get('offset'));

/** Arms the cut, lets `act` start the upload, and waits until the engine is dead there. */
async function killAt(w: World, match: (x: Exchange) => boolean, cut: Cut, act: () => void): Promise<void> {
  const cutDone = w.proxy.cutAt(match, cut, () => kill9(w));
  act();
  await cutDone;
}

/** After the restart: the upload of `name` finished and recorded; its NAS object. */
async function settled(w: World, name: string, data: Buffer): Promise<RemoteObject> {
  await waitFor(
    async () => {
      const o = (await nasDocs(w)).get(name);
      if (o?.size !== data.length || w.svc.admin.get(o.id)?.resumable === true) return false;
      const s = stored(w, o.id);
      return s.open === 0 && s.entry?.content?.etag === o.eTag;
    },
    `${name} complete on the NAS and recorded`,
    30_000,
  );
  return (await nasDocs(w)).get(name)!;
}

/** Once: one object of that name in Docs (no "name (1)"), the bytes right; the local file untouched, bound, held as that version. */
async function expectOnce(w: World, name: string, data: Buffer, file: string, ino: number, o: RemoteObject): Promise<void> {
  const stem = name.replace(/\.[^.]*$/, ''); // "video (1).bin", "report (conflicted copy ...).bin" start with it
  expect([...(await nasDocs(w)).keys()].filter((n) => n.startsWith(stem))).toEqual([name]);
  expect(sha(await nasContent(w.svc, o.id))).toBe(sha(data));
  expect(readdirSync(join(w.mirror, 'Docs')).filter((n) => n.startsWith(stem))).toEqual([name]);
  expect(statSync(file).ino).toBe(ino);
  expect(sha(readFileSync(file))).toBe(sha(data));
  const s = stored(w, o.id);
  expect(s.entry).toMatchObject({ kind: 'file', filled: false, content: { etag: o.eTag, size: data.length, ino: String(ino) } });
  expect([s.conflicts, s.localOnly]).toEqual([0, 0]);
  expect(s.uploaded.filter((a) => a.path === `Docs/${name}`)).toHaveLength(1);
  // nothing downloaded over it; one version completed
  expect(w.proxy.seen.filter((x) => x.method === 'GET' && x.path.endsWith(`/${o.id}/content`))).toEqual([]);
  expect(w.proxy.seen.filter((x) => isUpload(x) && x.query.get('done') === 'true' && x.status === 204)).toHaveLength(1);
}

describe('kill -9 during a new file upload, then a restart', () => {
  it.each<[string, (x: Exchange) => boolean, Cut, number]>([
    ['after the NAS named it, before the engine heard the id', isCreate, { at: 'answer' }, 0],
    ['after the first chunk, before its offset was written', (x) => isUpload(x) && offsetOf(x) === 0, { at: 'answer' }, CHUNK_BYTES],
    [
      'in the middle of the second chunk',
      (x) => isUpload(x) && offsetOf(x) === CHUNK_BYTES,
      { at: 'body', bytes: 3 * 1024 * 1024 + 5 },
      CHUNK_BYTES + 3 * 1024 * 1024 + 5,
    ],
    [
      'after the last chunk (done), before the engine wrote it',
      (x) => isUpload(x) && x.query.get('done') === 'true',
      { at: 'answer' },
      SIZE,
    ],
  ])(
    'killed %s: on the NAS once, resumed at its offset, bound to the local file',
    async (_what, match, cut, nasHeld) => {
      const w = await start();
      const data = bytes(SIZE, 1);
      let file = '';
      await killAt(w, match, cut, () => {
        file = drop(w, 'video.bin', data);
      });
      const ino = statSync(file).ino;
      // what the NAS holds at the kill (a chunk cut off: once the service has taken in the cut)
      const atKill = (await nasDocs(w)).get('video.bin')!;
      if (nasHeld < SIZE) await waitFor(async () => (await w.nas.uploadOffset(atKill.id)) === nasHeld, `the NAS holding ${nasHeld} bytes`);
      else expect(w.svc.admin.get(atKill.id)).toMatchObject({ size: SIZE });
      expect(w.svc.admin.get(atKill.id)?.resumable).toBe(nasHeld < SIZE ? true : undefined);
      const before = w.proxy.seen.length;
      await run(w);
      const o = await settled(w, 'video.bin', data);
      expect(o.id).toBe(atKill.id);
      await expectOnce(w, 'video.bin', data, file, ino, o);
      expect(w.proxy.seen.filter(isCreate)).toHaveLength(1);
      // resumed where the NAS was: never from 0 when it held bytes
      const after = w.proxy.seen.slice(before).filter(isUpload);
      if (nasHeld === SIZE) expect(after).toEqual([]);
      else expect(offsetOf(after[0]!)).toBe(nasHeld);
      w.p.child.kill('SIGTERM');
      expect(await w.p.exit).toBe(0);
    },
    60_000,
  );
});

describe('kill -9 during a new version of a file changed here (If-Match), then a restart', () => {
  it.each<[string, (x: Exchange) => boolean, Cut]>([
    ['after the NAS began the version', (x) => x.method === 'POST' && x.query.get('truncate') === 'true', { at: 'answer' }],
    ['in the middle of the second chunk', (x) => isUpload(x) && offsetOf(x) === CHUNK_BYTES, { at: 'body', bytes: 1024 * 1024 }],
    ['after the last chunk (done), before the engine wrote it', (x) => isUpload(x) && x.query.get('done') === 'true', { at: 'answer' }],
  ])(
    'killed %s: the version applied once, the content right, no conflict',
    async (_what, match, cut) => {
      let id = '';
      const w = await start((svc, docs) => {
        id = svc.admin.createFile(docs, 'report.bin', { content: bytes(5000, 2), mTime: Date.parse('2021-03-04T05:06:07Z') }).id;
      });
      const base = w.svc.admin.get(id)!.eTag;
      const file = join(w.mirror, 'Docs', 'report.bin');
      await waitFor(() => statSync(file, { throwIfNoEntry: false }) !== undefined, 'the placeholder');
      const ino = statSync(file).ino;
      const data = bytes(SIZE, 3);
      await killAt(w, match, cut, () => {
        // the user's content written into the placeholder (same inode), its time a minute ago
        writeFileSync(file, data);
        const past = new Date(Date.now() - 60_000);
        utimesSync(file, past, past);
      });
      await run(w);
      const o = await settled(w, 'report.bin', data);
      expect(o.id).toBe(id);
      expect(o.eTag).not.toBe(base);
      await expectOnce(w, 'report.bin', data, file, ino, o);
      // every try began the version with If-Match the version the user changed; no new file (no conflicted copy)
      const begun = w.proxy.seen.filter((x) => x.method === 'POST' && x.query.get('truncate') === 'true');
      expect(begun.length).toBeGreaterThanOrEqual(1);
      expect(begun.every((x) => x.ifMatch === base)).toBe(true);
      expect(w.proxy.seen.filter(isCreate)).toEqual([]);
      w.p.child.kill('SIGTERM');
      expect(await w.p.exit).toBe(0);
    },
    60_000,
  );
});
