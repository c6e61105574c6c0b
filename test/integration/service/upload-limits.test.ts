/**
 * The limits of uploads (content.md): a disk without room answers 507 and keeps nothing of the
 * failed part (the service writes through a disk that fills up: `diskRoom`), and unfinished
 * uploads untouched for the configured age are removed by the background job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestService, type TestService } from '../../../server/testing.js';
import type { ListingPage } from '../../../app/model/remote-object.js';
import { waitFor } from '../../support/wait.js';
import { call, idOf, multipart, testBytes } from './content-http.js';
import { client } from './http.js';

function helpers(svc: TestService, token: string) {
  const api = (method: string, path: string, body?: Uint8Array | string, headers?: Record<string, string>) =>
    call(svc.baseUrl, token, method, `/sdk/v2${path}`, { body, headers });
  const create = async (name: string, parentID: string, data?: Buffer) => {
    const { body, contentType } = multipart('node', { name, parentID }, data);
    return api('POST', '/files/resumable?done=false', body, { 'Content-Type': contentType });
  };
  const offsetOf = async (id: string) => ((await api('GET', `/files/${id}/resumable`)).json as { offset?: number }).offset;
  const partSize = (id: string): number | undefined => {
    const file = svc.service.store.db
      .prepare('SELECT u.file FROM uploads u JOIN objects o ON o.row = u.row WHERE o.id = ?')
      .pluck()
      .get(id) as string | undefined;
    const p = join(svc.dataDir, 'content', '.partial', `${file ?? ''}.part`);
    return file !== undefined && existsSync(p) ? statSync(p).size : undefined;
  };
  return { api, create, offsetOf, partSize };
}

describe('a disk without room', () => {
  let svc: TestService;
  let h: ReturnType<typeof helpers>;
  beforeAll(async () => {
    svc = await startTestService({ diskRoom: 100_000 });
    h = helpers(svc, svc.token());
  });
  afterAll(async () => {
    await svc.stop();
  });

  it('a PUT past the room is 507; nothing of that part is kept; with room again the upload resumes', async () => {
    const data = testBytes(150_000, 11);
    const made = await h.create('big.bin', 'root');
    const id = idOf(made.headers.get('location'));
    expect((await h.api('PUT', `/files/${id}/resumable/content?offset=0`, data.subarray(0, 60_000))).status).toBe(204);
    const full = await h.api('PUT', `/files/${id}/resumable/content?offset=60000&done=true`, data.subarray(60_000));
    expect(full.status).toBe(507);
    expect(full.json).toMatchObject({ message: 'Insufficient Storage' });
    expect(svc.disk!.room()).toBe(0); // the disk took 40,000 bytes of the part before it filled up...
    expect(await h.offsetOf(id)).toBe(60_000); // ...and none of them stay
    expect(h.partSize(id)).toBe(60_000);
    expect(svc.admin.get(id)).toMatchObject({ size: 60_000, resumable: true });
    expect((await h.api('GET', `/files/${id}/content`)).status).toBe(409);
    svc.disk!.setRoom(1_000_000);
    expect((await h.api('PUT', `/files/${id}/resumable/content?offset=60000&done=true`, data.subarray(60_000))).status).toBe(204);
    expect((await h.api('GET', `/files/${id}/content`)).body.equals(data)).toBe(true);
  });

  it('a create whose content part does not fit leaves nothing; a new version that does not fit leaves the old content', async () => {
    const folder = svc.admin.createFolder('root', 'Full');
    const old = svc.admin.createFile(folder.id, 'keep.txt', { content: 'the old content' });
    const partsBefore = readdirSync(join(svc.dataDir, 'content', '.partial')).length;
    svc.disk!.setRoom(1000);
    const made = await h.create('toolarge.bin', folder.id, testBytes(5000));
    expect(made.status).toBe(507);
    expect(((await client(svc.baseUrl, svc.token()).list(folder.id)).body as ListingPage).files.map((f) => f.name)).toEqual(['keep.txt']);
    expect(readdirSync(join(svc.dataDir, 'content', '.partial')).length).toBe(partsBefore);
    svc.disk!.setRoom(1000);
    const { body, contentType } = multipart('go', {}, testBytes(5000));
    const headers = { 'Content-Type': contentType };
    const version = await h.api('POST', `/files/${old.id}/resumable?truncate=true&offset=0&done=true`, body, headers);
    expect(version.status).toBe(507);
    expect((await h.api('GET', `/files/${old.id}/content`)).body.toString()).toBe('the old content');
    expect(await h.offsetOf(old.id)).toBe(0);
    expect(svc.admin.get(old.id)).toMatchObject({ size: 15, eTag: old.eTag });
  });
});

describe('unfinished uploads are removed when untouched', () => {
  let svc: TestService;
  let h: ReturnType<typeof helpers>;
  beforeAll(async () => {
    svc = await startTestService({ uploadTtlMs: 300 });
    h = helpers(svc, svc.token());
  });
  afterAll(async () => {
    await svc.stop();
  });

  it('a new file goes (its folder eTag moves); a new version is forgotten and the old content stays', async () => {
    const folder = svc.admin.createFolder('root', 'Stale');
    const made = await h.create('stale.bin', folder.id, Buffer.from('some bytes'));
    const id = idOf(made.headers.get('location'));
    const etag = svc.admin.get(folder.id)!.eTag;
    const kept = svc.admin.createFile(folder.id, 'kept.txt', { content: 'kept' });
    expect((await h.api('POST', `/files/${kept.id}/resumable?truncate=true&offset=0`)).status).toBe(201);
    expect((await h.api('PUT', `/files/${kept.id}/resumable/content?offset=0`, 'replacement')).status).toBe(204);
    await waitFor(() => svc.admin.get(id) === undefined, 'the stale new file removed', 20_000);
    const forgotten = async () => (await h.api('GET', `/files/${kept.id}/resumable`)).status === 409;
    await waitFor(forgotten, 'the stale new version forgotten', 20_000);
    expect(svc.admin.get(folder.id)!.eTag).not.toBe(etag);
    expect(((await client(svc.baseUrl, svc.token()).list(folder.id)).body as ListingPage).files.map((f) => f.name)).toEqual(['kept.txt']);
    expect((await h.api('GET', `/files/${kept.id}/content`)).body.toString()).toBe('kept');
    expect(readdirSync(join(svc.dataDir, 'content', '.partial'))).toEqual([]);
  });
});

describe('the age counts from the last touch', () => {
  let svc: TestService;
  let h: ReturnType<typeof helpers>;
  beforeAll(async () => {
    svc = await startTestService(); // default age, 24 h: the job never fires here; expire() is called directly
    h = helpers(svc, svc.token());
  });
  afterAll(async () => {
    await svc.stop();
  });

  it('expire(age) removes uploads untouched longer than the age and keeps those touched since', async () => {
    const a = idOf((await h.create('a.bin', 'root')).headers.get('location'));
    const touched = (id: string) =>
      svc.service.store.db
        .prepare('SELECT u.touched FROM uploads u JOIN objects o ON o.row = u.row WHERE o.id = ?')
        .pluck()
        .get(id) as number;
    const tA = touched(a);
    await waitFor(() => Date.now() > tA + 30, 'time passes');
    const b = idOf((await h.create('b.bin', 'root')).headers.get('location'));
    const tB = touched(b);
    await waitFor(() => Date.now() > tB + 50, 'time passes');
    expect((await h.api('PUT', `/files/${a}/resumable/content?offset=0`, 'x')).status).toBe(204); // a is touched again
    expect(touched(a)).toBeGreaterThan(tB + 49);
    expect(svc.service.uploads.expire(Date.now() - tB - 10)).toBe(1); // untouched since b's creation + 10 ms: b only
    expect(svc.admin.get(b)).toBeUndefined();
    expect(svc.admin.get(a)).toMatchObject({ resumable: true, size: 1 });
    expect(svc.service.uploads.expire(24 * 3600_000)).toBe(0);
  });
});
