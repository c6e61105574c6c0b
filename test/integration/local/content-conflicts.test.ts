/**
 * Issue 23, point 3: a file changed here and on the NAS is kept twice (the NAS's version at the
 * name, the user's beside it as a conflicted copy) and listed in Conflicts, where the user keeps
 * both, keeps theirs (a new version of the original, If-Match the NAS version the row shows)
 * or keeps the NAS's (the copy goes, from the disk and the NAS). The real service, a real
 * folder, the real watcher; the command line through its in-process runner.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { conflictEntry, type ConflictEntry } from '../../../app/contract/shapes.js';
import { arr } from '../../../app/util/schema.js';
import { FaultTransport } from '../../../main/client/fault-transport.js';
import { HttpTransport, type Transport } from '../../../main/client/transport.js';
import { runCli } from '../../support/run-cli.js';
import { startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const MINE = 'plan v2 mine';
const THEIRS = 'plan v2 by someone else';

/** The NAS's content of a file, by id (null: gone). */
async function nasText(r: Rig, id: string): Promise<string | null> {
  const res = await fetch(`${r.svc.baseUrl}/sdk/v2/files/${encodeURIComponent(id)}/content`, {
    headers: { authorization: `Bearer ${r.svc.token()}` },
  });
  if (res.status === 404) return null;
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer()).toString();
}

/** Writes a new NAS version of `id` as another user would (If-Match its current version). */
async function nasWrite(r: Rig, id: string, text: string): Promise<void> {
  await r.client.startVersion(id, { ifMatch: r.svc.admin.get(id)!.eTag });
  await r.client.putContent(id, 0, Buffer.from(text), true);
}

interface Conflicted {
  r: Rig;
  docs: string;
  id: string;
  row: ConflictEntry;
  copyName: string;
  /** The copy's NAS object (uploaded by the creator as a new file). */
  copyId: string;
}

/**
 * Docs/plan.txt downloaded here, then changed on both sides while the engine is stopped: at
 * restart the upload of the user's version meets 412, both are kept, the conflict is listed and
 * the copy goes up as a new file.
 */
async function conflicted(transport?: Transport): Promise<Conflicted> {
  let docs = '';
  let id = '';
  rig = await startRig(
    (svc, root) => {
      docs = svc.admin.createFolder(root, 'Docs').id;
      id = svc.admin.createFile(docs, 'plan.txt', { content: Buffer.from('plan v1'), mTime: Date.parse('2021-03-04T05:06:07Z') }).id;
    },
    {},
    undefined,
    transport,
  );
  const r = rig;
  await r.engine.download(id);
  await r.engine.stop();
  await nasWrite(r, id, THEIRS);
  writeFileSync(join(r.mirror, 'Docs', 'plan.txt'), MINE);
  await r.restart();
  let copy: [string, { id: string }] | undefined;
  await waitFor(
    async () => {
      copy = [...(await r.nasChildren(docs))].find(([n]) => n.startsWith('plan (conflicted copy '));
      return copy !== undefined && r.engine.core.creates.counts().open === 0 && r.engine.actions.conflicts().conflicts.length === 1;
    },
    'the conflict listed and the conflicted copy on the NAS',
    30_000,
  );
  const [copyName, { id: copyId }] = copy!;
  await waitFor(() => existsSync(join(r.mirror, 'Docs', 'plan.txt')), 'the NAS version back at the name');
  return { r, docs, id, row: r.engine.actions.conflicts().conflicts[0]!, copyName, copyId };
}

/**
 * The same, with the NAS refusing the copy's upload for now (503 to its POST files/resumable):
 * the conflict is listed while the copy waits here, its upload tried and to be tried again.
 * `versions`: the If-Match of every new version sent for the file.
 */
async function conflictedCopyWaiting(): Promise<Omit<Conflicted, 'copyId'> & { faults: FaultTransport; versions: string[] }> {
  const versions: string[] = [];
  const faults = new FaultTransport(new HttpTransport(), (req) => {
    if (req.method !== 'POST') return undefined;
    if (/\/files\/[^/]+\/resumable\?/.test(req.url)) versions.push(req.headers['if-match'] ?? '');
    // (the copy's create: its name in the JSON body, or in the metadata part of one that carries its bytes)
    const body = typeof req.body === 'string' || Buffer.isBuffer(req.body) ? req.body : '';
    return req.url.includes('/files/resumable?') && body.includes('conflicted copy') ? { kind: 'status', status: 503 } : undefined;
  });
  let docs = '';
  let id = '';
  rig = await startRig(
    (svc, root) => {
      docs = svc.admin.createFolder(root, 'Docs').id;
      id = svc.admin.createFile(docs, 'plan.txt', { content: Buffer.from('plan v1') }).id;
    },
    {},
    undefined,
    faults,
  );
  const r = rig;
  await r.engine.download(id);
  await r.engine.stop();
  await nasWrite(r, id, THEIRS);
  writeFileSync(join(r.mirror, 'Docs', 'plan.txt'), MINE);
  await r.restart();
  await waitFor(
    () =>
      r.engine.actions.conflicts().conflicts.length === 1 &&
      r.engine.core.creates.open().some((c) => c.kind === 'file' && c.name.startsWith('plan (conflicted copy ') && c.attempts > 0),
    'the conflict listed, the copy waiting here',
    30_000,
  );
  // (its try is over: it waits for the next one)
  await r.engine.creator.idle();
  const row = r.engine.actions.conflicts().conflicts[0]!;
  return { r, docs, id, row, copyName: row.versions!.yours.name, faults, versions };
}

/** What the mirror's Docs folder holds: name -> content. */
const docsOnDisk = (r: Rig): Record<string, string> =>
  Object.fromEntries(
    readdirSync(join(r.mirror, 'Docs'))
      .filter((n) => !n.startsWith('.'))
      .map((n) => [n, readFileSync(join(r.mirror, 'Docs', n), 'utf8')]),
  );

const settled = (r: Rig): boolean => r.engine.status().outbox.pending === 0 && r.engine.core.creates.counts().open === 0;

describe('a file changed here and on the NAS: listed in Conflicts, keep mine, the NAS version, or both', () => {
  it('the conflict is listed with both versions in words; "keep both" closes it and both stay; a choice that does not fit is refused', async () => {
    const { r, id, row, copyName, copyId } = await conflicted();
    expect(copyName).toMatch(/^plan \(conflicted copy \d{4}-\d{2}-\d{2} \d{4}\)\.txt$/);
    expect(row).toMatchObject({
      kind: 'content',
      path: 'Docs/plan.txt',
      versions: { yours: { name: copyName, size: MINE.length }, nas: { size: THEIRS.length } },
    });
    expect(row.versions!.nas.modified).toBe(r.svc.admin.get(id)!.mTime);
    expect(Date.parse(row.versions!.yours.modified)).toBeGreaterThan(Date.parse('2021-03-04T05:06:07Z'));
    expect(`${row.intent} ${row.remote} ${row.reason}`).not.toMatch(/eTag|If-Match|412|inode/);
    expect(r.engine.status().conflicts).toBe(1);
    // the window's contract checks it on arrival: it passes
    expect(arr(conflictEntry).parse(r.engine.actions.conflicts().conflicts)).toHaveLength(1);
    // the choices of a change the NAS did not take do not fit it
    expect(await r.engine.actions.resolveConflicts([row.id], 'reapply')).toEqual({
      done: 0,
      failed: [{ id: row.id, message: expect.stringMatching(/keep-mine, keep-nas or keep-both/) as unknown }],
    });

    expect(await r.engine.actions.resolveConflicts([row.id], 'keep-both')).toEqual({ done: 1, failed: [] });
    expect(r.engine.actions.conflicts().conflicts).toEqual([]);
    expect(r.engine.status().conflicts).toBe(0);
    expect(await nasText(r, id)).toBe(THEIRS);
    expect(await nasText(r, copyId)).toBe(MINE);
    expect(readFileSync(join(r.mirror, 'Docs', copyName), 'utf8')).toBe(MINE);
    expect(existsSync(join(r.mirror, 'Docs', 'plan.txt'))).toBe(true);
    expect(r.engine.actions.activity().some((a) => a.kind === 'kept-both' && a.path === 'Docs/plan.txt')).toBe(true);
  }, 60_000);

  it('"keep mine": your version becomes the NAS version of the file (here too), the conflicted copy goes from the disk and the NAS', async () => {
    const { r, id, row, copyName, copyId } = await conflicted();
    expect(await r.engine.actions.resolveConflicts([row.id], 'keep-mine')).toEqual({ done: 1, failed: [] });
    expect(r.engine.actions.conflicts().conflicts).toEqual([]);
    expect(await nasText(r, id)).toBe(MINE);
    // the file holds that version here (no download needed), the copy is gone from the disk...
    expect(docsOnDisk(r)).toEqual({ 'plan.txt': MINE });
    expect(r.engine.deviceStates([id]).get(id)).toBe('here');
    // ...and, through the outbox, from the NAS
    await waitFor(async () => (await nasText(r, copyId)) === null && settled(r), 'the copy deleted on the NAS');
    expect((await r.nasChildren(r.svc.admin.get(id)!.parentID)).has(copyName)).toBe(false);
    expect(r.engine.actions.localOnly()).toEqual([]);
    expect(r.engine.status().conflicts).toBe(0);
    // a walk finds nothing to change: the NAS and the disk agree
    await r.engine.syncNow();
    expect(docsOnDisk(r)).toEqual({ 'plan.txt': MINE });
    expect(r.engine.actions.activity().some((a) => a.kind === 'reapplied' && a.path === 'Docs/plan.txt')).toBe(true);
  }, 60_000);

  it('"keep the NAS version": the conflicted copy goes from the disk and the NAS; the file stays as the NAS has it', async () => {
    const { r, id, row, copyName, copyId } = await conflicted();
    expect(await r.engine.actions.resolveConflicts([row.id], 'keep-nas')).toEqual({ done: 1, failed: [] });
    expect(r.engine.actions.conflicts().conflicts).toEqual([]);
    expect(existsSync(join(r.mirror, 'Docs', copyName))).toBe(false);
    await waitFor(async () => (await nasText(r, copyId)) === null && settled(r), 'the copy deleted on the NAS');
    expect(await nasText(r, id)).toBe(THEIRS);
    expect(Object.keys(docsOnDisk(r))).toEqual(['plan.txt']);
    // the file is the NAS's version (a placeholder of it): opened, it is theirs
    await r.engine.download(id);
    expect(readFileSync(join(r.mirror, 'Docs', 'plan.txt'), 'utf8')).toBe(THEIRS);
    expect(r.engine.actions.localOnly()).toEqual([]);
  }, 60_000);

  it('"keep mine" when the NAS changed the file again since: nothing is sent over it, the row stays and shows the new version; chosen again, it is done', async () => {
    const { r, id, row, copyName, copyId } = await conflicted();
    const third = 'plan v3 by someone else, longer';
    await nasWrite(r, id, third);
    const res = await r.engine.actions.resolveConflicts([row.id], 'keep-mine');
    expect(res.done).toBe(0);
    expect(res.failed[0]!.message).toMatch(/changed again/);
    expect(res.failed[0]!.message).not.toMatch(/412|eTag|If-Match/);
    expect(await nasText(r, id)).toBe(third);
    // both stay, the row says why and shows the NAS's version as it is now
    const [now] = r.engine.actions.conflicts().conflicts;
    expect(now).toMatchObject({ id: row.id, kind: 'content', note: expect.stringMatching(/changed again/) as unknown });
    expect(now!.versions!.nas.size).toBe(third.length);
    expect(readFileSync(join(r.mirror, 'Docs', copyName), 'utf8')).toBe(MINE);
    expect(await nasText(r, copyId)).toBe(MINE);
    expect(r.engine.status().conflicts).toBe(1);

    // chosen again (over the version it now shows): done
    expect(await r.engine.actions.resolveConflicts([row.id], 'keep-mine')).toEqual({ done: 1, failed: [] });
    expect(await nasText(r, id)).toBe(MINE);
    await waitFor(async () => (await nasText(r, copyId)) === null && settled(r), 'the copy deleted on the NAS');
    expect(docsOnDisk(r)).toEqual({ 'plan.txt': MINE });
  }, 60_000);

  it('a copy changed since it was listed is not sent or removed: the row shows it as it is now', async () => {
    const { r, id, row, copyName } = await conflicted();
    const later = 'plan v2 mine, edited again';
    writeFileSync(join(r.mirror, 'Docs', copyName), later);
    const res = await r.engine.actions.resolveConflicts([row.id], 'keep-nas');
    expect(res.failed[0]?.message).toMatch(/your copy changed since/);
    expect(readFileSync(join(r.mirror, 'Docs', copyName), 'utf8')).toBe(later);
    expect(r.engine.actions.conflicts().conflicts[0]!.versions!.yours.size).toBe(later.length);
    expect(await nasText(r, id)).toBe(THEIRS);
    // its new content goes up to the copy's own NAS object like any edit; then "keep both" closes the row
    await waitFor(() => statSync(join(r.mirror, 'Docs', copyName)).size === later.length && settled(r), 'settled');
    expect((await r.engine.actions.resolveConflicts(['all'], 'keep-both')).done).toBe(1);
    expect(readFileSync(join(r.mirror, 'Docs', copyName), 'utf8')).toBe(later);
  }, 60_000);

  it('a copy not uploaded yet: "keep mine" sends your bytes over the version shown (If-Match) and cancels the copy\'s upload', async () => {
    const { r, docs, id, row, copyName, versions, faults } = await conflictedCopyWaiting();
    const shown = r.svc.admin.get(id)!.eTag;
    expect(await r.engine.actions.resolveConflicts([row.id], 'keep-mine')).toEqual({ done: 1, failed: [] });
    // guarded by the NAS version the row showed
    expect(versions.at(-1)).toBe(shown);
    expect(await nasText(r, id)).toBe(MINE);
    expect(docsOnDisk(r)).toEqual({ 'plan.txt': MINE });
    expect(r.engine.core.creates.open()).toEqual([]);
    expect(r.engine.actions.localOnly()).toEqual([]);
    // the NAS takes uploads again: the copy never goes up
    faults.setPlan(() => undefined);
    r.engine.creator.kick();
    await r.engine.creator.idle();
    expect([...(await r.nasChildren(docs)).keys()]).toEqual(['plan.txt']);
    expect(copyName).toMatch(/conflicted copy/);
  }, 60_000);

  it('a copy not uploaded yet: "keep the NAS version" removes it here and cancels its upload (nothing sent for it)', async () => {
    const { r, docs, id, row, copyName, faults } = await conflictedCopyWaiting();
    r.mark();
    expect(await r.engine.actions.resolveConflicts([row.id], 'keep-nas')).toEqual({ done: 1, failed: [] });
    expect(existsSync(join(r.mirror, 'Docs', copyName))).toBe(false);
    expect(r.engine.core.creates.open()).toEqual([]);
    expect(r.count('DELETE')).toBe(0);
    faults.setPlan(() => undefined);
    r.engine.creator.kick();
    await r.engine.creator.idle();
    expect([...(await r.nasChildren(docs)).keys()]).toEqual(['plan.txt']);
    expect(await nasText(r, id)).toBe(THEIRS);
    expect(r.engine.actions.localOnly()).toEqual([]);
  }, 60_000);

  it('the command line lists it in words and queues keep-mine, keep-nas or keep-both for the engine; reapply or drop do not fit it', async () => {
    const { r, id, row, copyName, copyId } = await conflicted();
    const cli = async (...args: string[]) => runCli(['conflicts', '--state', r.state, ...args]);
    const list = await cli();
    expect(list.code).toBe(0);
    expect(list.out).toContain(
      `${row.id}\tDocs/plan.txt\tchanged here and on the NAS, both kept\tyour version: “${copyName}”, ${MINE.length} B, changed `,
    );
    expect(list.out).toContain(`\tNAS version: ${THEIRS.length} B, changed `);
    expect(list.out).toContain('(keep-mine, keep-nas or keep-both)');
    expect(list.out).not.toMatch(/eTag|If-Match|412|inode/);
    expect(arr(conflictEntry).parse(JSON.parse((await cli('--json')).out))).toMatchObject([{ id: row.id, kind: 'content' }]);
    // a choice that does not fit: refused at once, nothing queued
    const drop = await cli('drop', row.id);
    expect(drop.code).toBe(1);
    expect(drop.err).toMatch(/a file changed here and on the NAS: choose keep-mine, keep-nas or keep-both/);
    expect((await cli('drop', 'all')).out).toBe('no conflicts that drop fits: nothing to drop\n');
    // keep-mine, queued for the running engine
    const mine = await cli('keep-mine', row.id);
    expect(mine).toMatchObject({ code: 0, out: 'keep-mine queued for 1 conflict; the engine carries it out\n' });
    await waitFor(async () => r.engine.actions.conflicts().conflicts.length === 0 && (await nasText(r, id)) === MINE, 'kept mine');
    await waitFor(async () => (await nasText(r, copyId)) === null && settled(r), 'the copy deleted on the NAS');
    expect(docsOnDisk(r)).toEqual({ 'plan.txt': MINE });
    expect((await cli()).out).toBe('no conflicts\n');
    // the log says it in words
    const log = await runCli(['log', '--state', r.state]);
    expect(log.out).toContain('You kept your version of “plan.txt”: it is the NAS version now, and its conflicted copy is removed');
    expect(log.out).toContain(`The NAS changed “plan.txt” too: both versions are kept (yours as “${copyName}”); choose in Conflicts`);
  }, 60_000);
});
