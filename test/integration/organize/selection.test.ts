/**
 * Organize a hand-picked selection against the REAL service: 3 objects picked by id (two
 * photos in different folders and a folder), with an id the mirror does not hold; the
 * arguments go through the contract's check as the window's would; preview (the picks in the
 * given order, the unknown id a problem), apply through the outbox as ONE activity entry,
 * the NAS has the new names, one Undo restores them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizeArgs } from '../../../app/contract/organize-shapes.js';
import { applyOrganize, organizeHandlers } from '../../../main/api/organize-handlers.js';
import { waitFor } from '../local/harness.js';
import { startOrganizeRig, type OrganizeRig } from './rig.js';

describe('organize: 3 objects picked by id, previewed, applied, undone', () => {
  let r: OrganizeRig;
  const id = { a: '', b: '', c: '', f: '' };
  beforeAll(async () => {
    r = await startOrganizeRig((svc, root) => {
      const trip = svc.admin.createFolder(root, 'Trip').id;
      const other = svc.admin.createFolder(root, 'Other').id;
      id.a = svc.admin.createFile(trip, 'IMG_0001.JPG', { mimeType: 'image/jpeg', size: 10 }).id;
      id.b = svc.admin.createFile(other, 'IMG_0002.JPG', { mimeType: 'image/jpeg', size: 20 }).id;
      id.c = svc.admin.createFile(trip, 'IMG_0003.JPG', { mimeType: 'image/jpeg', size: 30 }).id; // not picked
      id.f = svc.admin.createFolder(root, 'Scans').id;
      svc.admin.createFile(id.f, 'page.pdf', { mimeType: 'application/pdf', size: 5 });
    });
  }, 120_000);
  afterAll(async () => {
    await r?.close();
  });

  it('previews the picks in order, the unknown id reported, not thrown', async () => {
    const h = organizeHandlers(
      () => r.index,
      () => r.engine,
    );
    const args = organizeArgs.parse({ ids: [id.b, 'no-such-id', id.a, id.f], rename: 'picked {counter}.{ext:lower}' }, 'args');
    const plan = await h.organizePreview(args);
    expect(plan.items.map((i) => [i.from, i.to, i.status])).toEqual([
      ['Other/IMG_0002.JPG', 'Other/picked 1.jpg', 'ok'],
      ['', '', 'invalid'],
      ['Trip/IMG_0001.JPG', 'Trip/picked 2.jpg', 'ok'],
      ['Scans', 'picked 3', 'ok'],
    ]);
    expect(plan.items[1]).toMatchObject({ id: 'no-such-id', problem: expect.stringMatching(/no object with id no-such-id/) });
    expect(plan.counts).toMatchObject({ ok: 3, invalid: 1 });
    expect(() => organizeArgs.parse({ ids: [id.a], q: 'IMG', rename: 'x' }, 'args')).toThrow(/either q or ids/);
  });

  it('applies as one activity entry, the NAS has the new names, one Undo restores them', async () => {
    const args = organizeArgs.parse({ ids: [id.b, id.a, id.f], rename: '{parent}-{name}.{ext}' }, 'args');
    const out = await applyOrganize(r.engine, r.index, args);
    expect(out).toMatchObject({ queued: 3, skipped: [] });
    await waitFor(() => r.engine.status().outbox.pending === 0, 'batch sent', 60_000);
    expect(r.svc.admin.get(id.b)!.name).toBe('Other-IMG_0002.JPG');
    expect(r.svc.admin.get(id.a)!.name).toBe('Trip-IMG_0001.JPG');
    expect(r.svc.admin.get(id.f)!.name).toBe('-Scans'); // {parent} of a top-level folder: empty
    expect(r.svc.admin.get(id.c)!.name).toBe('IMG_0003.JPG');
    const batch = r.engine.actions.activity(100).filter((a) => a.kind === 'organized');
    expect(batch).toHaveLength(1);
    expect(batch[0]!.summary).toMatch(/^organized 3 objects/);
    await waitFor(() => existsSync(join(r.mirror, 'Other', 'Other-IMG_0002.JPG')), 'placeholder renamed on disk', 30_000);
    await r.engine.actions.undo(batch[0]!.id);
    await waitFor(() => r.engine.status().outbox.pending === 0, 'undo sent', 60_000);
    expect(r.svc.admin.get(id.b)!.name).toBe('IMG_0002.JPG');
    expect(r.svc.admin.get(id.a)!.name).toBe('IMG_0001.JPG');
    expect(r.svc.admin.get(id.f)!.name).toBe('Scans');
    await waitFor(() => existsSync(join(r.mirror, 'Trip', 'IMG_0001.JPG')), 'placeholder back on disk', 30_000);
  }, 120_000);
});
