/**
 * The outbox pump alone (enqueue -> SEND -> SETTLE), against the real service on 127.0.0.1
 * with faults injected at the transport, on a real state database; no engine, no disk. In
 * order and one at a time; an unreachable NAS stops the run, is reported and retried, and
 * loses nothing; an answer lost after the NAS applied a change (the process killed between
 * send and settle) is found on the NAS at the next run and never applied twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Intent } from '../../app/model/intent.js';
import { FOLDER_MIME } from '../../app/model/remote-object.js';
import { FaultTransport, type FaultPlan } from '../client/fault-transport.js';
import { ServiceClient } from '../client/service-client.js';
import { HttpTransport } from '../client/transport.js';
import { LocalStore } from '../local/local-store.js';
import { LocalModel } from '../local/model.js';
import { ChangeApplier } from '../mirror/apply.js';
import { MirrorStore } from '../mirror/store.js';
import { syncOnce } from '../mirror/sync.js';
import { OutboxStore } from '../outbox/outbox-store.js';
import type { SettlePort } from '../outbox/settle.js';
import { openStateDb, type Db } from '../state/db.js';
import { startTestService, type TestService } from '../../server/testing.js';
import { Lock } from './core.js';
import type { EngineEvent } from './engine-state.js';
import { OutboxPump, type PumpPort } from './outbox-pump.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface World {
  svc: TestService;
  settle: SettlePort;
  faults: FaultTransport;
  events: EngineEvent[];
  scheduled: (() => void)[];
  runs: { follow: boolean; sent: boolean }[];
  pump: () => OutboxPump;
  ids: Record<string, string>;
}

/** The NAS has Docs/{a.txt, b.txt} and Other/; the state db mirrors it, placed as it is. */
async function world(plan: FaultPlan = () => undefined): Promise<World> {
  const svc = await startTestService();
  cleanups.push(() => svc.stop());
  const root = svc.admin.rootId();
  const docs = svc.admin.createFolder(root, 'Docs').id;
  const ids = {
    Docs: docs,
    a: svc.admin.createFile(docs, 'a.txt').id,
    b: svc.admin.createFile(docs, 'b.txt').id,
    Other: svc.admin.createFolder(root, 'Other').id,
  };
  const dir = mkdtempSync(join(tmpdir(), 'pump-'));
  const db: Db = openStateDb(dir);
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const faults = new FaultTransport(new HttpTransport(), plan);
  const client = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token(), retries: 0, timeoutMs: 5000, transport: faults });
  cleanups.push(() => client.close());
  const store = new MirrorStore(db);
  const applier = new ChangeApplier(store);
  expect((await syncOnce(client, store, applier)).complete).toBe(true);
  const model = new LocalModel(store.root()!.id);
  for (const o of [store.root()!, ...store.all()]) {
    model.put({
      id: o.id,
      kind: o.mimeType === FOLDER_MIME ? 'dir' : 'file',
      lparent: o.id === model.rootId ? '' : o.parentID,
      lname: o.id === model.rootId ? '' : o.name,
      ino: o.id,
      filled: false,
      rparent: o.parentID,
      rname: o.name,
      etag: o.eTag,
      mtime: o.mTime,
      setag: o.eTag,
      state: 'ok',
    });
  }
  const local = new LocalStore(db);
  local.flush(model);
  const settle: SettlePort = { model, store, applier, local, outbox: new OutboxStore(db), db, activity: () => undefined };
  const w: World = { svc, settle, faults, events: [], scheduled: [], runs: [], ids, pump: () => new OutboxPump(port) };
  const lock = new Lock();
  const port: PumpPort = {
    settle,
    lock,
    client,
    canSend: () => true,
    report: (ev) => {
      w.events.push(ev);
    },
    retryDelay: () => 10,
    schedule: (fn) => {
      w.scheduled.push(fn);
    },
    failed: (step, e) => {
      throw new Error(`${step}: ${String(e)}`);
    },
    settled: () => undefined,
    ranThrough: async (r) => {
      w.runs.push(r);
    },
  };
  return w;
}

/** The user renamed `id` locally (the model shows it; the outbox holds the change). */
function rename(w: World, id: string, name: string): number {
  const e = w.settle.model.get(id)!;
  const intent: Intent = { op: 'patch', id, name, fromName: e.lname, fromParent: e.lparent };
  w.settle.model.update(id, { lname: name });
  return w.settle.outbox.enqueue([{ intent, origin: 'local', path: name, reason: 'test' }])[0]!;
}

const patches = (w: World): number => w.svc.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/patch')).length;

describe('the outbox pump (real service, real state db)', () => {
  it('sends in order, one at a time, each settled before the next: a second rename of the same file goes with the eTag the first one got', async () => {
    const w = await world();
    rename(w, w.ids.a!, 'a2.txt');
    rename(w, w.ids.a!, 'a3.txt');
    rename(w, w.ids.b!, 'b2.txt');
    await w.pump().drain();
    expect(w.svc.admin.get(w.ids.a!)!.name).toBe('a3.txt');
    expect(w.svc.admin.get(w.ids.b!)!.name).toBe('b2.txt');
    expect(w.settle.outbox.counts()).toMatchObject({ pending: 0, sending: 0, done: 3 });
    expect(w.settle.model.get(w.ids.a!)!.etag).toBe(w.svc.admin.get(w.ids.a!)!.eTag);
    expect(w.events.filter((e) => e.type === 'sent')).toHaveLength(3);
    expect(w.runs).toEqual([{ follow: false, sent: true }]);
  });

  it('a NAS that does not answer stops the run: reported, retried later, nothing lost or reordered', async () => {
    let down = true;
    const w = await world((req) => (down && req.method === 'POST' ? { kind: 'status', status: 503 } : undefined));
    const first = rename(w, w.ids.a!, 'a2.txt');
    rename(w, w.ids.b!, 'b2.txt');
    await w.pump().drain();
    expect(w.events.map((e) => e.type)).toEqual(['send-failed']);
    expect(w.settle.outbox.get(first)!.state).toBe('pending');
    expect(w.scheduled).toHaveLength(1);
    expect(w.svc.admin.get(w.ids.a!)!.name).toBe('a.txt');
    down = false;
    const pump = w.pump();
    pump.kick(); // what the scheduled retry does
    await pump.idle();
    expect(w.svc.admin.get(w.ids.a!)!.name).toBe('a2.txt');
    expect(w.svc.admin.get(w.ids.b!)!.name).toBe('b2.txt');
    expect(w.settle.outbox.counts()).toMatchObject({ pending: 0, done: 2 });
  });

  it('the answer lost after the NAS applied the change (killed between send and settle): found on the NAS, settled, never applied twice', async () => {
    let lose = true;
    const w = await world((req) =>
      lose && req.method === 'POST' && typeof req.body === 'string' && req.body.includes('a2.txt') ? { kind: 'reset-after' } : undefined,
    );
    const seq = rename(w, w.ids.a!, 'a2.txt');
    await w.pump().drain();
    // the NAS has it; the pump did not hear so: the entry stays as it was left (sending, or pending to retry)
    expect(w.svc.admin.get(w.ids.a!)!.name).toBe('a2.txt');
    expect(w.settle.outbox.get(seq)!.state).not.toBe('done');
    const before = patches(w);
    lose = false;
    // a new process: the entry is read from the state db as it was left
    await w.pump().drain();
    expect(w.settle.outbox.get(seq)!.state).toBe('done');
    expect(patches(w)).toBe(before); // looked on the NAS, not sent again
    expect(w.settle.model.get(w.ids.a!)).toMatchObject({ rname: 'a2.txt', etag: w.svc.admin.get(w.ids.a!)!.eTag });
  });
});
