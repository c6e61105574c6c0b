/**
 * Content across crashes and processes (content.md, Storage): the service killed with -9 in
 * the middle of uploads never shows a partial version and keeps the old content; a version
 * flushed and renamed into place but not yet recorded is recorded at the next start; bytes
 * written past the recorded offset are dropped; orphaned files are swept; `import` keeps
 * each file's content. Every wait is on a condition.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { spawnServiceProcess, startTestService } from '../../../server/testing.js';
import type { ListingPage, RemoteObject } from '../../../app/model/remote-object.js';
import { waitFor } from '../../support/wait.js';
import { call, idOf, multipart, openPut, testBytes } from './content-http.js';
import { checkStore } from './store-check.js';

const dirs: string[] = [];
const tempDir = (prefix: string): string => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const partDir = (data: string) => join(data, 'content', '.partial');
const partSizes = (data: string) => readdirSync(partDir(data)).map((f) => statSync(join(partDir(data), f)).size);
/** The stem of an object's upload, read from the database file (another process may own it). */
function uploadFile(data: string, id: string): string | undefined {
  const db = new Database(join(data, 'service.db'), { readonly: true });
  try {
    return db.prepare('SELECT u.file FROM uploads u JOIN objects o ON o.row = u.row WHERE o.id = ?').pluck().get(id) as string | undefined;
  } finally {
    db.close();
  }
}

describe('kill -9 in the middle of uploads', () => {
  it('never shows a partial version, keeps the old content, and the uploads resume after the restart', async () => {
    const data = tempDir('nas-content-crash-');
    const prep = await startTestService({ dataDir: data });
    const doc = prep.admin.createFile('root', 'doc.txt', { content: 'OLD CONTENT' });
    const token = prep.token();
    await prep.stop();
    let proc = await spawnServiceProcess(data);
    try {
      const api = (method: string, path: string, body?: Uint8Array | string, headers?: Record<string, string>) =>
        call(proc.baseUrl, token, method, `/sdk/v2${path}`, { body, headers });
      // a new version of doc.txt, its PUT cut by the kill mid-body
      const ifMatch = { 'If-Match': doc.eTag };
      const truncate = await api('POST', `/files/${doc.id}/resumable?done=false&truncate=true&offset=0`, undefined, ifMatch);
      expect(truncate.status).toBe(201);
      const next = testBytes(800_000, 21);
      const put = openPut(proc.baseUrl, token, `/sdk/v2/files/${doc.id}/resumable/content?offset=0&done=true`, next.length);
      put.req.write(next.subarray(0, 300_000));
      // a new file: 100 bytes recorded, then a PUT cut by the kill mid-body
      const { body, contentType } = multipart('go', { name: 'fresh.bin', parentID: 'root' });
      const created = await api('POST', '/files/resumable?resolveNameConflict=1&done=false', body, { 'Content-Type': contentType });
      const fresh = idOf(created.headers.get('location'));
      const freshData = testBytes(500_000, 22);
      expect((await api('PUT', `/files/${fresh}/resumable/content?offset=0`, freshData.subarray(0, 100))).status).toBe(204);
      const put2 = openPut(proc.baseUrl, token, `/sdk/v2/files/${fresh}/resumable/content?offset=100&done=true`, freshData.length - 100);
      put2.req.write(freshData.subarray(100, 200_000));
      await waitFor(() => partSizes(data).filter((n) => n > 100).length === 2, 'both PUTs writing to disk', 30_000);
      expect((await api('GET', `/files/${doc.id}/content`)).body.toString()).toBe('OLD CONTENT');
      await proc.kill9();
      await Promise.all([put.done, put2.done]);
      proc = await spawnServiceProcess(data);
      const after = (method: string, path: string, b?: Uint8Array | string) =>
        call(proc.baseUrl, token, method, `/sdk/v2${path}`, { body: b });
      const old = await after('GET', `/files/${doc.id}/content`);
      expect([old.status, old.body.toString(), old.headers.get('etag')]).toEqual([200, 'OLD CONTENT', doc.eTag]);
      const freshRead = await after('GET', `/files/${fresh}/content`);
      expect(freshRead.status).toBe(409);
      const listed = ((await after('GET', '/filesSearch/parents?ids=root')).json as ListingPage).files.find((f) => f.id === fresh)!;
      expect(listed).toMatchObject({ resumable: true, size: 100 });
      // the offsets are what was recorded; the temporary files hold exactly that
      const docOffset = ((await after('GET', `/files/${doc.id}/resumable`)).json as { offset: number }).offset;
      expect(docOffset).toBe(0);
      expect(((await after('GET', `/files/${fresh}/resumable`)).json as { offset: number }).offset).toBe(100);
      expect(statSync(join(partDir(data), `${uploadFile(data, fresh)!}.part`)).size).toBe(100);
      // resume both
      expect((await after('PUT', `/files/${doc.id}/resumable/content?offset=0&done=true`, next)).status).toBe(204);
      expect((await after('PUT', `/files/${fresh}/resumable/content?offset=100&done=true`, freshData.subarray(100))).status).toBe(204);
      expect((await after('GET', `/files/${doc.id}/content`)).body.equals(next)).toBe(true);
      expect((await after('GET', `/files/${fresh}/content`)).body.equals(freshData)).toBe(true);
    } finally {
      await proc.stop();
    }
    expect(checkStore(data)).toEqual([]);
  }, 120_000);
});

describe('start-up recovery', () => {
  it('records a version renamed into place but not recorded, drops bytes past the offset, sweeps old orphans', async () => {
    const data = tempDir('nas-content-recover-');
    let svc = await startTestService({ dataDir: data });
    const token = svc.token();
    const api = (method: string, path: string, body?: Uint8Array | string) => call(svc.baseUrl, token, method, `/sdk/v2${path}`, { body });
    const a = svc.admin.createFile('root', 'a.txt', { content: 'old a' });
    const b = svc.admin.createFile('root', 'b.txt', { content: 'old b' });
    for (const f of [a, b]) {
      expect((await api('POST', `/files/${f.id}/resumable?truncate=true&offset=0`)).status).toBe(201);
      expect((await api('PUT', `/files/${f.id}/resumable/content?offset=0`, `new ${f.name}`)).status).toBe(204);
    }
    await svc.stop({ keepData: true });
    // a: the service flushed and renamed the version into place, then died before recording it
    const stemA = uploadFile(data, a.id)!;
    mkdirSync(join(data, 'content', stemA.slice(0, 2)), { recursive: true });
    renameSync(join(partDir(data), `${stemA}.part`), join(data, 'content', stemA.slice(0, 2), stemA));
    // b: bytes reached the file after the last recorded offset
    appendFileSync(join(partDir(data), `${uploadFile(data, b.id)!}.part`), 'GARBAGE');
    // orphans: an old one (swept) and a young one (kept: an import in another process may be placing it)
    const oldOrphan = join(data, 'content', 'ab', 'ab0000000000000000000000');
    const youngOrphan = join(data, 'content', 'ab', 'ab1111111111111111111111');
    mkdirSync(join(data, 'content', 'ab'), { recursive: true });
    writeFileSync(oldOrphan, 'orphan');
    writeFileSync(youngOrphan, 'young');
    const hourAgo = new Date(Date.now() - 3600_000);
    utimesSync(oldOrphan, hourAgo, hourAgo);

    svc = await startTestService({ dataDir: data });
    try {
      const api2 = (method: string, path: string, body?: Uint8Array | string) =>
        call(svc.baseUrl, token, method, `/sdk/v2${path}`, { body });
      const ra = await api2('GET', `/files/${a.id}/content`);
      expect([ra.status, ra.body.toString()]).toEqual([200, 'new a.txt']);
      expect(ra.headers.get('etag')).not.toBe(a.eTag);
      expect((await api2('GET', `/files/${a.id}/resumable`)).status).toBe(409);
      expect((await api2('GET', `/files/${b.id}/content`)).body.toString()).toBe('old b');
      expect(((await api2('GET', `/files/${b.id}/resumable`)).json as { offset: number }).offset).toBe(9);
      expect((await api2('PUT', `/files/${b.id}/resumable/content?offset=9&done=true`, '!')).status).toBe(204);
      expect((await api2('GET', `/files/${b.id}/content`)).body.toString()).toBe('new b.txt!');
      expect([existsSync(oldOrphan), existsSync(youngOrphan)]).toEqual([false, true]);
    } finally {
      await svc.stop();
    }
    expect(checkStore(data)).toEqual([]);
  });
});

describe('import', () => {
  it("copies each file's content into the data folder; a changed file is copied again", async () => {
    const src = tempDir('nas-content-src-');
    const data = tempDir('nas-content-data-');
    mkdirSync(join(src, 'Docs'));
    const big = testBytes(300_000, 31);
    writeFileSync(join(src, 'Docs', 'big.bin'), big);
    writeFileSync(join(src, 'Docs', 'notes.txt'), 'hello\n');
    writeFileSync(join(src, 'empty.txt'), '');
    const run = (args: string[]) => spawnSync(process.execPath, ['bin/nas-service.js', ...args], { encoding: 'utf8' });
    expect(run(['user', 'add', 'demo', '--data', data]).status).toBe(0);
    const first = run(['import', src, '--user', 'demo', '--data', data]);
    expect(first.status, first.stderr).toBe(0);
    writeFileSync(join(src, 'Docs', 'notes.txt'), 'hello again\n'); // the source may change afterwards: the copy stays
    let svc = await startTestService({ dataDir: data });
    try {
      const t = svc.token();
      const list = async (id: string) =>
        ((await call(svc.baseUrl, t, 'GET', `/sdk/v2/filesSearch/parents?ids=${id}`)).json as ListingPage).files;
      const docs = (await list('root')).find((f) => f.name === 'Docs')!;
      const byName = new Map((await list(docs.id)).map((f): [string, RemoteObject] => [f.name, f]));
      const read = async (o: RemoteObject) => call(svc.baseUrl, t, 'GET', `/sdk/v2/files/${o.id}/content`);
      expect((await read(byName.get('big.bin')!)).body.equals(big)).toBe(true);
      expect((await read(byName.get('notes.txt')!)).body.toString()).toBe('hello\n');
      const empty = (await list('root')).find((f) => f.name === 'empty.txt')!;
      expect([(await read(empty)).status, (await read(empty)).body.length]).toEqual([200, 0]);
      await svc.stop({ keepData: true });
      const again = run(['import', src, '--user', 'demo', '--data', data]);
      expect(again.stdout).toMatch(/imported 0 new objects \(1 updated, 3 unchanged\)/);
      svc = await startTestService({ dataDir: data });
      const t2 = svc.token();
      const pan = await call(svc.baseUrl, t2, 'GET', `/sdk/v2/filesSearch/parentAndName?parentID=${docs.id}&name=notes.txt`);
      const notes = pan.json as RemoteObject;
      const r = await call(svc.baseUrl, t2, 'GET', `/sdk/v2/files/${notes.id}/content`);
      expect([r.body.toString(), notes.size]).toEqual(['hello again\n', 12]);
      const stored = readdirSync(join(data, 'content'))
        .filter((d) => d !== '.partial')
        .flatMap((d) => readdirSync(join(data, 'content', d)));
      expect(stored).toHaveLength(3); // the old copy of notes.txt is gone
    } finally {
      await svc.stop();
    }
    expect(checkStore(data)).toEqual([]);
  }, 60_000);
});
