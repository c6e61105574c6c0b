import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openStateDb, type Db } from '../state/db.js';
import { arr } from '../../app/util/schema.js';
import { conflictEntry } from '../../app/contract/shapes.js';
import { conflictEntries } from './decision-views.js';
import { LOCAL_MIGRATIONS, LocalStore } from './local-store.js';
import type { ContentConflict } from '../../app/model/intent.js';
import { contentConflictRow } from './conflict-rows.js';

let dir = '';
let db: Db | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const open = (): Db => {
  dir = mkdtempSync(join(tmpdir(), 'conflicts-'));
  return (db = openStateDb(dir));
};

describe('conflict rows', () => {
  it('rows written by version 2 load after migration v3 as the one intent union', () => {
    const d = open();
    migrate(
      d,
      'local',
      LOCAL_MIGRATIONS.filter((m) => m.version <= 2),
    );
    d.prepare("INSERT INTO local_entries VALUES ('f1', 'file', 'p', 'a.txt', NULL, 0, 'p', 'a.txt', '\"Ag\"', '', '\"Ag\"', 'ok')").run();
    const ins = d.prepare(
      "INSERT INTO local_conflicts (at, kind, object_id, path, intent, remote, reason, op) VALUES ('2026-01-01T00:00:00Z', ?, ?, ?, 'words', 'nas', 'why', ?)",
    );
    ins.run('patch', 'f1', '/a.txt', JSON.stringify({ op: 'patch', name: 'b.txt', parentId: null }));
    ins.run('delete', 'f2', '/gone', JSON.stringify({ op: 'delete', name: null, parentId: null }));
    ins.run('unsendable', 'f3', '/local/x', JSON.stringify({ unsendable: true }));
    ins.run('patch', 'f1', '/a.txt', JSON.stringify({ op: 'patch', name: null, parentId: 'dir9' }));
    const rows = new LocalStore(d).conflicts();
    expect(rows.map((r) => r.op)).toEqual([
      { op: 'patch', id: 'f1', name: 'b.txt', fromName: 'a.txt', fromParent: 'p' },
      { op: 'delete', id: 'f2', fromName: '', fromParent: '' },
      { op: 'unsendable', id: 'f3', to: '/local/x' },
      { op: 'patch', id: 'f1', parentID: 'dir9', fromName: 'a.txt', fromParent: 'p' },
    ]);
    expect(rows.map((r) => r.kind)).toEqual(['patch', 'delete', 'unsendable', 'patch']);
  });

  it('writes the intent and reads it back checked; a damaged row is StateCorrupt', () => {
    const local = new LocalStore(open());
    const seq = local.addConflict({
      objectId: 'o',
      path: '/x',
      intent: 'rename to "y"',
      remote: 'r',
      reason: 'why',
      op: { op: 'patch', id: 'o', name: 'y', fromName: 'x', fromParent: 'p' },
    });
    expect(local.conflicts()[0]).toMatchObject({ seq, kind: 'patch', op: { op: 'patch', id: 'o', name: 'y' } });
    db!.prepare('UPDATE local_conflicts SET op = ? WHERE seq = ?').run(JSON.stringify({ op: 'patch', id: 'o', name: 7 }), seq);
    expect(() => local.conflicts()).toThrow(expect.objectContaining({ code: 'StateCorrupt' }));
  });
});

describe("the conflicts list in the contract's shape (window and `conflicts --json`)", () => {
  it('is exactly a ConflictEntry list', () => {
    const local = new LocalStore(open());
    local.addConflict({
      objectId: 'o',
      path: '/x',
      intent: 'rename to "y"',
      remote: '"z" (eTag "B")',
      reason: 'changed on the NAS',
      op: { op: 'patch', id: 'o', name: 'y', fromName: 'x', fromParent: 'p' },
    });
    const list = conflictEntries(local);
    expect(arr(conflictEntry).parse(JSON.parse(JSON.stringify(list)))).toEqual(list);
    expect(list[0]).toMatchObject({ id: '1', kind: 'patch', intent: 'rename to "y"' });
  });
});

describe('a file changed on both sides (content conflict)', () => {
  const rec: ContentConflict = {
    op: 'content',
    id: 'f1',
    copyParent: 'd1',
    copyName: 'plan (conflicted copy 2026-11-27 0100).txt',
    copyIno: '1234',
    mine: { size: 12, mtime: '2026-11-27T00:59:00.5Z' },
    nas: { eTag: '"B"', size: 23, mtime: '2026-11-27T00:58:00Z' },
  };
  it('is kept whole, listed with both versions, and its NAS version and note can be rewritten (kind checked)', () => {
    const local = new LocalStore(open());
    const seq = local.addConflict(contentConflictRow('Docs/plan.txt', rec));
    expect(local.conflict(seq)).toMatchObject({ seq, kind: 'content', objectId: 'f1', path: 'Docs/plan.txt', op: rec });
    const [entry] = conflictEntries(local);
    expect(arr(conflictEntry).parse(JSON.parse(JSON.stringify([entry])))).toEqual([entry]);
    expect(entry).toMatchObject({
      kind: 'content',
      versions: { yours: { name: rec.copyName, size: 12, modified: rec.mine.mtime }, nas: { size: 23, modified: rec.nas.mtime } },
    });
    expect(entry!.note).toBeUndefined();
    expect(`${entry!.intent} ${entry!.remote} ${entry!.reason}`).not.toMatch(/eTag|If-Match|412|"B"/);
    local.updateConflict(seq, { ...rec, nas: { eTag: '"C"', size: 30, mtime: '2026-11-27T01:02:00Z' }, note: 'changed again' }, 'x');
    expect(conflictEntries(local)[0]).toMatchObject({ versions: { nas: { size: 30 } }, note: 'changed again', remote: 'x' });
    // a row of another kind is never rewritten as this one
    local.updateConflict(seq, { op: 'delete', id: 'f1', fromName: 'a', fromParent: 'p' }, 'y');
    expect(local.conflict(seq)!.kind).toBe('content');
    expect(local.conflict(seq + 1)).toBeUndefined();
  });
});

describe('activity rows', () => {
  it('a kind an earlier version wrote and this one no longer has is read back as "other"', () => {
    const local = new LocalStore(open());
    local.addActivity({ kind: 'renamed', path: '/a', summary: 's', reason: 'r' });
    db!
      .prepare("INSERT INTO local_activity (at, kind, path, summary, reason) VALUES ('2020-01-01T00:00:00Z', 'applied', '/b', 's', 'r')")
      .run();
    expect(local.activity(10).map((a) => a.kind)).toEqual(['other', 'renamed']);
  });
});
