/**
 * RemoteRounds alone (the engine's NAS -> disk side), driven through its public methods
 * (walkOnce, settled, reconcileNow, catchUp): the real service in-process on 127.0.0.1, a
 * real state db and a real mirror folder in a temp dir, the real stores and plan queue, the
 * real mirror health check; no engine, no watcher. The rest of the engine is played by the
 * test as engine.ts wires it: the applier's changes feed the plan queue and `storeChanged`,
 * the events run through the pure state machine, the user's own changes go through the real
 * outbox pump (which reports `settled`). Faults: at the network (FaultTransport, and a
 * listing's answer held in transit after the service gave it, for the staleness rule) and at
 * the disk (FaultDisk). Tests wait on promises and conditions, never on fixed sleeps.
 */
import { mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Intent } from '../../app/model/intent.js';
import { FaultTransport, type Fault as NetFault } from '../client/fault-transport.js';
import { ServiceClient } from '../client/service-client.js';
import { HttpTransport, type Transport, type TransportRequest, type TransportResponse } from '../client/transport.js';
import { FaultDisk } from '../local/disk.js';
import { RESERVED_DIR } from '../local/local-names.js';
import type { ActivityInput } from '../local/local-store.js';
import { silentLogger } from '../log/logger.js';
import { startTestService, type TestService } from '../../server/testing.js';
import { EMPTY_NAS_PATH } from './actions.js';
import { Lock, openCore, type Core } from './core.js';
import { initialState, reduce, type EngineEvent, type EngineState } from './engine-state.js';
import { checkMirrorHealth, initRoot } from './mirror-root.js';
import { OutboxPump } from './outbox-pump.js';
import { PlanQueue } from './plan-queue.js';
import { RemoteRounds } from './remote-rounds.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A network that holds the answer to one chosen request after the service gave it (an answer
 * slow in transit): the caller then applies a view of the NAS older than what happened
 * meanwhile. (FaultTransport's `slow` delays before sending, so the service would answer
 * with the newer state.)
 */
class HeldAnswers implements Transport {
  private gate: { match: (r: TransportRequest) => boolean; answered: () => void; release: Promise<void> } | undefined;
  constructor(private readonly inner: Transport) {}

  /** The next request matching `match` is held once answered: `answered` resolves then, `release` lets it go on. */
  hold(match: (r: TransportRequest) => boolean): { answered: Promise<void>; release: () => void } {
    let answered!: () => void;
    let release!: () => void;
    const a = new Promise<void>((res) => (answered = res));
    const r = new Promise<void>((res) => (release = res));
    this.gate = { match, answered, release: r };
    return { answered: a, release };
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const res = await this.inner.request(req);
    const g = this.gate;
    if (g?.match(req)) {
      this.gate = undefined;
      g.answered();
      await g.release;
    }
    return res;
  }

  close(): void {
    this.inner.close();
  }
}

/** The listing request of one folder (any page; alone, or in a group of small folders listed at once). */
const listingOf =
  (folderId: string) =>
  (r: TransportRequest): boolean =>
    r.method === 'GET' &&
    r.url.includes('/filesSearch/parents') &&
    (new URL(r.url).searchParams.get('ids') ?? '').split(',').includes(folderId);

interface World {
  svc: TestService;
  /** Someone else on the NAS: the service's API through a plain client. */
  nas: ServiceClient;
  /** Our network: faults (`faults.setPlan`) over answers that can be held (`held.hold`). */
  faults: FaultTransport;
  held: HeldAnswers;
  disk: FaultDisk;
  core: Core;
  mirror: string;
  rounds: RemoteRounds;
  plans: PlanQueue;
  events: EngineEvent[];
  activities: ActivityInput[];
  /** `failed` reports of the port (a reconcile that threw between the walk's requests). */
  failures: string[];
  indexChanges: number;
  state(): EngineState;
  /** Our own path to the NAS: the outbox, sent and settled by the real pump (it calls `settled`). */
  pump(): OutboxPump;
  /** What the pump's `ranThrough` was told. */
  runs: { follow: boolean; sent: boolean }[];
  ids: Record<string, string>;
}

const NAS_TIME = Date.parse('2021-03-04T05:06:07.000Z');

/** The default NAS: Docs/{a.txt, b.txt}, Photos/{p.jpg}, Empty/, top.txt (files with content). */
function defaultTree(svc: TestService): Record<string, string> {
  const root = svc.admin.rootId();
  const file = { size: 1234, mTime: NAS_TIME };
  const docs = svc.admin.createFolder(root, 'Docs').id;
  const photos = svc.admin.createFolder(root, 'Photos').id;
  return {
    Docs: docs,
    a: svc.admin.createFile(docs, 'a.txt', file).id,
    b: svc.admin.createFile(docs, 'b.txt', file).id,
    Photos: photos,
    p: svc.admin.createFile(photos, 'p.jpg', file).id,
    Empty: svc.admin.createFolder(root, 'Empty').id,
    top: svc.admin.createFile(root, 'top.txt', file).id,
  };
}

/** A NAS built by `tree`, an empty mirror folder with its marker, a fresh state db; RemoteRounds wired as engine.ts does. */
async function world(tree: (svc: TestService) => Record<string, string> = defaultTree): Promise<World> {
  const svc = await startTestService();
  cleanups.push(() => svc.stop());
  const ids = tree(svc);
  const base = mkdtempSync(join(tmpdir(), 'remote-rounds-'));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  const mirror = join(base, 'mirror');
  const disk = new FaultDisk();
  initRoot(mirror, disk);
  const activities: ActivityInput[] = [];
  const core = openCore({ stateDir: join(base, 'state'), mirrorDir: mirror, log: silentLogger, disk }, (a) => {
    activities.push(a);
  });
  cleanups.push(() => {
    core.db.close();
  });
  const held = new HeldAnswers(new HttpTransport());
  const faults = new FaultTransport(held, () => undefined);
  const client = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token(), retries: 0, timeoutMs: 10_000, transport: faults });
  cleanups.push(() => client.close());
  const nas = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token(), retries: 0 });
  cleanups.push(() => nas.close());
  const lock = new Lock();
  const abort = new AbortController();
  let stopped = false;
  let st = initialState(false);
  const plans = new PlanQueue(core.local, core.store);
  const w: World = {
    svc,
    nas,
    faults,
    held,
    disk,
    core,
    mirror,
    rounds: undefined as unknown as RemoteRounds,
    plans,
    events: [],
    activities,
    failures: [],
    indexChanges: 0,
    state: () => st,
    runs: [],
    ids,
    pump: () =>
      new OutboxPump({
        settle: core,
        lock,
        client,
        canSend: () => !stopped,
        report,
        retryDelay: () => 10,
        schedule: () => undefined,
        failed: (step, e) => w.failures.push(`${step}: ${String(e)}`),
        settled: (id) => w.rounds.settled(id),
        ranThrough: async (r) => {
          w.runs.push(r);
        },
      }),
  };
  function report(ev: EngineEvent): void {
    w.events.push(ev);
    st = reduce(st, ev);
  }
  w.rounds = new RemoteRounds({
    core,
    lock,
    client,
    plans,
    signal: abort.signal,
    stopped: () => stopped,
    state: () => st,
    report,
    healthy: async () => checkMirrorHealth(core, st.mirrorMissing, report, () => undefined),
    failed: (step, e) => w.failures.push(`${step}: ${String(e)}`),
    indexChanged: () => w.indexChanges++,
  });
  const off = core.applier.onChanges((cs) => {
    plans.note(cs.map((c) => (c.kind === 'removed' ? c.before.id : c.after.id)));
    w.rounds.storeChanged();
  });
  // first in the list, so last to run: nothing of this world runs once the service and the db are gone
  cleanups.push(async () => {
    stopped = true;
    abort.abort();
    off();
    await new Promise((res) => setImmediate(res)); // a reconcile scheduled between requests is queued on the lock
    await lock.run(() => undefined);
  });
  return w;
}

/** The mirror folder as `path -> inode` ('/' after a folder's path); a file's size must be 0 (a placeholder). */
function diskTree(w: World): Record<string, string> {
  const out: Record<string, string> = {};
  const read = (rel: string): void => {
    for (const name of readdirSync(join(w.mirror, rel)).sort()) {
      if (rel === '' && name === RESERVED_DIR) continue;
      const r = rel ? `${rel}/${name}` : name;
      const st = statSync(join(w.mirror, r), { bigint: true });
      if (st.isDirectory()) {
        out[`${r}/`] = st.ino.toString();
        read(r);
      } else {
        expect(st.size, `${r} is a placeholder`).toBe(0n);
        out[r] = st.ino.toString();
      }
    }
  };
  read('');
  return out;
}

const paths = (w: World): string[] => Object.keys(diskTree(w)).sort();

/** The user renames or moves a placeholder here: the disk, the model (as the local side reads it), the outbox (pending). */
function userChanges(w: World, id: string, to: { name?: string; parent?: string }): void {
  const { model } = w.core;
  const e = model.get(id)!;
  const from = join(w.mirror, model.pathOf(id)!);
  const parent = to.parent ?? e.lparent;
  const name = to.name ?? e.lname;
  const dest = join(w.mirror, model.pathOf(parent)!, name);
  renameSync(from, dest);
  model.update(id, { lparent: parent, lname: name });
  w.core.local.flush(model);
  const intent: Intent = { op: 'patch', id, fromName: e.lname, fromParent: e.lparent };
  if (to.name !== undefined) intent.name = to.name;
  if (to.parent !== undefined) intent.parentID = to.parent;
  w.core.outbox.enqueue([{ intent, origin: 'local', path: model.pathOf(id)!, reason: 'test' }]);
}

const retryIds = (w: World): string[] => JSON.parse(w.core.local.meta('retryIds') ?? '[]') as string[];
const finished = (w: World): EngineEvent[] => w.events.filter((e) => e.type === 'walk-finished');
const since = (w: World, n: number): EngineEvent[] => w.events.slice(n);

describe('RemoteRounds alone (real service, real state db, real mirror folder)', () => {
  it('a first walk places every NAS object as a placeholder (files 0 bytes, folders), reports its progress, and is complete', async () => {
    const w = await world();
    expect(await w.rounds.walkOnce()).toBe(true);
    expect(paths(w)).toEqual(['Docs/', 'Docs/a.txt', 'Docs/b.txt', 'Empty/', 'Photos/', 'Photos/p.jpg', 'top.txt']);
    // each placeholder is bound to its object by the inode the disk gave it, under the NAS time
    const tree = diskTree(w);
    for (const [key, id] of Object.entries(w.ids)) {
      const path = w.core.model.pathOf(id)!;
      const e = w.core.model.get(id)!;
      expect(tree[e.kind === 'dir' ? `${path}/` : path], key).toBe(e.ino);
    }
    expect(statSync(join(w.mirror, 'Docs/a.txt')).mtimeMs).toBe(NAS_TIME);
    const types = w.events.map((e) => e.type);
    expect(types[0]).toBe('walk-started');
    expect(types.at(-1)).toBe('walk-finished');
    expect(types).toContain('walk-progress');
    expect(w.events.filter((e) => e.type === 'walk-placed').at(-1)).toEqual({ type: 'walk-placed', placed: 7 });
    expect(finished(w)).toEqual([{ type: 'walk-finished', error: undefined }]);
    expect(w.state()).toMatchObject({
      connection: 'online',
      refused: undefined,
      diskError: undefined,
      walk: { running: false, placed: 7 },
    });
    expect(w.rounds.lastWalkUnreachable).toBe(false);
    expect(w.activities.filter((a) => a.kind === 'remote-added').map((a) => a.summary)).toEqual(['placed 7 new placeholders']);
    expect(w.indexChanges).toBe(1);
    expect(w.plans.behind).toBe(false);
    expect(w.failures).toEqual([]);
  });

  it('a NAS rename and a NAS move made between two walks reach the disk at the next walk, each placeholder keeping its inode', async () => {
    const w = await world();
    await w.rounds.walkOnce();
    const before = diskTree(w);
    await w.nas.patch(w.ids.a!, { name: 'a-renamed.txt' });
    await w.nas.patch(w.ids.b!, { parentID: w.ids.Photos! });
    expect(await w.rounds.walkOnce()).toBe(true);
    const after = diskTree(w);
    expect(Object.keys(after).sort()).toEqual([
      'Docs/',
      'Docs/a-renamed.txt',
      'Empty/',
      'Photos/',
      'Photos/b.txt',
      'Photos/p.jpg',
      'top.txt',
    ]);
    expect(after['Docs/a-renamed.txt']).toBe(before['Docs/a.txt']);
    expect(after['Photos/b.txt']).toBe(before['Docs/b.txt']);
    expect(w.core.model.get(w.ids.b!)).toMatchObject({ lparent: w.ids.Photos, rparent: w.ids.Photos, ino: before['Docs/b.txt'] });
    expect(w.activities.filter((a) => a.kind === 'remote-renamed' || a.kind === 'remote-moved').map((a) => [a.kind, a.path])).toEqual(
      expect.arrayContaining([
        ['remote-renamed', 'Docs/a-renamed.txt'],
        ['remote-moved', 'Photos/b.txt'],
      ]),
    );
    expect(finished(w).at(-1)).toEqual({ type: 'walk-finished', error: undefined });
    expect(w.failures).toEqual([]);
  });

  it('a walk begun before one of our own changes was settled does not undo it, in the store or on disk; the next walk agrees', async () => {
    const w = await world();
    const { a, Docs } = w.ids as { a: string; Docs: string };
    await w.rounds.walkOnce();
    const ino = diskTree(w)['Docs/a.txt'];
    // something new in Docs: the next walk lists it in full (not a 304)
    w.svc.admin.createFile(Docs, 'c.txt');
    // the walk's listing of Docs is answered (a.txt under its old name) but slow to arrive
    const gate = w.held.hold(listingOf(Docs));
    const walking = w.rounds.walkOnce();
    await gate.answered;
    expect(w.state().walk.running).toBe(true);
    // meanwhile the user renames a.txt, and the outbox sends and settles it (`settled(a)`)
    userChanges(w, a, { name: 'a2.txt' });
    await w.pump().drain();
    expect(w.svc.admin.get(a)!.name).toBe('a2.txt');
    expect(w.core.outbox.counts()).toMatchObject({ pending: 0, done: 1 });
    const eTag = w.svc.admin.get(a)!.eTag;
    gate.release();
    expect(await walking).toBe(true);
    // that walk's older view of it is left out (s27: it took the store back; sync.ts PassWrites),
    // and so it reaches neither the disk nor the model's base: a2.txt stays, same inode; what
    // else it brought is placed
    expect(w.core.store.get(a)).toMatchObject({ name: 'a2.txt', eTag });
    expect(diskTree(w)).toMatchObject({ 'Docs/a2.txt': ino, 'Docs/c.txt': expect.any(String) });
    expect(paths(w)).not.toContain('Docs/a.txt');
    expect(w.core.model.get(a)).toMatchObject({ lname: 'a2.txt', rname: 'a2.txt', setag: eTag });
    expect(retryIds(w)).toContain(a);
    // the next walk began after the change was settled: its view is current, and agrees
    expect(await w.rounds.walkOnce()).toBe(true);
    expect(w.core.store.get(a)).toMatchObject({ name: 'a2.txt', eTag });
    expect(diskTree(w)['Docs/a2.txt']).toBe(ino);
    expect(paths(w)).toEqual(['Docs/', 'Docs/a2.txt', 'Docs/b.txt', 'Docs/c.txt', 'Empty/', 'Photos/', 'Photos/p.jpg', 'top.txt']);
    expect(w.failures).toEqual([]);
  });

  it('a placement the disk refused (rename EIO) is reported, planned again, and lands at the next walk with disk-ok', async () => {
    const w = await world();
    const { a } = w.ids as { a: string };
    await w.rounds.walkOnce();
    const ino = diskTree(w)['Docs/a.txt'];
    await w.nas.patch(a, { name: 'a2.txt' });
    w.disk.add({ op: 'rename', path: '/Docs/a.txt', errno: 'EIO' });
    const n = w.events.length;
    expect(await w.rounds.walkOnce()).toBe(true); // a disk that refuses a write does not make the walk incomplete
    expect(w.disk.failed.length).toBeGreaterThan(0);
    expect(paths(w)).toContain('Docs/a.txt');
    const refused = since(w, n).filter((e) => e.type === 'disk-error');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({ step: 'write', error: { code: 'DiskError', message: expect.stringContaining('EIO') } });
    expect(w.state().diskError?.code).toBe('DiskError');
    // nothing lost: the model's base went back (the NAS change is not "seen"), the id kept to try again
    expect(w.core.model.get(a)).toMatchObject({ rname: 'a.txt', lname: 'a.txt' });
    expect(retryIds(w)).toContain(a);
    expect(w.activities.some((x) => x.kind === 'error' && x.summary === 'could not update a placeholder')).toBe(true);
    // the disk works again; the next walk brings nothing new for a.txt: its first reconcile (with the retries) places it
    w.disk.clear();
    const m = w.events.length;
    expect(await w.rounds.walkOnce()).toBe(true);
    const disk = since(w, m).filter((e) => e.type === 'disk-error' || e.type === 'disk-ok');
    expect(disk[0]).toEqual({ type: 'disk-ok', step: 'write' });
    expect(disk.some((e) => e.type === 'disk-error')).toBe(false);
    expect(diskTree(w)['Docs/a2.txt']).toBe(ino);
    expect(paths(w)).not.toContain('Docs/a.txt');
    expect(w.state().diskError).toBeUndefined();
    expect(retryIds(w)).not.toContain(a);
    expect(w.failures).toEqual([]);
  });

  it('catchUp places what a refused placement left to retry, without a walk, and does nothing when nothing is behind', async () => {
    const w = await world();
    const { p } = w.ids as { p: string };
    await w.rounds.walkOnce();
    await w.nas.patch(p, { name: 'p2.jpg' });
    w.disk.add({ op: 'rename', path: '/Photos/p.jpg', errno: 'EACCES' });
    await w.rounds.walkOnce();
    expect(paths(w)).toContain('Photos/p.jpg');
    expect(w.plans.behind).toBe(true);
    w.disk.clear();
    const requests = w.svc.requestCount();
    await w.rounds.catchUp();
    expect(paths(w)).toContain('Photos/p2.jpg');
    expect(w.state().diskError).toBeUndefined();
    expect(w.plans.behind).toBe(false);
    const n = w.events.length;
    await w.rounds.catchUp();
    expect(w.events.length).toBe(n); // nothing planned: no reconcile at all
    expect(w.svc.requestCount()).toBe(requests); // the NAS was not asked
    expect(w.failures).toEqual([]);
  });

  it('a cycle (seed 7006): B, moved by the NAS into A which the user moved into B, waits; once A is settled and back, reconcileNow places B in A', async () => {
    const w = await world((svc) => {
      const root = svc.admin.rootId();
      const A = svc.admin.createFolder(root, 'A').id;
      const B = svc.admin.createFolder(root, 'B').id;
      return { root, A, B, b1: svc.admin.createFile(B, 'b1.txt').id };
    });
    const { root, A, B } = w.ids as { root: string; A: string; B: string };
    await w.rounds.walkOnce();
    const before = diskTree(w);
    // the user moves A into B (its entry waits in the outbox); on the NAS, someone moves B into A
    userChanges(w, A, { parent: B });
    await w.nas.patch(B, { parentID: A });
    expect(await w.rounds.walkOnce()).toBe(true);
    // B cannot go into A, which is inside B here: not placed, kept to retry
    expect(w.core.store.get(B)!.parentID).toBe(A);
    expect(paths(w)).toEqual(['B/', 'B/A/', 'B/b1.txt']);
    expect(w.core.model.get(B)).toMatchObject({ lparent: root, rparent: A });
    expect(retryIds(w)).toContain(B);
    expect(w.failures).toEqual([]);
    // the NAS refuses the user's move (a cycle there): A's entry is settled as a conflict, its base where the NAS has it
    await w.pump().drain();
    expect(w.core.outbox.counts()).toMatchObject({ pending: 0, conflict: 1 });
    expect(w.core.model.get(A)).toMatchObject({ rparent: root, lparent: B });
    expect(w.runs).toEqual([{ follow: true, sent: true }]);
    await w.rounds.reconcileNow();
    const after = diskTree(w);
    expect(Object.keys(after).sort()).toEqual(['A/', 'A/B/', 'A/B/b1.txt']);
    expect([after['A/'], after['A/B/'], after['A/B/b1.txt']]).toEqual([before['A/'], before['B/'], before['B/b1.txt']]);
    expect(retryIds(w)).not.toContain(B);
    expect(w.failures).toEqual([]);
  });

  it.each<[string, NetFault, string]>([
    ['connection refused', { kind: 'reset-before' }, 'NetworkError'],
    ['503', { kind: 'status', status: 503 }, 'Unavailable'],
  ])(
    'a walk whose listings cannot reach the NAS (%s) ends with an error, sets lastWalkUnreachable, changes nothing on disk',
    async (_, fault, code) => {
      const w = await world();
      await w.rounds.walkOnce();
      const before = diskTree(w);
      const stored = w.core.store.count();
      // the NAS changes; then its listings stop answering
      await w.nas.patch(w.ids.a!, { name: 'a2.txt' });
      await w.nas.delete(w.ids.top!);
      w.faults.setPlan((req) => (req.url.includes('/filesSearch/parents') ? fault : undefined));
      expect(await w.rounds.walkOnce()).toBe(false);
      expect(finished(w).at(-1)).toMatchObject({ type: 'walk-finished', error: { code, message: expect.any(String) } });
      expect(w.rounds.lastWalkUnreachable).toBe(true);
      expect(w.state()).toMatchObject({ connection: 'offline', linkError: { code }, walk: { running: false } });
      expect(diskTree(w)).toEqual(before);
      expect(w.core.store.count()).toBe(stored);
      // the NAS answers again: the next walk is complete, and brings both changes
      w.faults.setPlan(() => undefined);
      expect(await w.rounds.walkOnce()).toBe(true);
      expect(w.rounds.lastWalkUnreachable).toBe(false);
      expect(paths(w)).toEqual(['Docs/', 'Docs/a2.txt', 'Docs/b.txt', 'Empty/', 'Photos/', 'Photos/p.jpg']);
      expect(w.failures).toEqual([]);
    },
  );

  it('a NAS that suddenly looks empty above the delete threshold is held (a held row for the root), nothing removed from disk', async () => {
    const w = await world();
    await w.rounds.walkOnce();
    const before = diskTree(w);
    const stored = w.core.store.count();
    const rootId = w.core.model.rootId;
    // every top-level object deleted on the NAS
    for (const key of ['Docs', 'Photos', 'Empty', 'top']) await w.nas.delete(w.ids[key]!);
    await w.svc.admin.drainDeletes();
    expect(w.svc.admin.get(w.ids.Docs!)).toBeUndefined();
    expect(await w.rounds.walkOnce()).toBe(false);
    expect(finished(w).at(-1)).toMatchObject({ type: 'walk-finished', error: { code: 'NasLooksEmpty', message: expect.any(String) } });
    expect(w.rounds.lastWalkUnreachable).toBe(false);
    expect(w.core.local.held()).toEqual([expect.objectContaining({ id: rootId, path: EMPTY_NAS_PATH, folder: true, objects: stored })]);
    expect(w.state().refused?.code).toBe('NasLooksEmpty');
    expect(diskTree(w)).toEqual(before);
    expect(w.core.store.count()).toBe(stored);
    // asked once: a second walk that finds it empty again adds no second row
    expect(await w.rounds.walkOnce()).toBe(false);
    expect(w.core.local.held()).toHaveLength(1);
    expect(diskTree(w)).toEqual(before);
    expect(w.failures).toEqual([]);
  });
});
