/**
 * `runLocalBatch` alone: a real mirror folder and a real state database, no engine, no
 * network. What a batch of disk changes becomes: outbox entries, held rows, the model, in one
 * transaction. Inode reuse is made deterministic by recording, as the placeholder's inode,
 * the number the disk gave the user's new file (what ext4 does when it reuses a freed one).
 */
import { lstatSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../log/logger.js';
import { LocalModel, type LocalEntry } from '../local/model.js';
import { openCore, type Core } from './core.js';
import { runLocalBatch } from './local-batch.js';

const dirs: string[] = [];
const cores: Core[] = [];
afterEach(() => {
  for (const c of cores.splice(0)) c.db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const NAS_TIME = '2020-01-01T00:00:00.000Z';
const HOLD_MS = 1000;

/** A mirror R/{F/{a.txt, b.txt}, G/} of placeholders (empty, the NAS time), mirrored in the model. */
function world(): Core {
  const base = mkdtempSync(join(tmpdir(), 'local-batch-'));
  dirs.push(base);
  const root = join(base, 'mirror');
  for (const d of ['', 'F', 'G']) mkdirSync(join(root, d), { recursive: true });
  const t = new Date(NAS_TIME);
  for (const f of ['F/a.txt', 'F/b.txt']) {
    writeFileSync(join(root, f), '');
    utimesSync(join(root, f), t, t);
  }
  const core = openCore(
    { stateDir: join(base, 'state'), mirrorDir: root, log: silentLogger, holdMs: HOLD_MS, threshold: { count: 50, percent: 100 } },
    () => undefined,
  );
  cores.push(core);
  core.model = new LocalModel('R');
  const ino = (rel: string): string => lstatSync(join(root, rel), { bigint: true }).ino.toString();
  const put = (id: string, kind: LocalEntry['kind'], parent: string, name: string, rel: string): void =>
    core.model.put({
      id,
      kind,
      lparent: parent,
      lname: name,
      ino: ino(rel),
      filled: false,
      rparent: parent,
      rname: name,
      etag: `"${id}"`,
      mtime: NAS_TIME,
      setag: `"${id}"`,
      state: 'ok',
    });
  put('R', 'dir', '', '', '');
  put('F', 'dir', 'R', 'F', 'F');
  put('G', 'dir', 'R', 'G', 'G');
  put('a', 'file', 'F', 'a.txt', 'F/a.txt');
  put('b', 'file', 'F', 'b.txt', 'F/b.txt');
  core.local.flush(core.model);
  return core;
}

describe('runLocalBatch (real folder, real state db)', () => {
  it('a folder deleted while a file it held took an inode reused elsewhere: the file is "renamed or deleted?", the folder waits for it, nothing is queued', () => {
    const core = world();
    // the user writes a new file in G and deletes F; the disk handed the new file a.txt's number
    // (recorded as a.txt's here; the file is written first, so the disk cannot give it b.txt's)
    writeFileSync(join(core.root, 'G', 'notes.txt'), 'my own text');
    rmSync(join(core.root, 'F'), { recursive: true });
    core.model.update('a', { ino: lstatSync(join(core.root, 'G', 'notes.txt'), { bigint: true }).ino.toString() });
    const t0 = Date.now();
    const first = runLocalBatch(core, ['', 'G'], [], t0);
    expect(first.enqueued).toBe(0);
    expect(core.local.held().map((h) => [h.id, h.candidates])).toEqual([['a', ['G/notes.txt']]]);
    // F's disappearance is carried through its hold, then becomes a delete: held, not sent
    const second = runLocalBatch(core, [''], first.carry, t0 + HOLD_MS + 1);
    expect(second.enqueued).toBe(0);
    expect(core.outbox.unsettled()).toEqual([]);
    const f = core.local.held().find((h) => h.id === 'F');
    expect(f?.reason).toMatch(/^it held F\/a\.txt, which waits for your choice/);
    expect(core.model.get('F')!.state).toBe('held');
  });

  it('the same folder delete with nothing undecided inside is queued at once, one entry for the folder', () => {
    const core = world();
    rmSync(join(core.root, 'F'), { recursive: true });
    const t0 = Date.now();
    const first = runLocalBatch(core, [''], [], t0);
    const second = runLocalBatch(core, [''], first.carry, t0 + HOLD_MS + 1);
    expect(second.enqueued).toBe(1);
    expect(core.outbox.unsettled().map((e) => [e.intent.op, e.intent.id])).toEqual([['delete', 'F']]);
    expect(core.local.held()).toEqual([]);
  });
});
