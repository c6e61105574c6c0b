import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateDb, type Db } from '../state/db.js';
import { OutboxStore } from './outbox-store.js';

let dir = '';
let db: Db | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('OutboxStore', () => {
  it('keeps each entry as the one intent union (no nulls), and refuses a damaged row', () => {
    dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    db = openStateDb(dir);
    const outbox = new OutboxStore(db);
    const [a, b] = outbox.enqueue([
      {
        intent: { op: 'patch', id: 'x', parentID: 'q', fromName: 'x.txt', fromParent: 'p' },
        origin: 'local',
        path: '/x.txt',
        reason: 'moved',
      },
      { intent: { op: 'delete', id: 'y', fromName: 'y.txt', fromParent: 'p' }, origin: 'approve', path: '/y.txt', reason: 'approved' },
    ]);
    expect(outbox.get(a!)?.intent).toEqual({ op: 'patch', id: 'x', parentID: 'q', fromName: 'x.txt', fromParent: 'p' });
    expect(outbox.unsettled().map((e) => e.intent.op)).toEqual(['patch', 'delete']);
    db.prepare('UPDATE outbox_entries SET op = ? WHERE seq = ?').run('upload', b);
    expect(() => outbox.get(b!)).toThrow(expect.objectContaining({ code: 'StateCorrupt' }));
  });

  it("finds the run an entry was enqueued with (an Organize undo's changes): its seqs, how many, how many done", () => {
    dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    db = openStateDb(dir);
    const outbox = new OutboxStore(db);
    const patch = (id: string, origin: 'local' | 'organize-undo', reason: string) => ({
      intent: { op: 'patch' as const, id, name: `${id}.txt`, fromName: 'a.txt', fromParent: 'p' },
      origin,
      path: `/${id}`,
      reason,
    });
    const [before] = outbox.enqueue([patch('l1', 'local', 'renamed')]);
    const run = outbox.enqueue(['a', 'b', 'c'].map((id) => patch(id, 'organize-undo', 'undo of organize batch 1')));
    const [other] = outbox.enqueue([patch('d', 'organize-undo', 'undo of organize batch 2')]);
    expect(outbox.hasUnsettled('organize-undo', 'undo of organize batch 1')).toBe(true);
    outbox.settle(run[0]!, 'done', 'ok');
    outbox.settle(run[1]!, 'conflict', '412');
    outbox.settle(run[2]!, 'done', 'ok');
    expect(outbox.hasUnsettled('organize-undo', 'undo of organize batch 1')).toBe(false);
    expect(outbox.hasUnsettled('organize-undo', 'undo of organize batch 2')).toBe(true);
    expect(outbox.runOf(run[1]!)).toEqual({ first: run[0], last: run[2], count: 3, done: 2 });
    expect(outbox.runOf(other!)).toEqual({ first: other, last: other, count: 1, done: 0 });
    expect(outbox.runOf(before!)).toEqual({ first: before, last: before, count: 1, done: 0 });
    expect(outbox.runOf(999)).toBeUndefined();
  });
});
