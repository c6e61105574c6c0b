/**
 * Issue 21: a file the user added (local only: uploads off here) in a folder that is then renamed, by the user
 * and on the NAS, stays ONE row in the local-only list with its new path (it was two, and the
 * old path stayed forever after a rename two levels up). The real service, a real folder.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStateDbReadOnly } from '../../../main/state/db.js';
import { readStatus } from '../../../main/engine/status.js';
import { startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const paths = (r: Rig): string[] => r.engine.actions.localOnly().map((l) => l.path);
const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

describe('local folder: local-only entries follow their folder', () => {
  it('a local file stays one row through a local rename of its folder and a NAS rename of its grandparent', async () => {
    const ids: Record<string, string> = {};
    rig = await startRig(
      (svc, root) => {
        const top = svc.admin.createFolder(root, 'Top');
        const mid = svc.admin.createFolder(top.id, 'Mid');
        const leaf = svc.admin.createFolder(mid.id, 'Leaf');
        ids['Mid'] = mid.id;
        ids['Leaf'] = leaf.id;
        svc.admin.createFile(leaf.id, 'on-nas.txt');
      },
      { uploads: false },
    ); // the list's rows themselves (with uploads on, a new file goes up: creates.test.ts)
    const r = rig;
    writeFileSync(join(r.mirror, 'Top', 'Mid', 'Leaf', 'mine.txt'), 'mine');
    await waitFor(() => same(paths(r), ['Top/Mid/Leaf/mine.txt']), 'mine.txt listed local only');

    // (a) the user renames the folder holding it
    renameSync(join(r.mirror, 'Top', 'Mid', 'Leaf'), join(r.mirror, 'Top', 'Mid', 'Leaf2'));
    await waitFor(() => r.svc.admin.get(ids['Leaf']!)!.name === 'Leaf2', 'NAS shows Leaf2');
    // a later batch in that folder finds mine.txt again: the same row, not a second one
    await touchFolder(r, join(r.mirror, 'Top', 'Mid', 'Leaf2'), 'Top/Mid/Leaf2');
    expect(paths(r)).toEqual(['Top/Mid/Leaf2/mine.txt']);
    expect(r.engine.status().localOnly).toBe(1);

    // (b) the NAS renames its grandparent (two levels up)
    await r.client.patch(ids['Mid']!, { name: 'Mid (NAS)' });
    await r.engine.syncNow();
    await waitFor(() => existsSync(join(r.mirror, 'Top', 'Mid (NAS)', 'Leaf2', 'mine.txt')), 'the rename reached the disk');
    await touchFolder(r, join(r.mirror, 'Top', 'Mid (NAS)', 'Leaf2'), 'Top/Mid (NAS)/Leaf2');
    await touchFolder(r, join(r.mirror, 'Top', 'Mid (NAS)'), 'Top/Mid (NAS)');
    expect(paths(r)).toEqual(['Top/Mid (NAS)/Leaf2/mine.txt']);
    expect(r.engine.status().localOnly).toBe(1);
    // the command line's status reads the db alone
    const db = openStateDbReadOnly(r.state);
    try {
      expect(readStatus(db, r.state).localOnly).toBe(1);
    } finally {
      db.close();
    }

    // a restart reads the list back with the path of now
    await r.restart();
    expect(paths(r)).toEqual(['Top/Mid (NAS)/Leaf2/mine.txt']);
    expect(r.engine.status().localOnly).toBe(1);

    // gone from disk: gone from the list
    rmSync(join(r.mirror, 'Top', 'Mid (NAS)', 'Leaf2', 'mine.txt'));
    await waitFor(() => paths(r).length === 0 && r.engine.status().localOnly === 0, 'list empty');
  });

  it('a local folder deleted with a local-only file in it takes the row along', async () => {
    const ids: Record<string, string> = {};
    rig = await startRig(
      (svc, root) => {
        const top = svc.admin.createFolder(root, 'Top');
        ids['Box'] = svc.admin.createFolder(top.id, 'Box').id;
        svc.admin.createFile(top.id, 'keep.txt');
      },
      { uploads: false },
    );
    const r = rig;
    writeFileSync(join(r.mirror, 'Top', 'Box', 'mine.txt'), 'mine');
    await waitFor(() => same(paths(r), ['Top/Box/mine.txt']), 'mine.txt listed local only');
    rmSync(join(r.mirror, 'Top', 'Box'), { recursive: true });
    await waitFor(() => r.svc.admin.get(ids['Box']!) === undefined, 'NAS folder deleted');
    await waitFor(() => paths(r).length === 0 && r.engine.status().localOnly === 0, 'list empty');
  });
});

/** Makes the engine read `abs` again (a file comes and goes, listed then pruned) and waits for it. */
async function touchFolder(r: Rig, abs: string, rel: string): Promise<void> {
  const probe = join(abs, 'probe.txt');
  writeFileSync(probe, 'p');
  await waitFor(() => paths(r).includes(`${rel}/probe.txt`), `${rel} read again`);
  rmSync(probe);
  await waitFor(() => !paths(r).includes(`${rel}/probe.txt`), `${rel} read again after the probe left`);
}
