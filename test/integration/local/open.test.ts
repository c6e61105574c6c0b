/**
 * Open on demand against the real service and a real mirror folder: a placeholder's content
 * is downloaded (ranged, resumed after a dropped connection and after a restart), checked and
 * put in place of the placeholder, with nothing sent to the NAS and nothing read as the
 * user's change; a NAS change to a downloaded file empties it again unless the user edited it.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../app/errors.js';
import { HttpTransport, type Transport, type TransportRequest, type TransportResponse } from '../../../main/client/transport.js';
import { cutAfter } from '../../../main/client/fault-transport.js';
import { partialPathOf } from '../../../main/engine/downloads.js';
import { call, multipart } from '../service/content-http.js';
import { startRig, waitFor, type Rig } from './harness.js';

/** A transport that records content reads' Range headers and can cut or hold their bodies. */
class ContentTap implements Transport {
  readonly ranges: (string | undefined)[] = [];
  /** Cut each content body after this many bytes (a dropped connection). */
  cutAfter: number | undefined;
  /** Hold content reads until cancelled (an engine stopped mid-download). */
  hold = false;
  /** Hold every read after the first cut. */
  holdAfterCut = false;
  /** Answer content reads with this status, as a device without the content interface does. */
  refuse: number | undefined;
  private readonly inner = new HttpTransport();

  async request(req: TransportRequest): Promise<TransportResponse> {
    if (!req.url.includes('/content')) return this.inner.request(req);
    this.ranges.push(req.headers['range']);
    if (this.refuse !== undefined)
      return {
        status: this.refuse,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Method Not Allowed' }),
      };
    if (this.hold) {
      return new Promise((_, reject) => {
        const stop = (): void => reject(new AppError('Cancelled', 'held read cancelled'));
        if (req.signal?.aborted) stop();
        else req.signal?.addEventListener('abort', stop);
      });
    }
    const cut = this.cutAfter;
    if (cut === undefined || !req.sink) return this.inner.request(req);
    return this.inner.request({
      ...req,
      sink: cutAfter(req.sink, cut, () => {
        if (this.holdAfterCut) this.hold = true;
      }),
    });
  }

  close(): void {
    this.inner.close();
  }
}

const bytes = (n: number, seed: number): Buffer => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return b;
};
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

let rig: Rig | undefined;
let tap: ContentTap;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A rig with a few files of real content; `ids` by name. */
async function contentRig(files: Record<string, Buffer>): Promise<{ r: Rig; ids: Record<string, string> }> {
  const ids: Record<string, string> = {};
  tap = new ContentTap();
  const r = await startRig(
    (svc, root) => {
      const docs = svc.admin.createFolder(root, 'Docs');
      for (const [name, content] of Object.entries(files))
        ids[name] = svc.admin.createFile(docs.id, name, { content, mTime: Date.parse('2021-03-04T05:06:07Z') }).id;
    },
    {},
    undefined,
    tap,
  );
  rig = r;
  await waitFor(() => Object.keys(files).every((n) => existsSync(join(r.mirror, 'Docs', n))), 'placeholders');
  return { r, ids };
}

/** A new version of a file on the NAS (resumable upload with truncate, done at once). */
async function newVersionOnNas(r: Rig, id: string, content: Buffer, mTime = '2022-02-02T02:02:02Z'): Promise<void> {
  const { body, contentType } = multipart('node', { mTime }, content);
  const res = await call(r.svc.baseUrl, r.svc.token(), 'POST', `/sdk/v2/files/${id}/resumable?done=true&truncate=true&offset=0`, {
    body,
    headers: { 'Content-Type': contentType },
  });
  expect(res.status).toBe(201);
}

describe('Open on demand', () => {
  it('downloads a placeholder, puts it in place, sends nothing to the NAS, and a second open is instant', async () => {
    const data = bytes(700_000, 1);
    const { r, ids } = await contentRig({ 'a.bin': data, 'b.txt': bytes(10, 2) });
    const file = join(r.mirror, 'Docs', 'a.bin');
    const before = statSync(file);
    expect(before.size).toBe(0);
    let storeChanges = 0;
    const off = r.engine.core.applier.onChanges(() => {
      storeChanges++;
    });
    const progress: number[] = [];
    const opens = new Map<string, boolean>();
    r.engine.events.on('download', (p) => {
      if (p.id === ids['a.bin']) progress.push(p.bytes);
      opens.set(p.id, (opens.get(p.id) ?? true) && p.open === true);
    });
    r.mark();
    const got = await r.engine.download(ids['a.bin']!);
    expect(got).toEqual({ path: file, downloaded: true });
    expect(sha(readFileSync(file))).toBe(sha(data));
    const after = statSync(file);
    expect(after.mtimeMs).toBe(Date.parse('2021-03-04T05:06:07Z'));
    expect(progress.at(-1)).toBe(data.length);
    // an Open's events say so (the window shows only those); a Keep's downloads do not
    await r.engine.pin(ids['b.txt']!);
    await waitFor(() => opens.has(ids['b.txt']!) && statSync(join(r.mirror, 'Docs', 'b.txt')).size === 10, 'b.txt kept');
    expect([...opens]).toEqual([
      [ids['a.bin'], true],
      [ids['b.txt'], false],
    ]);
    await r.engine.unpin(ids['b.txt']!);
    const e = r.engine.core.model.get(ids['a.bin']!)!;
    expect(e).toMatchObject({ filled: false, ino: String(after.ino), content: { size: data.length, ino: String(after.ino) } });
    // the watcher's report of that rename, and a full read of the folder, find nothing of the user's
    await r.engine.fullRescan();
    await r.engine.drainOutbox();
    expect(r.engine.core.model.get(ids['a.bin']!)).toMatchObject({ filled: false, content: { size: data.length } });
    const s = r.engine.status();
    expect([s.outbox.pending, s.localOnly, s.conflicts]).toEqual([0, 0, 0]);
    expect(r.engine.actions.activity(50).map((a) => a.kind)).not.toContain('local-only');
    expect(r.count('POST') + r.count('DELETE') + r.count('PATCH')).toBe(0);
    expect(storeChanges).toBe(0); // the mirror store (and the offline index that follows it) unchanged
    expect(readdirSync(join(r.mirror, '.nas-mirror', 'downloads'))).toEqual([]);
    // a second open: here already, no request
    r.mark();
    const t0 = Date.now();
    expect(await r.engine.download(ids['a.bin']!)).toEqual({ path: file, downloaded: false });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(r.count('GET')).toBe(0);
    off();
    // a restart reads the folder again: still the NAS's content, not the user's
    await r.restart();
    await r.engine.fullRescan();
    expect(r.engine.core.model.get(ids['a.bin']!)).toMatchObject({ filled: false, content: { size: data.length } });
    expect(r.engine.status().localOnly).toBe(0);
  }, 60_000);

  it('resumes from its offset after the connection drops, and after the engine restarts', async () => {
    const data = bytes(600_000, 3);
    const { r, ids } = await contentRig({ 'big.bin': data });
    const id = ids['big.bin']!;
    // dropped connections: each read is cut after 150,000 bytes and the next asks for the rest
    tap.cutAfter = 150_000;
    await r.engine.download(id);
    expect(tap.ranges).toEqual([undefined, 'bytes=150000-', 'bytes=300000-', 'bytes=450000-']);
    expect(sha(readFileSync(join(r.mirror, 'Docs', 'big.bin')))).toBe(sha(data));

    // a restart mid-download: the partial and its record stay, the next open asks for the rest
    const other = bytes(500_000, 4);
    const id2 = r.svc.admin.createFile(r.engine.core.model.get(id)!.lparent, 'more.bin', { content: other }).id;
    await r.engine.walkOnce();
    await waitFor(() => existsSync(join(r.mirror, 'Docs', 'more.bin')), 'placeholder');
    tap.ranges.length = 0;
    tap.cutAfter = 200_000;
    tap.holdAfterCut = true;
    const first = r.engine.download(id2).catch((e: unknown) => e);
    const partial = partialPathOf(r.mirror, id2);
    await waitFor(() => tap.ranges.length >= 2, 'the second read, held');
    expect(tap.ranges).toEqual([undefined, 'bytes=200000-']);
    await r.restart();
    expect(await first).toBeInstanceOf(AppError);
    expect(statSync(partial).size).toBe(200_000);
    expect(statSync(join(r.mirror, 'Docs', 'more.bin')).size).toBe(0); // the placeholder is untouched
    tap.hold = false;
    tap.holdAfterCut = false;
    tap.cutAfter = undefined;
    tap.ranges.length = 0;
    await r.engine.download(id2);
    expect(tap.ranges).toEqual(['bytes=200000-']);
    expect(sha(readFileSync(join(r.mirror, 'Docs', 'more.bin')))).toBe(sha(other));
    expect(existsSync(partial)).toBe(false);
  }, 60_000);

  it('never replaces the placeholder with bytes of another version (the NAS changed since the last walk)', async () => {
    const { r, ids } = await contentRig({ 'c.bin': bytes(50_000, 5) });
    const id = ids['c.bin']!;
    const file = join(r.mirror, 'Docs', 'c.bin');
    const ino = statSync(file).ino;
    await newVersionOnNas(r, id, bytes(60_000, 6));
    const err = await r.engine.download(id).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ContentMismatch' });
    expect([statSync(file).size, statSync(file).ino]).toEqual([0, ino]);
    expect(existsSync(partialPathOf(r.mirror, id))).toBe(false);
    expect(r.engine.core.model.get(id)!.content).toBeUndefined();
    // once the walk brings the new version, Open gets it
    await r.engine.walkOnce();
    await r.engine.download(id);
    expect(statSync(file).size).toBe(60_000);
  }, 60_000);

  it('a NAS change makes an untouched downloaded file a placeholder again, and keeps an edited one', async () => {
    const { r, ids } = await contentRig({ 'keep.txt': bytes(20_000, 7), 'edit.txt': bytes(30_000, 8) });
    for (const n of ['keep.txt', 'edit.txt']) await r.engine.download(ids[n]!);
    // a rename on the NAS is not new content: the download stays
    expect(
      await call(r.svc.baseUrl, r.svc.token(), 'POST', `/sdk/v2/files/${ids['keep.txt']}/patch`, {
        body: JSON.stringify({ name: 'kept.txt' }),
        headers: { 'content-type': 'application/json' },
      }),
    ).toMatchObject({ status: 204 });
    await r.engine.walkOnce();
    await waitFor(() => existsSync(join(r.mirror, 'Docs', 'kept.txt')), 'renamed');
    expect(statSync(join(r.mirror, 'Docs', 'kept.txt')).size).toBe(20_000);
    expect(r.engine.core.model.get(ids['keep.txt']!)!.content?.etag).toBe(r.svc.admin.get(ids['keep.txt']!)!.eTag);

    const mine = join(r.mirror, 'Docs', 'edit.txt');
    appendFileSync(mine, 'my own words');
    const edited = readFileSync(mine);
    r.mark();
    await newVersionOnNas(r, ids['keep.txt']!, bytes(25_000, 9));
    await newVersionOnNas(r, ids['edit.txt']!, bytes(35_000, 10));
    await r.engine.walkOnce();
    await r.engine.fullRescan();
    await r.engine.drainOutbox();
    const kept = join(r.mirror, 'Docs', 'kept.txt');
    expect(statSync(kept).size).toBe(0);
    expect(statSync(kept).mtimeMs).toBe(Date.parse('2022-02-02T02:02:02Z'));
    expect(r.engine.core.model.get(ids['keep.txt']!)).toMatchObject({ filled: false, content: undefined });
    expect(readFileSync(mine).equals(edited)).toBe(true);
    expect(r.engine.core.model.get(ids['edit.txt']!)).toMatchObject({ filled: true, content: undefined });
    expect(r.engine.actions.localOnly().map((l) => l.path)).toEqual(['Docs/edit.txt']);
    expect(r.count('POST') + r.count('DELETE')).toBe(2); // only the test's own two uploads
    // the placeholder of the new version downloads again
    await r.engine.download(ids['keep.txt']!);
    expect(statSync(kept).size).toBe(25_000);
  }, 60_000);

  it('a NAS without the content interface (405) is said once, and nothing changes on disk', async () => {
    const { r, ids } = await contentRig({ 'x.bin': bytes(1000, 14), 'y.bin': bytes(1000, 15) });
    tap.refuse = 405;
    const notices: string[] = [];
    r.engine.events.on('notice', (n) => notices.push(n.message));
    for (const n of ['x.bin', 'y.bin']) {
      expect(await r.engine.download(ids[n]!).catch((e: unknown) => e)).toMatchObject({
        code: 'NoContentInterface',
        message: expect.stringContaining('does not serve file content'),
      });
      expect(statSync(join(r.mirror, 'Docs', n)).size).toBe(0);
    }
    expect(notices.filter((m) => m.includes('does not serve file content'))).toHaveLength(1);
  }, 60_000);

  it('a downloaded file the user deletes is a delete of the object, as for a placeholder', async () => {
    const { r, ids } = await contentRig({ 'gone.bin': bytes(40_000, 11) });
    await r.engine.download(ids['gone.bin']!);
    r.mark();
    rmSync(join(r.mirror, 'Docs', 'gone.bin'));
    await waitFor(() => r.count('DELETE') === 1, 'the delete sent');
    await waitFor(() => r.svc.admin.get(ids['gone.bin']!) === undefined, 'gone on the NAS');
  }, 60_000);

  it('`nas-mirror get` and `open` have the running engine download, then open with the opener', async () => {
    const data = bytes(300_000, 12);
    const { r } = await contentRig({ 'cli.bin': data, 'open.txt': bytes(5_000, 13) });
    const ROOT = resolve(import.meta.dirname, '../../..');
    const tmp = mkdtempSync(join(tmpdir(), 'nm-opener-'));
    const record = join(tmp, 'opened');
    const opener = join(tmp, 'opener.sh');
    writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > '${record}'\n`);
    chmodSync(opener, 0o755);
    const cli = async (...args: string[]): Promise<string> =>
      (
        await promisify(execFile)(process.execPath, [join(ROOT, 'bin/nas-mirror.js'), ...args], {
          cwd: ROOT,
          env: { ...process.env, NAS_MIRROR_OPENER: opener },
        })
      ).stdout;
    r.engine.core.local.setMeta('mirrorDir', r.mirror); // as \`run\` and the app record it
    r.mark();
    const file = join(r.mirror, 'Docs', 'cli.bin');
    expect((await cli('get', 'Docs/cli.bin', '--state', r.state)).trim()).toBe(file);
    expect(sha(readFileSync(file))).toBe(sha(data));
    expect(existsSync(record)).toBe(false); // get only downloads
    // open: a path inside the mirror folder, downloaded, then handed to the opener
    const other = join(r.mirror, 'Docs', 'open.txt');
    expect((await cli('open', other, '--state', r.state)).trim()).toBe(other);
    await waitFor(() => existsSync(record) && readFileSync(record, 'utf8') === other, 'the opener ran with the path');
    expect(statSync(other).size).toBe(5_000);
    expect(r.count('POST') + r.count('DELETE')).toBe(0);
    // not a file of the mirror: said, exit 1
    const bad = await promisify(execFile)(process.execPath, [join(ROOT, 'bin/nas-mirror.js'), 'get', 'Docs/nope.bin', '--state', r.state], {
      cwd: ROOT,
    }).catch((e: { code: number; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringContaining('is not a file of the mirror') });
    rmSync(tmp, { recursive: true, force: true });
  }, 60_000);
});
