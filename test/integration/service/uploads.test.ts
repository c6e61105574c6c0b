/**
 * Resumable uploads (content.md): creating a file as the Go, Node and Python clients do,
 * PUTs at the received offset (409 with the offset otherwise), the state of an unfinished
 * upload (listed `resumable: true` with its size so far, not in text search, content 409),
 * completion (size final, eTag moves), resuming after a cut-off PUT, one request at a time,
 * replacing content (If-Match, readers see the old bytes until done), and content removed
 * with its file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestService, type TestService } from '../../../server/testing.js';
import type { ListingPage, RemoteObject, SearchPage } from '../../../app/model/remote-object.js';
import { waitFor } from '../../support/wait.js';
import { call, idOf, multipart, openPut, testBytes, type ClientStyle } from './content-http.js';
import { client } from './http.js';

let svc: TestService;
let token: string;
beforeAll(async () => {
  svc = await startTestService();
  token = svc.token();
  svc.admin.addUser('bob');
});
afterAll(async () => {
  await svc.stop();
});

const api = (method: string, path: string, body?: Uint8Array | string, headers?: Record<string, string>) =>
  call(svc.baseUrl, token, method, `/sdk/v2${path}`, { body, headers });
const content = async (id: string) => api('GET', `/files/${id}/content`);
const offsetOf = async (id: string) => ((await api('GET', `/files/${id}/resumable`)).json as { offset: number }).offset;

async function startUpload(style: ClientStyle, meta: Record<string, unknown>, data?: Buffer, query = '?resolveNameConflict=0&done=false') {
  const { body, contentType } = multipart(style, meta, data);
  const r = await api('POST', `/files/resumable${query}`, body, { 'Content-Type': contentType });
  const location = r.headers.get('location');
  return { status: r.status, json: r.json, location, id: r.status === 201 ? idOf(location) : '' };
}

/** The unfinished-upload files in the data folder. */
const partials = () => readdirSync(join(svc.dataDir, 'content', '.partial'));
/** The stored content files in the data folder. */
const stored = () =>
  readdirSync(join(svc.dataDir, 'content'))
    .filter((d) => d !== '.partial')
    .flatMap((d) => readdirSync(join(svc.dataDir, 'content', d)));
/** Bytes in the temporary file of an object's upload (white box: its name is in the uploads table). */
function partSize(id: string): number {
  const db = svc.service.store.db;
  const file = db.prepare('SELECT u.file FROM uploads u JOIN objects o ON o.row = u.row WHERE o.id = ?').pluck().get(id) as
    string | undefined;
  const p = file === undefined ? '' : join(svc.dataDir, 'content', '.partial', `${file}.part`);
  return file !== undefined && existsSync(p) ? statSync(p).size : 0;
}

describe('creating a file with a resumable upload', () => {
  it('Go style: open (no content part), PUT at offsets, close with done=true and no offset', async () => {
    const folder = svc.admin.createFolder('root', 'GoUploads');
    const data = testBytes(150_000, 2);
    const up = await startUpload('go', { name: 'movie.mp4', parentID: folder.id, mTime: '2019-12-12T12:12:12+02:00' });
    expect(up.status).toBe(201);
    expect(up.location).toBe(`/sdk/v2/files/${up.id}`);
    const first = svc.admin.get(up.id)!;
    expect(first).toMatchObject({ name: 'movie.mp4', size: 0, mimeType: 'video/mp4', mTime: '2019-12-12T10:12:12Z', resumable: true });
    expect(up.json).toEqual(first); // the body is the new object [ours]
    let etag = first.eTag;
    for (const [s, e] of [
      [0, 65_536],
      [65_536, 100_000],
      [100_000, 150_000],
    ] as const) {
      // the FUSE client appends the Location to its base URL; curl sends form-encoded PUTs
      const headers = { 'Content-Type': 'application/x-www-form-urlencoded' };
      const url = `${up.location!}/resumable/content?offset=${s}&done=false`;
      const r = await call(svc.baseUrl, token, 'PUT', url, { body: data.subarray(s, e), headers });
      expect(r.status).toBe(204);
      const now = svc.admin.get(up.id)!;
      expect([now.size, now.eTag === etag]).toEqual([e, false]); // the listed size (and so the eTag) follows the bytes
      etag = now.eTag;
      expect(await offsetOf(up.id)).toBe(e);
    }
    expect((await content(up.id)).status).toBe(409);
    const partsBefore = partials().length;
    const close = await call(svc.baseUrl, token, 'PUT', `${up.location!}/resumable/content?done=true`);
    expect(close.status).toBe(204);
    const done = svc.admin.get(up.id)!;
    expect(done.resumable).toBeUndefined();
    expect(done.size).toBe(150_000);
    expect(done.eTag).not.toBe(etag);
    expect(close.headers.get('etag')).toBe(done.eTag);
    const r = await content(up.id);
    expect([r.status, r.body.equals(data), r.headers.get('etag')]).toEqual([200, true, done.eTag]);
    expect((await api('GET', `/files/${up.id}/resumable`)).status).toBe(409); // nothing left to resume
    expect(partials().length).toBe(partsBefore - 1); // renamed into place
  });

  it('Node and Python style: the content in the create body, then done', async () => {
    for (const style of ['node', 'python'] as const) {
      const data = testBytes(40_000 + style.length, 3);
      // bytes that look like a delimiter start inside the content must not end the part
      data.write('\r\n--5b1a8c37-2f0e-4c61\n--fo', 1000);
      const up = await startUpload(style, { name: `${style}.bin`, parentID: 'root' }, data, '?resolveNameConflict=1&done=false');
      expect(up.status, style).toBe(201);
      expect(await offsetOf(up.id)).toBe(data.length);
      expect(svc.admin.get(up.id)).toMatchObject({ size: data.length, resumable: true });
      const close = await api('PUT', `/files/${up.id}/resumable/content?offset=${data.length}&done=true`);
      expect(close.status, style).toBe(204);
      expect((await content(up.id)).body.equals(data), style).toBe(true);
    }
    // the Python CLI's own body: metadata and an empty second part, then the bytes in one PUT without offset
    const py = await startUpload('python', { name: 'cli.txt', parentID: 'root' }, undefined, '?resolveNameConflict=1&done=false');
    expect(py.status).toBe(201);
    const octets = { 'Content-Type': 'application/octet-stream' };
    expect((await api('PUT', `/files/${py.id}/resumable/content`, 'from python', octets)).status).toBe(204);
    expect((await api('PUT', `/files/${py.id}/resumable/content?done=true`)).status).toBe(204);
    expect((await content(py.id)).body.toString()).toBe('from python');
    // done=true on the create: one request makes a complete file
    const one = await startUpload('node', { name: 'one-shot.txt', parentID: 'root' }, Buffer.from('in one go'), '?done=true');
    const r = await content(one.id);
    expect([r.status, r.body.toString(), r.headers.get('content-type')]).toEqual([200, 'in one go', 'text/plain; charset=utf-8']);
    // plain JSON metadata, no content part: an empty upload completed by an empty PUT
    const meta = JSON.stringify({ name: 'empty.dat', parentID: 'root', mimeType: 'application/x-custom' });
    const json = await api('POST', '/files/resumable', meta, { 'Content-Type': 'application/json' });
    expect(json.status).toBe(201);
    const id = idOf(json.headers.get('location'));
    expect((await api('PUT', `/files/${id}/resumable/content?offset=0&done=true`)).status).toBe(204);
    const empty = await content(id);
    expect([empty.status, empty.body.length, empty.headers.get('content-type')]).toEqual([200, 0, 'application/x-custom']);
  });

  it('resolveNameConflict numbers a taken file name before its extension; without it 409', async () => {
    const folder = svc.admin.createFolder('root', 'Dupes');
    svc.admin.createFile(folder.id, 'IMG_1.JPG');
    const a = await startUpload('go', { name: 'IMG_1.JPG', parentID: folder.id }, undefined, '?resolveNameConflict=true&done=false');
    const b = await startUpload('node', { name: 'IMG_1.JPG', parentID: folder.id }, undefined, '?resolveNameConflict=1&done=false');
    expect([svc.admin.get(a.id)!.name, svc.admin.get(b.id)!.name]).toEqual(['IMG_1 (1).JPG', 'IMG_1 (2).JPG']);
    expect(svc.admin.get(a.id)!.mimeType).toBe('image/jpeg');
    const clash = await startUpload('go', { name: 'IMG_1.JPG', parentID: folder.id });
    expect(clash.status).toBe(409);
    // an unfinished upload holds its name too
    expect((await startUpload('go', { name: 'IMG_1 (1).JPG', parentID: folder.id })).status).toBe(409);
    const bads = [
      { name: 'a/b', parentID: folder.id },
      { name: 'x', parentID: folder.id, mimeType: 'application/x.service.dir' },
      { name: 'x', parentID: folder.id, mimeType: 'not a type' },
      { parentID: folder.id },
    ];
    for (const meta of bads) expect((await startUpload('go', meta)).status, JSON.stringify(meta)).toBe(400);
  });

  it('a wrong offset is 409 with the received offset; an unfinished upload is listed, not searched, not readable', async () => {
    const folder = svc.admin.createFolder('root', 'Partial');
    const up = await startUpload('go', { name: 'zanzibar-notes.txt', parentID: folder.id });
    expect((await api('PUT', `/files/${up.id}/resumable/content?offset=0`, 'hello ')).status).toBe(204);
    for (const off of [0, 3, 100]) {
      const r = await api('PUT', `/files/${up.id}/resumable/content?offset=${off}`, 'world');
      expect(r.status).toBe(409);
      expect(r.json).toMatchObject({ message: 'Conflict', offset: 6 });
    }
    expect((await api('PUT', `/files/${up.id}/resumable/content?offset=-1`, 'x')).status).toBe(400);
    const c = client(svc.baseUrl, token);
    const listed = ((await c.list(folder.id)).body as ListingPage).files;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: up.id, size: 6, resumable: true });
    expect((await c.get(`/files/${up.id}`)).body).toMatchObject({ resumable: true, size: 6 });
    expect(((await c.pan(folder.id, 'zanzibar-notes.txt')).body as RemoteObject).id).toBe(up.id);
    expect(((await c.search('zanzibar')).body as SearchPage).matches).toEqual([]);
    expect((await content(up.id)).status).toBe(409);
    expect((await api('PUT', `/files/${up.id}/resumable/content?offset=6&done=true`, 'world')).status).toBe(204);
    expect(((await c.search('zanzibar')).body as SearchPage).matches.map((m) => m.file.id)).toEqual([up.id]);
    const after = ((await c.list(folder.id)).body as ListingPage).files[0]!;
    expect(after.size).toBe(11);
    expect((after as RemoteObject & { resumable?: boolean }).resumable).toBeUndefined();
    expect((await content(up.id)).body.toString()).toBe('hello world');
    // a complete file has no upload to append to
    expect((await api('PUT', `/files/${up.id}/resumable/content?offset=11`, 'more')).status).toBe(409);
  });

  it('resumes after a PUT cut off mid-body: the bytes that arrived are kept, the client continues at the offset', async () => {
    const data = testBytes(600_000, 4);
    const up = await startUpload('go', { name: 'cut.bin', parentID: 'root' });
    const put = openPut(svc.baseUrl, token, `/sdk/v2/files/${up.id}/resumable/content?offset=0&done=true`, data.length);
    put.req.write(data.subarray(0, 250_000));
    // while it runs, a second request on the same upload is refused with the offset
    const busy = async () => ((await api('PUT', `/files/${up.id}/resumable/content?offset=999`, 'x')).json as { detail?: string }).detail;
    await waitFor(async () => (await busy())?.includes('in progress') === true, 'the PUT is in progress');
    await waitFor(() => partSize(up.id) > 0, 'bytes on disk');
    put.req.destroy();
    await put.done;
    const recorded = async () => (await offsetOf(up.id)) > 0 && svc.admin.get(up.id)!.size === (await offsetOf(up.id));
    await waitFor(recorded, 'the cut-off PUT recorded');
    const got = await offsetOf(up.id);
    expect(got).toBeLessThanOrEqual(250_000);
    expect(svc.admin.get(up.id)).toMatchObject({ resumable: true, size: got });
    expect((await content(up.id)).status).toBe(409);
    expect((await api('PUT', `/files/${up.id}/resumable/content?offset=${got}&done=true`, data.subarray(got))).status).toBe(204);
    expect((await content(up.id)).body.equals(data)).toBe(true);
  });

  it('needs nas_read_write and WriteFile; an invisible file or folder is 404', async () => {
    const shared = svc.admin.createFolder('root', 'UpShared');
    const bob = svc.token('nas_read_write', 'bob');
    const { body, contentType } = multipart('go', { name: 'b.txt', parentID: shared.id });
    const headers = { 'Content-Type': contentType };
    const post = (tok: string) => call(svc.baseUrl, tok, 'POST', '/sdk/v2/files/resumable', { body, headers });
    expect((await post(bob)).status).toBe(404);
    svc.admin.grant('bob', shared.id, 'ReadFile');
    expect((await post(bob)).status).toBe(403);
    expect((await post(svc.token('nas_read_only'))).status).toBe(403);
    const mine = await startUpload('go', { name: 'mine.txt', parentID: shared.id });
    expect((await call(svc.baseUrl, bob, 'PUT', `/sdk/v2/files/${mine.id}/resumable/content?offset=0`, { body: 'x' })).status).toBe(403);
    expect((await call(svc.baseUrl, bob, 'GET', `/sdk/v2/files/${mine.id}/resumable`)).status).toBe(200);
    svc.admin.grant('bob', shared.id, 'WriteFile');
    expect((await post(bob)).status).toBe(201);
    const finish = await call(svc.baseUrl, bob, 'PUT', `/sdk/v2/files/${mine.id}/resumable/content?offset=0&done=true`, { body: 'x' });
    expect(finish.status).toBe(204);
  });
});

describe("replacing a file's content", () => {
  it('truncate starts a new version; readers see the old bytes until done=true; If-Match stale is 412', async () => {
    const old = testBytes(30_000, 5);
    const f = svc.admin.createFile('root', 'report.pdf', { content: old });
    const path = `/files/${f.id}/resumable?done=false&truncate=true&offset=0`;
    expect((await api('POST', path, undefined, { 'If-Match': '"stale"' })).status).toBe(412);
    expect((await api('POST', `/files/${f.id}/resumable?done=false&offset=0`)).status).toBe(400); // no truncate
    const start = await api('POST', path, undefined, { 'If-Match': f.eTag });
    expect(start.status).toBe(201);
    expect(start.headers.get('location')).toBe(`/sdk/v2/files/${f.id}`);
    const next = testBytes(45_000, 6);
    expect((await api('PUT', `/files/${f.id}/resumable/content?offset=0&done=false`, next.subarray(0, 20_000))).status).toBe(204);
    const during = await content(f.id);
    expect([during.status, during.body.equals(old), during.headers.get('etag')]).toEqual([200, true, f.eTag]);
    expect(svc.admin.get(f.id)).toMatchObject({ size: 30_000, eTag: f.eTag });
    expect(svc.admin.get(f.id)!.resumable).toBeUndefined();
    expect(await offsetOf(f.id)).toBe(20_000);
    const storedBefore = stored().length;
    expect((await api('PUT', `/files/${f.id}/resumable/content?offset=20000&done=true`, next.subarray(20_000))).status).toBe(204);
    const after = await content(f.id);
    const now = svc.admin.get(f.id)!;
    expect([after.body.equals(next), now.size, now.eTag !== f.eTag, after.headers.get('etag')]).toEqual([true, 45_000, true, now.eTag]);
    expect(stored().length).toBe(storedBefore); // the new version's file in, the old one's out
  });

  it('a new version with its bytes and mTime in the body, and done=true in the same request', async () => {
    const f = svc.admin.createFile('root', 'notes.txt', { content: 'old notes' });
    const { body, contentType } = multipart('node', { mTime: '2022-02-02T02:02:02Z' }, 'new notes!');
    const headers = { 'Content-Type': contentType, 'If-Match': f.eTag };
    const r = await api('POST', `/files/${f.id}/resumable?done=true&truncate=true&offset=0`, body, headers);
    expect(r.status).toBe(201);
    expect((await content(f.id)).body.toString()).toBe('new notes!');
    expect(svc.admin.get(f.id)).toMatchObject({ size: 10, mTime: '2022-02-02T02:02:02Z' });
    // truncating a folder or without write access
    expect((await api('POST', `/files/${svc.admin.rootId()}/resumable?truncate=true`)).status).toBe(400);
    expect((await call(svc.baseUrl, svc.token('nas_read_only'), 'POST', `/sdk/v2/files/${f.id}/resumable?truncate=true`)).status).toBe(403);
    // starting again drops what the previous attempt received
    await api('POST', `/files/${f.id}/resumable?truncate=true`);
    await api('PUT', `/files/${f.id}/resumable/content?offset=0`, 'abandoned');
    expect(await offsetOf(f.id)).toBe(9);
    await api('POST', `/files/${f.id}/resumable?truncate=true`);
    expect(await offsetOf(f.id)).toBe(0);
    expect((await content(f.id)).body.toString()).toBe('new notes!');
  });
});

describe('content goes with its file', () => {
  it('a deleted file, an unfinished upload and a folder deleted in the background leave no content files', async () => {
    const folder = svc.admin.createFolder('root', 'Doomed');
    const sub = svc.admin.createFolder(folder.id, 'sub');
    svc.admin.createFile(sub.id, 'a.txt', { content: 'aaa' });
    const single = svc.admin.createFile('root', 'single.txt', { content: 'single' });
    const up = await startUpload('go', { name: 'half.bin', parentID: folder.id });
    await api('PUT', `/files/${up.id}/resumable/content?offset=0`, 'half');
    const before = stored().length;
    const partsBefore = partials().length;
    expect(partSize(up.id)).toBe(4);
    expect((await api('DELETE', `/files/${single.id}`)).status).toBe(204);
    expect(stored().length).toBe(before - 1);
    expect((await api('DELETE', `/files/${folder.id}`)).status).toBe(202);
    await svc.admin.drainDeletes();
    expect(stored().length).toBe(before - 2);
    expect(partials().length).toBe(partsBefore - 1);
  });
});
