import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openStateDb, type Db } from '../state/db.js';
import { arr } from '../../app/util/schema.js';
import { conflictEntry } from '../../app/contract/shapes.js';
import { conflictEntries } from './decision-views.js';
import { LOCAL_MIGRATIONS, LocalStore } from './local-store.js';

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
