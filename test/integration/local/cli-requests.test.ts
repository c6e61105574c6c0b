import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { heldDelete, heldUpload } from '../../../app/contract/shapes.js';
import { arr } from '../../../app/util/schema.js';
import { startRig, waitFor, type Rig } from './harness.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const cli = async (...args: string[]): Promise<string> =>
  (await promisify(execFile)(process.execPath, [join(ROOT, 'bin/nas-mirror.js'), ...args], { cwd: ROOT })).stdout;

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('command line -> running engine', () => {
  it('`held` lists held deletes and `held reject all` (another process) brings the placeholders back', async () => {
    rig = await startRig(
      (svc, root) => {
        const f = svc.admin.createFolder(root, 'Many');
        for (let i = 0; i < 80; i++) svc.admin.createFile(f.id, `m${i}`);
        for (let i = 0; i < 20; i++) svc.admin.createFile(root, `k${i}`);
      },
      { threshold: { count: 50, percent: 10 } },
    );
    const r = rig;
    r.mark();
    for (const n of readdirSync(join(r.mirror, 'Many'))) rmSync(join(r.mirror, 'Many', n));
    await waitFor(() => r.engine.status().heldObjects === 80, 'held');
    const listed = await cli('held', '--state', r.state);
    expect(listed.trim().split('\n')).toHaveLength(80);
    // --json: the very shapes the window gets (checked with the contract's schema, which refuses unknown fields)
    const json = arr(heldDelete).parse(JSON.parse(await cli('held', '--state', r.state, '--json')));
    expect(json).toHaveLength(80);
    expect(json[0]).toMatchObject({ folder: false, objects: 1, reason: expect.stringMatching(/over the limit of/) });
    expect(JSON.parse(await cli('status', '--state', r.state, '--json'))).toMatchObject({
      heldDeletes: 80,
      state: 'needs-attention',
      engineRunning: process.pid,
    });
    expect(await cli('held', '--state', r.state, 'reject', 'all')).toContain('queued');
    await waitFor(() => readdirSync(join(r.mirror, 'Many')).length === 80 && r.engine.status().heldDeletes === 0, 'placeholders back');
    expect(r.count('DELETE')).toBe(0);
    expect(JSON.parse(await cli('log', '--state', r.state, '--json')).some((a: { kind: string }) => a.kind === 'rejected')).toBe(true);
    // nothing held any more: "all" says so, and queues nothing
    expect(await cli('held', '--state', r.state, 'approve', 'all')).toBe('no held deletes: nothing to approve\n');
    expect(await cli('conflicts', '--state', r.state, 'drop', 'all')).toMatch(/^no conflicts: nothing to drop\n$/);
  }, 60_000);

  it("`status` says how far the running engine's index is while it catches up, and nothing once it has", async () => {
    rig = await startRig(() => undefined);
    const r = rig;
    expect(await cli('status', '--state', r.state)).not.toMatch(/indexing/);
    // what the engine's process writes while its index catches up (api/compose.ts)
    r.engine.core.local.setMeta('indexing', '40');
    expect(await cli('status', '--state', r.state)).toMatch(/search: {14}catching up with the newest items \(indexing: 40 %\)/);
    expect(JSON.parse(await cli('status', '--state', r.state, '--json'))).toMatchObject({ indexingPercent: 40 });
    r.engine.core.local.setMeta('indexing', undefined);
    expect(await cli('status', '--state', r.state)).not.toMatch(/indexing/);
  }, 60_000);

  it('`uploads` lists new files held before uploading; `uploads approve all` (another process) uploads them; status says so', async () => {
    let docs = '';
    rig = await startRig(
      (svc, root) => {
        docs = svc.admin.createFolder(root, 'Docs').id;
      },
      { threshold: { count: 50, percent: 10 } },
    );
    const r = rig;
    mkdirSync(join(r.mirror, 'Docs', 'Scans'));
    for (let i = 0; i < 55; i++) writeFileSync(join(r.mirror, 'Docs', 'Scans', `p${i}.pdf`), `p${i}`);
    await waitFor(() => r.engine.status().uploads.held === 1, 'the folder held');
    expect(await cli('uploads', '--state', r.state)).toBe('1\tfolder (and what it holds)\tDocs/Scans\n');
    expect(arr(heldUpload).parse(JSON.parse(await cli('uploads', '--state', r.state, '--json')))).toMatchObject([
      { path: 'Docs/Scans', folder: true },
    ]);
    expect(await cli('status', '--state', r.state)).toMatch(/new to upload: {7}0 \(and 1 waiting for your word: nas-mirror uploads\)/);
    expect(await cli('uploads', '--state', r.state, 'approve', 'all')).toContain('queued');
    await waitFor(
      async () => {
        const d = (await r.nasChildren(docs)).get('Scans');
        return d !== undefined && (await r.nasChildren(d.id)).size === 55 && r.engine.status().uploads.waiting === 0;
      },
      'all on the NAS',
      60_000,
    );
    expect(await cli('uploads', '--state', r.state, 'reject', 'all')).toBe('no held uploads: nothing to reject\n');
  }, 90_000);
});
