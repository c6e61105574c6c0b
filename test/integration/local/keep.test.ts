/**
 * Keep on this device and Free up space against the real service and a real mirror folder:
 * a pinned folder's files come down (and stay current: a new NAS version and a file added
 * below it come down at the next walk), Free turns them back into placeholders in place with
 * nothing sent to the NAS and nothing read as the user's, an edited file is never emptied,
 * pins survive a restart and a folder rename, and the command line does it through the engine.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpTransport, type Transport, type TransportRequest, type TransportResponse } from '../../../main/client/transport.js';
import { formatCount, formatSize } from '../../../app/util/human.js';
import { KEEP_CONCURRENCY } from '../../../main/engine/keep.js';
import { call, multipart } from '../service/content-http.js';
import { startRig, waitFor, type Rig } from './harness.js';

const bytes = (n: number, seed: number): Buffer => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 29 + seed * 11 + (i >> 7)) & 0xff;
  return b;
};
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const T = Date.parse('2021-03-04T05:06:07Z');

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Docs/{a.bin,b.bin,Sub/c.bin} and Other/o.bin with real content; ids by name. */
async function keepRig(): Promise<{ r: Rig; ids: Record<string, string>; data: Record<string, Buffer> }> {
  const ids: Record<string, string> = {};
  const data: Record<string, Buffer> = {
    'a.bin': bytes(120_000, 1),
    'b.bin': bytes(3_000, 2),
    'c.bin': bytes(50_000, 3),
    'o.bin': bytes(4_000, 4),
  };
  const r = await startRig((svc, root) => {
    const docs = svc.admin.createFolder(root, 'Docs');
    ids['Docs'] = docs.id;
    const sub = svc.admin.createFolder(docs.id, 'Sub');
    ids['Sub'] = sub.id;
    const other = svc.admin.createFolder(root, 'Other');
    ids['Other'] = other.id;
    for (const [n, parent] of [
      ['a.bin', docs.id],
      ['b.bin', docs.id],
      ['c.bin', sub.id],
      ['o.bin', other.id],
    ] as const) {
      ids[n] = svc.admin.createFile(parent, n, { content: data[n]!, mTime: T }).id;
    }
  });
  rig = r;
  await waitFor(() => existsSync(join(r.mirror, 'Docs', 'Sub', 'c.bin')), 'placeholders');
  return { r, ids, data };
}

/** A file's size in the mirror (-1: not there yet). */
const sizeAt = (r: Rig, ...p: string[]): number => (existsSync(join(r.mirror, ...p)) ? statSync(join(r.mirror, ...p)).size : -1);
const allDownloaded = (r: Rig): boolean => [['a.bin'], ['b.bin'], ['Sub', 'c.bin']].every((p) => sizeAt(r, 'Docs', ...p) > 0);
const contentOf = (r: Rig, ...p: string[]): string => sha(readFileSync(join(r.mirror, ...p)));

async function newVersionOnNas(r: Rig, id: string, content: Buffer, mTime = '2022-02-02T02:02:02Z'): Promise<void> {
  const { body, contentType } = multipart('node', { mTime }, content);
  const path = `/sdk/v2/files/${id}/resumable?done=true&truncate=true&offset=0`;
  const res = await call(r.svc.baseUrl, r.svc.token(), 'POST', path, { body, headers: { 'Content-Type': contentType } });
  expect(res.status).toBe(201);
}

/** Counts content reads in flight (the most at once). */
class ContentGauge implements Transport {
  now = 0;
  most = 0;
  reads = 0;
  private readonly inner = new HttpTransport();
  async request(req: TransportRequest): Promise<TransportResponse> {
    if (!req.url.includes('/content')) return this.inner.request(req);
    this.reads++;
    this.most = Math.max(this.most, ++this.now);
    try {
      return await this.inner.request(req);
    } finally {
      this.now--;
    }
  }
  close(): void {
    this.inner.close();
  }
}

describe('Keep on this device', () => {
  it('a pinned folder downloads everything below it and keeps it current: new versions, files added later', async () => {
    const { r, ids, data } = await keepRig();
    r.mark();
    expect(await r.engine.pin(ids['Docs']!)).toEqual({ files: 3 });
    await waitFor(() => allDownloaded(r), 'the pinned folder downloaded');
    for (const [n, p] of [
      ['a.bin', ['Docs', 'a.bin']],
      ['b.bin', ['Docs', 'b.bin']],
      ['c.bin', ['Docs', 'Sub', 'c.bin']],
    ] as const) {
      expect(contentOf(r, ...p)).toBe(sha(data[n]!));
    }
    expect(sizeAt(r, 'Other', 'o.bin')).toBe(0); // not pinned: a placeholder
    expect(r.engine.deviceStates([ids['Docs']!, ids['a.bin']!, ids['o.bin']!, ids['Other']!])).toEqual(
      new Map([
        [ids['Docs']!, 'pinned'],
        [ids['a.bin']!, 'pinned'],
        [ids['o.bin']!, 'placeholder'],
        [ids['Other']!, 'folder'],
      ]),
    );

    // a new version on the NAS: downloaded over the old one at the next walk (never emptied meanwhile)
    const v2 = bytes(130_000, 9);
    await newVersionOnNas(r, ids['a.bin']!, v2);
    await r.engine.walkOnce();
    await waitFor(() => contentOf(r, 'Docs', 'a.bin') === sha(v2), 'the new version downloaded');
    expect(statSync(join(r.mirror, 'Docs', 'a.bin')).mtimeMs).toBe(Date.parse('2022-02-02T02:02:02Z'));

    // a file added on the NAS under the pinned folder: downloaded at the next walk
    const added = bytes(7_000, 10);
    const nid = r.svc.admin.createFile(ids['Sub']!, 'new.bin', { content: added, mTime: T }).id;
    await r.engine.walkOnce();
    await waitFor(() => sizeAt(r, 'Docs', 'Sub', 'new.bin') === added.length, 'the added file downloaded');
    expect(contentOf(r, 'Docs', 'Sub', 'new.bin')).toBe(sha(added));
    expect(r.engine.core.model.get(nid)).toMatchObject({ filled: false, content: { size: added.length } });
    // the space they take here (Storage), of the folder and of the whole mirror
    expect(r.engine.deviceSpace(ids['Docs'])).toEqual({ files: 4, bytes: v2.length + 3_000 + 50_000 + added.length });
    expect(r.engine.deviceSpace(ids['Other'])).toEqual({ files: 0, bytes: 0 });
    expect(r.engine.deviceSpace()).toEqual(r.engine.deviceSpace(ids['Docs']));

    // nothing of it is the user's: nothing sent, nothing local only
    await r.engine.fullRescan();
    await r.engine.drainOutbox();
    const s = r.engine.status();
    expect([s.outbox.pending, s.localOnly, s.conflicts]).toEqual([0, 0, 0]);
    expect(r.count('PATCH') + r.count('DELETE')).toBe(0);
    expect(r.count('POST')).toBe(1); // the test's own upload of the new version
  }, 60_000);

  it('free turns downloaded files back into placeholders in place, sends nothing, and keeps an edited file', async () => {
    const { r, ids } = await keepRig();
    await r.engine.pin(ids['Docs']!);
    await waitFor(() => allDownloaded(r), 'downloaded');
    await r.engine.drainOutbox();
    const edited = join(r.mirror, 'Docs', 'b.bin');
    appendFileSync(edited, 'my words');
    const mine = readFileSync(edited);
    await waitFor(() => r.engine.core.model.get(ids['b.bin']!)?.filled === true, 'the edit seen');
    const inoA = statSync(join(r.mirror, 'Docs', 'a.bin')).ino;
    r.mark();
    const res = await r.engine.free(ids['Docs']!);
    expect(res).toMatchObject({ freed: 2, bytes: 170_000, kept: [{ path: 'Docs/b.bin' }] });
    const a = statSync(join(r.mirror, 'Docs', 'a.bin'));
    expect([a.size, a.ino, a.mtimeMs]).toEqual([0, inoA, T]);
    expect(sizeAt(r, 'Docs', 'Sub', 'c.bin')).toBe(0);
    expect(readFileSync(edited).equals(mine)).toBe(true);
    expect(r.engine.deviceStates([ids['a.bin']!, ids['b.bin']!, ids['Docs']!])).toEqual(
      new Map([
        [ids['a.bin']!, 'placeholder'],
        [ids['b.bin']!, 'edited'],
        [ids['Docs']!, 'folder'],
      ]),
    );
    // freeing unpinned it: the next walk downloads nothing
    await r.engine.walkOnce();
    await r.engine.fullRescan();
    await r.engine.drainOutbox();
    expect(sizeAt(r, 'Docs', 'a.bin')).toBe(0);
    expect(r.engine.core.model.get(ids['a.bin']!)).toMatchObject({ filled: false, content: undefined });
    expect(r.count('POST') + r.count('PATCH') + r.count('DELETE')).toBe(0);
    expect(r.count('GET', '/content')).toBe(0);
    // the edited file is listed local only (it was before the free too); the freed ones are not
    expect(r.engine.actions.localOnly().map((l) => l.path)).toEqual(['Docs/b.bin']);
    expect(r.engine.actions.activity(20).find((x) => x.kind === 'freed')?.reason).toContain('Docs/b.bin');
  }, 60_000);

  it('pins survive a restart and a folder rename; unpin keeps what is here; a file under a pinned folder is not freed alone', async () => {
    const { r, ids } = await keepRig();
    await r.engine.pin(ids['Sub']!);
    await waitFor(() => sizeAt(r, 'Docs', 'Sub', 'c.bin') > 0, 'downloaded');
    // the user renames the pinned folder here: one PATCH, the pin follows the id
    r.mark();
    renameSync(join(r.mirror, 'Docs', 'Sub'), join(r.mirror, 'Docs', 'Kept'));
    await waitFor(() => r.count('PATCH') === 1 && r.engine.status().outbox.pending === 0, 'the rename sent');
    await r.restart();
    const added = bytes(9_000, 12);
    r.svc.admin.createFile(ids['Sub']!, 'later.bin', { content: added, mTime: T });
    await r.engine.walkOnce();
    await waitFor(() => sizeAt(r, 'Docs', 'Kept', 'later.bin') === added.length, 'the added file downloaded after restart and rename');
    // a file inside a pinned folder: unpin and free say which folder keeps it
    await expect(r.engine.unpin(ids['c.bin']!)).rejects.toMatchObject({ code: 'Conflict', message: expect.stringContaining('Docs/Kept') });
    await expect(r.engine.free(ids['c.bin']!)).rejects.toMatchObject({ code: 'Conflict' });
    expect(sizeAt(r, 'Docs', 'Kept', 'c.bin')).toBe(50_000);
    // unpinned: it stays here, but a new version no longer comes down (the untouched file becomes a placeholder of it)
    await r.engine.unpin(ids['Sub']!);
    expect(r.engine.core.local.pins().size).toBe(0);
    expect(sizeAt(r, 'Docs', 'Kept', 'c.bin')).toBe(50_000);
    await newVersionOnNas(r, ids['c.bin']!, bytes(51_000, 13));
    await r.engine.walkOnce();
    await r.engine.pins.idle();
    expect(sizeAt(r, 'Docs', 'Kept', 'c.bin')).toBe(0);
  }, 60_000);

  it('`nas-mirror pin`, `unpin` and `free` go through the running engine, and say so when none runs', async () => {
    const { r, ids, data } = await keepRig();
    const ROOT = resolve(import.meta.dirname, '../../..');
    const cli = (...args: string[]): Promise<{ stdout: string; stderr: string; code?: number }> =>
      promisify(execFile)(process.execPath, [join(ROOT, 'bin/nas-mirror.js'), ...args], { cwd: ROOT }).catch(
        (e: { stdout: string; stderr: string; code: number }) => e,
      );
    /** What a user reads: real plurals, sizes as the window writes them (issue 25, point 13). */
    const said = (out: { stdout: string; stderr: string }): string => {
      expect(`${out.stdout}${out.stderr}`).not.toMatch(/[a-z]\(s\)|\d+ bytes/);
      return out.stdout;
    };
    r.engine.core.local.setMeta('mirrorDir', r.mirror); // as `run` and the app record it
    r.mark();
    expect(said(await cli('pin', 'Other', '--state', r.state))).toContain('Other: kept on this device: 1 file to download\n');
    await waitFor(() => sizeAt(r, 'Other', 'o.bin') === data['o.bin']!.length, 'downloaded by the engine');
    expect(r.engine.core.local.pins()).toEqual(new Set([ids['Other']]));
    expect(said(await cli('unpin', join(r.mirror, 'Other'), '--state', r.state))).toContain('no longer kept on this device');
    expect(r.engine.core.local.pins().size).toBe(0);
    expect(sizeAt(r, 'Other', 'o.bin')).toBe(data['o.bin']!.length);
    // the size in the window's words (app/util/human.ts), the same in `free` and in `log` (the Activity view's line)
    const size = formatSize(data['o.bin']!.length);
    expect(said(await cli('free', 'Other/o.bin', '--state', r.state))).toContain(
      `Other/o.bin: freed up ${size}: 1 file is a placeholder again\n`,
    );
    expect(sizeAt(r, 'Other', 'o.bin')).toBe(0);
    expect(said(await cli('pin', 'Docs', '--state', r.state))).toContain('Docs: kept on this device: 3 files to download\n');
    await waitFor(() => allDownloaded(r), 'the folder downloaded by the engine');
    const docs = formatSize(data['a.bin']!.length + data['b.bin']!.length + data['c.bin']!.length);
    expect(said(await cli('free', 'Docs', '--state', r.state))).toContain(`Docs: freed up ${docs}: 3 files are placeholders again\n`);
    const log = said(await cli('log', '--state', r.state));
    said(await cli('log', '--details', '--state', r.state)); // the engine's own records too
    expect(log).toContain(`Freed up ${size} (“o.bin”): 1 file is a placeholder again`);
    expect(log).toContain(`Freed up ${docs} (“Docs”): 3 files are placeholders again`);
    const refused = await cli('unpin', 'Other', '--state', r.state);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('is not kept on this device') });
    expect(r.count('POST') + r.count('PATCH') + r.count('DELETE')).toBe(0);
    await r.engine.stop();
    const none = await cli('pin', 'Docs', '--state', r.state);
    expect(none).toMatchObject({ code: 1, stderr: expect.stringContaining('no engine is running') });
    await r.restart();
  }, 60_000);

  it('a pinned folder of 2,000 files downloads a few at a time, and the engine answers meanwhile', async () => {
    const gauge = new ContentGauge();
    const N = 2_000;
    let big = '';
    const r = await startRig(
      (svc, root) => {
        big = svc.admin.createFolder(root, 'Many').id;
        for (let i = 0; i < N; i++) svc.admin.createFile(big, `f${i}.bin`, { content: bytes(1_000 + (i % 7), i), mTime: T });
      },
      {},
      undefined,
      gauge,
    );
    rig = r;
    await waitFor(() => existsSync(join(r.mirror, 'Many', `f${N - 1}.bin`)), 'placeholders');
    expect(await r.engine.pin(big)).toEqual({ files: N });
    // while it downloads, the engine's lock is taken and given back promptly (a status, a local change can go through)
    let slowest = 0;
    while (r.engine.deviceSpace(big).files < N) {
      const t0 = performance.now();
      await r.engine.locked(() => undefined);
      slowest = Math.max(slowest, performance.now() - t0);
      await new Promise((res) => setImmediate(res));
    }
    await r.engine.pins.idle();
    expect(gauge.most).toBeLessThanOrEqual(KEEP_CONCURRENCY);
    expect(gauge.most).toBeGreaterThan(1);
    expect(gauge.reads).toBe(N);
    expect(slowest).toBeLessThan(500);
    expect(sizeAt(r, 'Many', 'f1234.bin')).toBe(1_000 + (1234 % 7));
    expect(r.engine.actions.activity(10).find((a) => a.kind === 'kept')?.summary).toBe(
      `kept on this device: downloaded ${formatCount(N)} files`,
    );
  }, 120_000);
});
