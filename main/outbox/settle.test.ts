/**
 * `settleEntry` alone: what each answer of the NAS does to the model, the mirror store, the
 * outbox and the lists, on a real state database (no engine, no network). Every outcome is
 * one transaction: a crash right after leaves either all of it or none (checked by reading
 * a second connection to the same database).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Intent } from '../../app/model/intent.js';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import { AppError } from '../../app/errors.js';
import { ChangeApplier } from '../mirror/apply.js';
import { MirrorStore } from '../mirror/store.js';
import { LocalStore } from '../local/local-store.js';
import { LocalModel } from '../local/model.js';
import { openStateDb, type Db } from '../state/db.js';
import { OutboxStore } from './outbox-store.js';
import { settleEntry, type SettlePort } from './settle.js';

const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(() => {
  for (const d of dbs.splice(0)) d.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const obj = (id: string, name: string, parentID: string, eTag: string, folder = false): RemoteObject => ({
  id,
  name,
  parentID,
  eTag,
  mimeType: folder ? FOLDER_MIME : 'text/plain',
  hidden: 'none',
  mTime: '2020-01-01T00:00:00.000Z',
  cTime: '2020-01-01T00:00:00.000Z',
  ...(folder ? {} : { size: 0 }),
});

/** A state db with R/{Docs/{a.txt}, Other/}, mirrored and placed. */
function world(): SettlePort & { stateDir: string; activities: string[] } {
  const stateDir = mkdtempSync(join(tmpdir(), 'settle-'));
  dirs.push(stateDir);
  const db = openStateDb(stateDir);
  dbs.push(db);
  const store = new MirrorStore(db);
  const applier = new ChangeApplier(store);
  const objects = [
    obj('R', 'R', '', '"r"', true),
    obj('D', 'Docs', 'R', '"d"', true),
    obj('A', 'a.txt', 'D', '"a"'),
    obj('O', 'Other', 'R', '"o"', true),
  ];
  // the root is kept apart, as a walk keeps it
  store.setRoot(objects[0]!);
  applier.apply(objects.slice(1).map((after) => ({ kind: 'added', after })));
  const model = new LocalModel('R');
  for (const o of objects)
    model.put({
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
  const local = new LocalStore(db);
  local.flush(model);
  const activities: string[] = [];
  return {
    stateDir,
    model,
    store,
    applier,
    local,
    outbox: new OutboxStore(db),
    db,
    activity: (a) => {
      activities.push(`${a.kind}: ${a.summary}`);
    },
    activities,
  };
}

const queue = (w: SettlePort, ...intents: Intent[]): number[] =>
  w.outbox.enqueue(intents.map((intent) => ({ intent, origin: 'local', path: 'Docs/a.txt', reason: 'test' })));
const renameA: Intent = { op: 'patch', id: 'A', name: 'b.txt', fromName: 'a.txt', fromParent: 'D' };

describe('settle: what the NAS answered, recorded in one transaction', () => {
  it('applied: the new name and eTag become the base, the store follows, the entry is done', () => {
    const w = world();
    const [seq] = queue(w, renameA);
    expect(settleEntry(w, w.outbox.get(seq!)!, { kind: 'applied', eTag: '"a2"', fresh: undefined, note: 'If-Match "a"' })).toBe(true);
    expect(w.model.get('A')).toMatchObject({ rname: 'b.txt', rparent: 'D', etag: '"a2"', setag: '"a2"' });
    expect(w.store.get('A')).toMatchObject({ name: 'b.txt', parentID: 'D', eTag: '"a2"' });
    expect(w.outbox.get(seq!)!.state).toBe('done');
  });

  it('applied after a re-base over a NAS move: the base holds the NAS parent, never the old one with the new eTag', () => {
    const w = world();
    const [seq] = queue(w, renameA);
    settleEntry(w, w.outbox.get(seq!)!, { kind: 'applied', eTag: '"a3"', fresh: obj('A', 'b.txt', 'O', '"a3"'), note: 're-based' });
    expect(w.model.get('A')).toMatchObject({ rname: 'b.txt', rparent: 'O', etag: '"a3"' });
    expect(w.store.get('A')).toMatchObject({ parentID: 'O', eTag: '"a3"' });
    // what a second connection reads (what survives a crash now) is all of it
    const again = new LocalStore(openStateDb(w.stateDir));
    dbs.push(again.db);
    expect(again.loadModel('R').get('A')).toMatchObject({ rparent: 'O', etag: '"a3"' });
  });

  it('deleted: the object and what it holds leave the model and the store, a held row goes', () => {
    const w = world();
    const [seq] = queue(w, { op: 'delete', id: 'D', fromName: 'Docs', fromParent: 'R' });
    w.local.addHeld({ id: 'D', path: 'Docs', folder: true, objects: 2, reason: 'held' });
    settleEntry(w, w.outbox.get(seq!)!, { kind: 'deleted', note: '204' });
    expect(w.model.get('D')).toBeUndefined();
    expect(w.model.get('A')).toBeUndefined();
    expect(w.store.get('A')).toBeUndefined();
    expect(w.local.held()).toEqual([]);
  });

  it('conflict: the NAS version becomes the base, the intent is listed, later entries for it are superseded and listed, a deleted placeholder comes back', () => {
    const w = world();
    const [first, later] = queue(w, renameA, { op: 'delete', id: 'A', fromName: 'b.txt', fromParent: 'D' });
    w.model.update('A', { state: 'deleting' });
    settleEntry(w, w.outbox.get(first!)!, {
      kind: 'conflict',
      remote: obj('A', 'theirs.txt', 'D', '"a9"'),
      reason: 'changed on the NAS meanwhile (412): now named "theirs.txt"',
    });
    expect(w.model.get('A')).toMatchObject({ rname: 'theirs.txt', etag: '"a9"', state: 'ok', ino: null });
    expect(w.store.get('A')).toMatchObject({ name: 'theirs.txt' });
    expect(w.outbox.get(first!)!.state).toBe('conflict');
    expect(w.outbox.get(later!)!.state).toBe('superseded');
    expect(w.local.conflicts().map((c) => c.op.op)).toEqual(['patch', 'delete']);
    expect(w.activities.some((a) => a.startsWith('conflict:'))).toBe(true);
  });

  it('conflict "deleted on the NAS" on a folder the user moved something into: the store forgets what the NAS held there, not what the user moved in (defect E)', () => {
    const w = world();
    // the user moved Other into Docs locally (its PATCH is still queued), then renamed Docs; the NAS deleted Docs (with a.txt)
    w.model.update('O', { lparent: 'D' });
    const [seq] = queue(w, { op: 'patch', id: 'D', name: 'Docs2', fromName: 'Docs', fromParent: 'R' });
    settleEntry(w, w.outbox.get(seq!)!, { kind: 'conflict', remote: undefined, reason: 'deleted on the NAS (404)' });
    expect(w.store.get('D')).toBeUndefined();
    expect(w.store.get('A')).toBeUndefined();
    expect(w.store.get('O')).toMatchObject({ parentID: 'R', name: 'Other' });
  });

  it('conflict "deleted on the NAS" when a walk already took it out of the store: the entry is planned again, so the disk follows (soak seed 2007 round 21)', () => {
    const w = world();
    const [seq] = queue(w, renameA);
    w.applier.apply([{ kind: 'removed', before: w.store.get('A')! }]);
    w.model.takeTouched();
    settleEntry(w, w.outbox.get(seq!)!, { kind: 'conflict', remote: undefined, reason: 'deleted on the NAS (404)' });
    expect(w.model.takeTouched().has('A')).toBe(true);
  });

  it('unsent: listed like a conflict, but the base stays as it was (what the NAS holds is not known)', () => {
    const w = world();
    const [seq] = queue(w, renameA);
    settleEntry(w, w.outbox.get(seq!)!, {
      kind: 'unsent',
      error: new AppError('BadResponse', 'teapot', { retry: 'fatal' }),
      reason: "couldn't send it: teapot",
    });
    expect(w.model.get('A')).toMatchObject({ rname: 'a.txt', etag: '"a"' });
    expect(w.local.conflicts()).toHaveLength(1);
  });

  it('retry and auth: not finished, the entry waits (pending), nothing else changes', () => {
    const w = world();
    const [seq] = queue(w, renameA);
    expect(settleEntry(w, w.outbox.get(seq!)!, { kind: 'retry', error: new AppError('Unavailable', 'down'), unknown: false })).toBe(false);
    expect(w.outbox.get(seq!)!.state).toBe('pending');
    expect(settleEntry(w, w.outbox.get(seq!)!, { kind: 'auth', error: new AppError('Unauthorized', 'no') })).toBe(false);
    expect(w.model.get('A')).toMatchObject({ rname: 'a.txt' });
  });
});
