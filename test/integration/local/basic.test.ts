import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const ids: Record<string, string> = {};

function seedBasic(svc: Parameters<Parameters<typeof startRig>[0]>[0], root: string): void {
  const docs = svc.admin.createFolder(root, 'Docs');
  const photos = svc.admin.createFolder(root, 'Photos');
  ids['Docs'] = docs.id;
  ids['Photos'] = photos.id;
  ids['a.txt'] = svc.admin.createFile(docs.id, 'a.txt', { size: 10, mTime: Date.parse('2020-01-02T03:04:05Z') }).id;
  ids['b.txt'] = svc.admin.createFile(docs.id, 'b.txt', { size: 10 }).id;
  ids['p.jpg'] = svc.admin.createFile(photos.id, 'p.jpg', { size: 10 }).id;
  for (let i = 0; i < 20; i++) svc.admin.createFile(root, `f${i}.txt`);
}

describe('local folder: basics', () => {
  it('places placeholders: folders, zero-byte files with the NAS mTime', async () => {
    rig = await startRig(seedBasic);
    const a = join(rig.mirror, 'Docs', 'a.txt');
    expect(existsSync(a)).toBe(true);
    expect(statSync(a).size).toBe(0);
    expect(statSync(a).mtime.toISOString()).toBe('2020-01-02T03:04:05.000Z');
    expect(readdirSync(join(rig.mirror, 'Photos'))).toEqual(['p.jpg']);
  });

  it('rename a file: one PATCH with If-Match, the NAS follows', async () => {
    rig = await startRig(seedBasic);
    const r = rig;
    r.mark();
    renameSync(join(r.mirror, 'Docs', 'a.txt'), join(r.mirror, 'Docs', 'renamed.txt'));
    await waitFor(async () => (await r.nasChildren(ids['Docs']!)).has('renamed.txt'), 'NAS shows renamed.txt');
    expect(r.count('POST', '/patch')).toBe(1);
    expect(r.count('DELETE')).toBe(0);
    expect(r.svc.admin.get(ids['a.txt']!)!.name).toBe('renamed.txt');
  });

  it('move across folders, and rename+move at once', async () => {
    rig = await startRig(seedBasic);
    const r = rig;
    r.mark();
    renameSync(join(r.mirror, 'Docs', 'a.txt'), join(r.mirror, 'Photos', 'a.txt'));
    renameSync(join(r.mirror, 'Docs', 'b.txt'), join(r.mirror, 'Photos', 'b2.txt'));
    await waitFor(
      () => r.svc.admin.get(ids['a.txt']!)!.parentID === ids['Photos'] && r.svc.admin.get(ids['b.txt']!)!.name === 'b2.txt',
      'both moved',
    );
    expect(r.svc.admin.get(ids['b.txt']!)!.parentID).toBe(ids['Photos']);
    expect(r.count('POST', '/patch')).toBe(2);
    expect(r.count('DELETE')).toBe(0);
  });

  it('delete a file and a folder', async () => {
    rig = await startRig(seedBasic);
    const r = rig;
    r.mark();
    rmSync(join(r.mirror, 'f1.txt'));
    rmSync(join(r.mirror, 'Photos'), { recursive: true });
    // the file and the folder may leave in different batches: wait for both DELETEs, then check there are exactly two
    await waitFor(
      () => r.svc.admin.get(ids['p.jpg']!) === undefined && r.svc.admin.get(ids['Photos']!) === undefined && r.count('DELETE') >= 2,
      'deleted on the NAS',
    );
    await r.engine.drainOutbox();
    expect(r.count('DELETE')).toBe(2);
  });

  it('editor-style atomic save onto a placeholder: no remote delete, listed local only', async () => {
    rig = await startRig(seedBasic);
    const r = rig;
    r.mark();
    writeFileSync(join(r.mirror, 'Docs', '.a.txt.tmp'), 'new content');
    renameSync(join(r.mirror, 'Docs', '.a.txt.tmp'), join(r.mirror, 'Docs', 'a.txt'));
    await waitFor(() => r.engine.status().filledPlaceholders === 1, 'filled placeholder listed');
    await r.engine.drainOutbox();
    expect(r.count('DELETE')).toBe(0);
    expect(r.count('POST')).toBe(0);
    expect(r.svc.admin.get(ids['a.txt']!)).toBeDefined();
  });

  it('with uploads off, a local create stays local only: no remote change', async () => {
    rig = await startRig(seedBasic, { uploads: false });
    const r = rig;
    r.mark();
    mkdirSync(join(r.mirror, 'New folder'));
    writeFileSync(join(r.mirror, 'Docs', 'mine.txt'), 'x');
    await waitFor(() => r.engine.actions.localOnly().length === 2, 'two local-only entries');
    expect(r.count('POST') + r.count('DELETE')).toBe(0);
  });

  it('the watcher hits the inotify limit: status says so, polling still replays renames', async () => {
    rig = await startRig(seedBasic, { watcher: { pollIntervalMs: 100 } });
    const r = rig;
    expect(r.engine.status().watcher.selfTest?.ok).toBe(true);
    r.engine.simulateWatcherError(Object.assign(new Error('watch ENOSPC'), { code: 'ENOSPC' }));
    await waitFor(() => r.engine.status().watcher.polling, 'polling');
    expect(r.engine.status().watcher.notice).toContain('max_user_watches');
    renameSync(join(r.mirror, 'Docs', 'b.txt'), join(r.mirror, 'Docs', 'b-polled.txt'));
    await waitFor(() => r.svc.admin.get(ids['b.txt']!)!.name === 'b-polled.txt', 'rename seen by polling');
  });
});
