/**
 * The outbox's decision on an error no step turned into an answer: its retry class and the
 * attempt number alone. `fatal` is retried with backoff, then held for the user (never
 * dropped, never retried silently for ever); `backoff` is never held; `user` stops the queue.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../app/errors.js';
import type { Intent } from '../../app/model/intent.js';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import { startTestService, type TestService } from '../../server/testing.js';
import { FaultTransport, type FaultPlan } from '../client/fault-transport.js';
import { ServiceClient } from '../client/service-client.js';
import { HttpTransport } from '../client/transport.js';
import { LocalModel } from '../local/model.js';
import type { OutboxEntry } from './outbox-store.js';
import { FATAL_ATTEMPTS, failure, sendEntry } from './send.js';

const fatal = new AppError('BadResponse', 'response is larger than 100 bytes: refused', { retry: 'fatal', delivery: 'maybe-sent' });

describe('outbox: what a failed send becomes', () => {
  it('fatal: retried (checked on the NAS first when it may have arrived) until the last attempt, then held with the error said', () => {
    for (let attempt = 1; attempt < FATAL_ATTEMPTS; attempt++)
      expect(failure(fatal, attempt)).toEqual({ kind: 'retry', error: fatal, unknown: true });
    const held = failure(fatal, FATAL_ATTEMPTS);
    expect(held).toMatchObject({ kind: 'unsent', error: fatal });
    expect(held.kind === 'unsent' && held.reason).toBe(
      `couldn't send it: response is larger than 100 bytes: refused; ${FATAL_ATTEMPTS} attempts, the last one failing in a way retrying cannot fix`,
    );
    expect(failure(new Error('a bug'), FATAL_ATTEMPTS + 3)).toMatchObject({ kind: 'unsent', error: { code: 'Internal' } });
  });

  it('backoff: retried however many attempts it took (a NAS that is down is waited for)', () => {
    const down = new AppError('Unavailable', 'the NAS is starting', { delivery: 'not-sent' });
    expect(failure(down, 1)).toEqual({ kind: 'retry', error: down, unknown: false });
    expect(failure(down, 1000)).toEqual({ kind: 'retry', error: down, unknown: false });
  });

  it('user: the queue waits for the user (token, keychain)', () => {
    const e = new AppError('Unauthorized', 'token refused');
    expect(failure(e, 1)).toEqual({ kind: 'auth', error: e });
    expect(failure(e, 99)).toEqual({ kind: 'auth', error: e });
  });
});

/**
 * `sendEntry` alone (no engine, no outbox table): one entry against the REAL service on
 * 127.0.0.1, every answer the NAS can give. What the service never answers on its own (a 5xx,
 * an unknown status, a lost answer) comes from a fault-injecting transport in front of it.
 */
describe('send: one entry against the NAS, every answer', () => {
  let svc: TestService;
  let faults: FaultPlan = () => undefined;
  let client: ServiceClient;
  let other: ServiceClient;
  beforeAll(async () => {
    svc = await startTestService();
    client = new ServiceClient({
      baseUrl: svc.baseUrl,
      token: svc.token(),
      retries: 0,
      timeoutMs: 5000,
      transport: new FaultTransport(new HttpTransport(), (r, n) => faults(r, n)),
    });
    other = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token() });
  });
  afterAll(async () => {
    client.close();
    other.close();
    await svc.stop();
  });
  afterEach(() => {
    faults = () => undefined;
  });

  /** A model holding `objs` as the user last saw them (what the NAS has now). */
  const seen = (...objs: RemoteObject[]): LocalModel => {
    const m = new LocalModel(svc.admin.rootId());
    m.put({
      id: m.rootId,
      kind: 'dir',
      lparent: '',
      lname: '',
      ino: '1',
      filled: false,
      rparent: '',
      rname: '',
      etag: '"r"',
      mtime: '',
      setag: '"r"',
      state: 'ok',
    });
    for (const o of objs)
      m.put({
        id: o.id,
        kind: o.mimeType === FOLDER_MIME ? 'dir' : 'file',
        lparent: o.parentID,
        lname: o.name,
        ino: o.id,
        filled: false,
        rparent: o.parentID,
        rname: o.name,
        etag: o.eTag,
        mtime: o.mTime,
        setag: o.eTag,
        state: 'ok',
      });
    return m;
  };
  let seq = 0;
  const entry = (intent: Intent, state: OutboxEntry['state'] = 'pending'): OutboxEntry => ({
    seq: ++seq,
    at: new Date().toISOString(),
    intent,
    origin: 'local',
    state,
    attempts: 0,
    resultEtag: null,
    path: 'x',
    reason: 'test',
    note: null,
  });
  const rename = (o: RemoteObject, name: string): Intent => ({ op: 'patch', id: o.id, name, fromName: o.name, fromParent: o.parentID });
  const file = (name: string, parent = svc.admin.rootId()): RemoteObject => svc.admin.createFile(parent, name);

  it('204: applied, with the eTag the NAS gave', async () => {
    const f = file('a.txt');
    const out = await sendEntry(client, seen(f), entry(rename(f, 'b.txt')));
    expect(out).toMatchObject({ kind: 'applied', fresh: undefined });
    expect(out.kind === 'applied' && out.eTag).toBe(svc.admin.get(f.id)!.eTag);
    expect(svc.admin.get(f.id)!.name).toBe('b.txt');
  });

  it('412, the NAS moved it meanwhile (a field the rename does not touch): re-based, and the object as the NAS now holds it is returned', async () => {
    const f = file('c.txt');
    const dest = svc.admin.createFolder(svc.admin.rootId(), 'Dest');
    const m = seen(f);
    await other.patch(f.id, { parentID: dest.id });
    const out = await sendEntry(client, m, entry(rename(f, 'c2.txt')));
    expect(out.kind).toBe('applied');
    if (out.kind !== 'applied') return;
    expect(out.note).toContain('re-based');
    expect(out.fresh).toMatchObject({ id: f.id, name: 'c2.txt', parentID: dest.id, eTag: out.eTag });
    expect(svc.admin.get(f.id)).toMatchObject({ name: 'c2.txt', parentID: dest.id });
  });

  it('412, the NAS renamed it too: a conflict with what the NAS holds; nothing changed there', async () => {
    const f = file('d.txt');
    const m = seen(f);
    await other.patch(f.id, { name: 'theirs.txt' });
    const out = await sendEntry(client, m, entry(rename(f, 'mine.txt')));
    expect(out).toMatchObject({ kind: 'conflict', remote: { name: 'theirs.txt' } });
    expect(svc.admin.get(f.id)!.name).toBe('theirs.txt');
  });

  it('412 and the NAS already shows the change: applied without sending it again', async () => {
    const f = file('e.txt');
    const m = seen(f);
    await other.patch(f.id, { name: 'e2.txt' });
    const out = await sendEntry(client, m, entry(rename(f, 'e2.txt')));
    expect(out).toMatchObject({ kind: 'applied', note: 'the NAS already shows this change' });
  });

  it('404: deleted on the NAS, a conflict', async () => {
    const f = file('g.txt');
    const m = seen(f);
    await other.delete(f.id);
    expect(await sendEntry(client, m, entry(rename(f, 'g2.txt')))).toMatchObject({
      kind: 'conflict',
      remote: undefined,
      reason: 'deleted on the NAS (404)',
    });
  });

  it('404 on a move into a folder deleted on the NAS meanwhile: a conflict with the object as the NAS still has it, never read as deleted', async () => {
    const f = file('m.txt');
    const gone = svc.admin.createFolder(svc.admin.rootId(), 'Gone');
    const m = seen(f, gone);
    await other.delete(gone.id);
    const out = await sendEntry(client, m, entry({ op: 'patch', id: f.id, parentID: gone.id, fromName: f.name, fromParent: f.parentID }));
    expect(out.kind).toBe('conflict');
    if (out.kind !== 'conflict') return;
    expect(out.remote).toMatchObject({ id: f.id, parentID: f.parentID });
    expect(svc.admin.get(f.id)).toBeDefined();
  });

  it('409: the name is taken in the target folder, a conflict naming it', async () => {
    const f = file('h.txt');
    file('taken.txt');
    const out = await sendEntry(client, seen(f), entry(rename(f, 'taken.txt')));
    expect(out).toMatchObject({ kind: 'conflict', reason: expect.stringContaining('"taken.txt" (409)') });
  });

  it('400: a name the NAS refuses, a conflict with its reason', async () => {
    const f = file('i.txt');
    const out = await sendEntry(client, seen(f), entry(rename(f, 'a'.repeat(300))));
    expect(out).toMatchObject({ kind: 'conflict', reason: expect.stringContaining('the NAS refused it') });
  });

  it('5xx and a lost answer: retried later (a lost answer is checked on the NAS first); an unknown status: retried, then held', async () => {
    const f = file('j.txt');
    const m = seen(f);
    faults = () => ({ kind: 'status', status: 503 });
    expect(await sendEntry(client, m, entry(rename(f, 'j2.txt')))).toMatchObject({ kind: 'retry', unknown: false });
    faults = () => ({ kind: 'reset-after' });
    expect(await sendEntry(client, m, entry(rename(f, 'j2.txt')))).toMatchObject({ kind: 'retry', unknown: true });
    faults = () => undefined;
    // the lost answer had reached the NAS: the entry left 'sending' is found applied, not sent twice
    const before = svc.requests().length;
    expect(await sendEntry(client, m, entry(rename(f, 'j2.txt'), 'sending'))).toMatchObject({
      kind: 'applied',
      note: expect.stringContaining('already applied'),
    });
    expect(
      svc
        .requests()
        .slice(before)
        .filter((r) => r.method !== 'GET'),
    ).toEqual([]);
    faults = () => ({ kind: 'status', status: 418 });
    expect(await sendEntry(client, m, { ...entry(rename(f, 'j3.txt')), attempts: FATAL_ATTEMPTS - 1 })).toMatchObject({ kind: 'unsent' });
  });

  it('delete: 204 done; already gone is done; a file changed on the NAS is never deleted', async () => {
    const a = file('k.txt');
    expect(await sendEntry(client, seen(a), entry({ op: 'delete', id: a.id, fromName: a.name, fromParent: a.parentID }))).toMatchObject({
      kind: 'deleted',
    });
    expect(svc.admin.get(a.id)).toBeUndefined();
    expect(await sendEntry(client, seen(a), entry({ op: 'delete', id: a.id, fromName: a.name, fromParent: a.parentID }))).toMatchObject({
      kind: 'deleted',
      note: 'already gone (404)',
    });
    const b = file('l.txt');
    const m = seen(b);
    await other.patch(b.id, { hidden: 'mac' });
    expect(await sendEntry(client, m, entry({ op: 'delete', id: b.id, fromName: b.name, fromParent: b.parentID }))).toMatchObject({
      kind: 'conflict',
      reason: expect.stringContaining('412'),
    });
    expect(svc.admin.get(b.id)).toBeDefined();
  });

  it('delete of a folder into which the NAS moved a file the user has elsewhere: a conflict, nothing deleted', async () => {
    const d = svc.admin.createFolder(svc.admin.rootId(), 'Doomed');
    const inside = file('in.txt', d.id);
    const elsewhere = file('elsewhere.txt');
    const m = seen(d, inside, elsewhere);
    await other.patch(elsewhere.id, { parentID: d.id });
    // what the NAS wins on after a conflict: the base says it is in the folder, the disk does not
    m.update(elsewhere.id, { rparent: d.id, etag: svc.admin.get(elsewhere.id)!.eTag });
    expect(await sendEntry(client, m, entry({ op: 'delete', id: d.id, fromName: d.name, fromParent: d.parentID }))).toMatchObject({
      kind: 'conflict',
      reason: expect.stringContaining('"elsewhere.txt" is in it on the NAS but not here'),
    });
    expect(svc.admin.get(elsewhere.id)).toBeDefined();
  });

  it('delete of a folder holding something the user has not seen: a conflict, nothing deleted', async () => {
    const d = svc.admin.createFolder(svc.admin.rootId(), 'Folder');
    const known = file('known.txt', d.id);
    const m = seen(d, known);
    file('surprise.txt', d.id);
    expect(await sendEntry(client, m, entry({ op: 'delete', id: d.id, fromName: d.name, fromParent: d.parentID }))).toMatchObject({
      kind: 'conflict',
      reason: expect.stringContaining('"surprise.txt" is new'),
    });
    expect(svc.admin.get(d.id)).toBeDefined();
  });
});
