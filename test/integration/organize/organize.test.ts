/**
 * Organize against the REAL service: a 500-photo batch previewed (collisions, invalid names,
 * missing target folders flagged), applied through the outbox while 20 of its objects are
 * renamed on the NAS by someone else (those become conflicts, the rest is applied exactly
 * once), shown as ONE activity entry, then undone with one Undo; the disk follows the NAS.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../main/client/service-client.js';
import { applyOrganize } from '../../../main/api/organize-handlers.js';
import { buildPlan } from '../../../main/organize/plan.js';
import { waitFor } from '../local/harness.js';
import { startOrganizeRig, type OrganizeRig } from './rig.js';

const N = 500;
const name = (i: number): string => `IMG_${String(i).padStart(4, '0')}.JPG`;
const day = (i: number): string => `2019:${String(1 + (i % 12)).padStart(2, '0')}:${String(1 + (i % 28)).padStart(2, '0')} 10:00:00`;

describe('organize: 500 objects previewed, applied, partly conflicted, undone', () => {
  let r: OrganizeRig;
  const ids: string[] = [];
  beforeAll(async () => {
    r = await startOrganizeRig((svc, root) => {
      const shoot = svc.admin.createFolder(root, 'Shoot').id;
      for (let i = 1; i <= N; i++)
        ids.push(
          svc.admin.createFile(shoot, name(i), {
            mimeType: 'image/jpeg',
            size: 1000 + i,
            image: { cameraMake: 'Canon', cameraModel: 'EOS R', date: day(i) },
          }).id,
        );
      // one target name is taken already
      svc.admin.createFile(shoot, `2019-01-02 Canon EOS R 001.jpg`, { mimeType: 'image/jpeg', size: 5 });
      const photos = svc.admin.createFolder(root, 'Photos').id;
      const y = svc.admin.createFolder(photos, '2019').id;
      for (let m = 1; m <= 6; m++) svc.admin.createFolder(y, String(m).padStart(2, '0'));
    });
  }, 120_000);
  afterAll(async () => {
    await r?.close();
  });

  it('previews every change and flags collisions, invalid names and missing folders', () => {
    const q = 'IMG ext:jpg in:Shoot';
    const rename = buildPlan(r.index, { q, rename: '{date:YYYY-MM-DD} {camera} {counter:3}.{ext:lower}' });
    expect(rename.items).toHaveLength(N);
    expect(rename.items[0]).toMatchObject({
      from: `Shoot/${name(1)}`,
      to: 'Shoot/2019-02-02 Canon EOS R 001.jpg',
      status: 'ok',
      parentId: null,
    });
    const clash = buildPlan(r.index, { q: 'IMG_0012 in:Shoot', rename: '2019-01-02 Canon EOS R 001.jpg' });
    expect(clash.items[0]).toMatchObject({ status: 'collision' });
    const dup = buildPlan(r.index, { q: 'IMG_000 in:Shoot', rename: 'same.jpg' });
    expect(dup.counts).toMatchObject({ ok: 1, collision: 8 });
    expect(buildPlan(r.index, { q: 'IMG_0001', rename: '..' }).items[0]).toMatchObject({ status: 'invalid' });
    const move = buildPlan(r.index, { q, move: 'Photos/{date:YYYY}/{date:MM}' });
    expect(move.counts.ok + move.counts.missingFolder).toBe(N);
    expect(move.missingFolders).toEqual([
      '/Photos/2019/07',
      '/Photos/2019/08',
      '/Photos/2019/09',
      '/Photos/2019/10',
      '/Photos/2019/11',
      '/Photos/2019/12',
    ]);
    expect(() => buildPlan(r.index, { q, rename: '{nope}' })).toThrow(/not a token/);
    // files only unless the query asks for folders
    expect(buildPlan(r.index, { q: 'Shoot', rename: 'x' }).items).toHaveLength(0);
    expect(buildPlan(r.index, { q: 'Shoot kind:folder', rename: 'Shoot 2019' }).items).toMatchObject([
      { folder: true, to: 'Shoot 2019', status: 'ok' },
    ]);
  });

  it('applies through the outbox: one activity entry, conflicts for what changed on the NAS, then one Undo', async () => {
    const q = 'IMG ext:jpg in:Shoot';
    const args = { q, rename: '{date:YYYY-MM-DD} {name}.{ext:lower}' };
    const plan = buildPlan(r.index, args);
    expect(plan.counts.ok).toBe(N);
    await r.engine.setPaused(true);
    const out = await applyOrganize(r.engine, r.index, args);
    expect(out).toMatchObject({ queued: N, skipped: [] });
    expect(r.engine.status().outbox.pending).toBe(N);
    // someone else renames 20 of them on the NAS before the batch is sent
    const other = new ServiceClient({ baseUrl: r.svc.baseUrl, token: r.svc.token() });
    for (let i = 0; i < 20; i++) await other.patch(ids[i * 25]!, { name: `theirs ${i}.jpg` });
    const mark = r.svc.requests().length;
    await r.engine.setPaused(false);
    await waitFor(() => r.engine.status().outbox.pending === 0, 'batch sent', 120_000);
    await r.engine.drainOutbox();
    expect(r.engine.status().conflicts).toBe(20);
    let applied = 0;
    for (let i = 1; i <= N; i++) {
      const o = r.svc.admin.get(ids[i - 1]!)!;
      if ((i - 1) % 25 === 0 && i - 1 < 500) expect(o.name).toMatch(/^theirs /);
      else {
        expect(o.name).toBe(`${day(i).slice(0, 10).replace(/:/g, '-')} IMG_${String(i).padStart(4, '0')}.jpg`);
        applied++;
      }
    }
    expect(applied).toBe(N - 20);
    // exactly once: one POST per change (the 20 conflicts: one POST answered 412 each)
    expect(
      r.svc
        .requests()
        .slice(mark)
        .filter((x) => x.method === 'POST').length,
    ).toBe(N);
    // ONE activity entry for the batch, undoable
    const acts = r.engine.actions.activity(2000);
    const batch = acts.filter((a) => a.kind === 'organized');
    expect(batch).toHaveLength(1);
    expect(acts.filter((a) => a.kind === 'sent')).toHaveLength(0);
    expect(batch[0]!.undoable).toBe(true);
    // the disk follows the NAS
    await waitFor(() => existsSync(join(r.mirror, 'Shoot', '2019-03-03 IMG_0002.jpg')), 'placeholder renamed on disk', 30_000);
    // one Undo
    await r.engine.actions.undo(batch[0]!.id);
    await waitFor(() => r.engine.status().outbox.pending === 0, 'undo sent', 120_000);
    for (let i = 1; i <= N; i++) {
      const o = r.svc.admin.get(ids[i - 1]!)!;
      expect(o.name).toEqual((i - 1) % 25 === 0 ? expect.stringMatching(/^theirs /) : name(i));
    }
    const after = r.engine.actions.activity(2000);
    expect(after.filter((a) => a.kind === 'organized')[0]!.undoable).toBe(false);
    expect(after.filter((a) => a.kind === 'undo')).toHaveLength(1);
    // the batch is marked undone; its undo's changes have ONE "sent" entry, once the last is settled
    expect(after.filter((a) => a.kind === 'organized')[0]!.undone).toBe(true);
    expect(after.filter((a) => a.kind === 'sent').map((a) => a.summary)).toEqual([
      expect.stringMatching(new RegExp(`^NAS undo #\\d+\\.\\.#\\d+: ${applied} of ${applied} applied \\(organize-undo\\)$`)),
    ]);
    await expect(r.engine.actions.undo(batch[0]!.id)).rejects.toThrow(/already undone/);
    await waitFor(() => existsSync(join(r.mirror, 'Shoot', name(2))), 'placeholder back on disk', 30_000);
  }, 240_000);
});
