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
});
