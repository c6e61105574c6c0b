/**
 * Creating folders (content.md, `POST files`): multipart/related bodies as the Go, Node and
 * Python clients send them and plain JSON; 201 with the id in `Location`; resolveNameConflict;
 * the parent's eTag moves; the rename rules for names; permissions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../server/testing.js';
import type { ListingPage, RemoteObject } from '../../../app/model/remote-object.js';
import { call, idOf, multipart, type ClientStyle } from './content-http.js';
import { client } from './http.js';

const DIR = 'application/x.service.dir';
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

async function mkdir(style: ClientStyle | 'json', meta: Record<string, unknown>, query = '', tok = token, prefix = '/sdk/v2') {
  if (style === 'json') {
    const headers = { 'Content-Type': 'application/json' };
    return call(svc.baseUrl, tok, 'POST', `${prefix}/files${query}`, { body: JSON.stringify(meta), headers });
  }
  const { body, contentType } = multipart(style, meta);
  return call(svc.baseUrl, tok, 'POST', `${prefix}/files${query}`, { body, headers: { 'Content-Type': contentType } });
}

describe('POST files (create a folder)', () => {
  it('creates a folder from each client style and plain JSON; 201, the id in Location, the folder as the body, the parent eTag moves', async () => {
    const c = client(svc.baseUrl, token);
    const parent = svc.admin.createFolder('root', 'Made');
    let etag = parent.eTag;
    const mTime = '2021-03-04T05:06:07Z';
    for (const style of ['go', 'node', 'python', 'json'] as const) {
      const r = await mkdir(style, { name: `by-${style}`, parentID: parent.id, mimeType: DIR, mTime });
      expect(r.status, style).toBe(201);
      expect(r.headers.get('location'), style).toMatch(/^\/sdk\/v2\/files\/[A-Za-z0-9_-]+$/);
      const made = (await c.get(`/files/${idOf(r.headers.get('location'))}`)).body as RemoteObject;
      expect(made, style).toMatchObject({ name: `by-${style}`, parentID: parent.id, mimeType: DIR, childCount: 0, mTime, eTag: '"Ag"' });
      // the body is the new folder, as a read of it answers [ours]
      expect(r.json, style).toEqual(made);
      const now = svc.admin.get(parent.id)!;
      expect(now.eTag, style).not.toBe(etag);
      etag = now.eTag;
    }
    expect(((await c.list(parent.id)).body as ListingPage).files.map((f) => f.name)).toEqual(['by-go', 'by-json', 'by-node', 'by-python']);
    // root alias, /v2 prefix, a Location joined to a base URL ending in "/"
    const top = await mkdir('go', { name: 'TopLevel', parentID: 'root', mimeType: DIR }, '', token, '/v2');
    expect(top.status).toBe(201);
    const viaDoubleSlash = await call(svc.baseUrl, token, 'GET', `/${top.headers.get('location')!}`);
    expect((viaDoubleSlash.json as RemoteObject).parentID).toBe(svc.admin.rootId());
  });

  it('resolveNameConflict=true|1 picks name (1), name (2)...; without it a taken name is 409', async () => {
    const parent = svc.admin.createFolder('root', 'Clash');
    svc.admin.createFolder(parent.id, 'Photos');
    const names: string[] = [];
    for (const q of ['?resolveNameConflict=true', '?resolveNameConflict=1', '?resolveNameConflict=true;']) {
      const r = await mkdir('go', { name: 'Photos', parentID: parent.id, mimeType: DIR }, q);
      expect(r.status, q).toBe(201);
      names.push(svc.admin.get(idOf(r.headers.get('location')))!.name);
    }
    expect(names).toEqual(['Photos (1)', 'Photos (2)', 'Photos (3)']);
    for (const q of ['', '?resolveNameConflict=false', '?resolveNameConflict=0']) {
      const r = await mkdir('node', { name: 'Photos', parentID: parent.id, mimeType: DIR }, q);
      expect([r.status, (r.json as { message: string }).message], q).toEqual([409, 'Conflict']);
    }
    // a folder name with a dot keeps it whole: "v1.2 (1)"
    svc.admin.createFolder(parent.id, 'v1.2');
    const dotted = await mkdir('go', { name: 'v1.2', parentID: parent.id, mimeType: DIR }, '?resolveNameConflict=1');
    expect(svc.admin.get(idOf(dotted.headers.get('location')))!.name).toBe('v1.2 (1)');
  });

  it('validates like a rename: 400 for bad names, bodies and parents; 404 for unknown parents', async () => {
    const parent = svc.admin.createFolder('root', 'Valid');
    const file = svc.admin.createFile(parent.id, 'f.txt');
    const bads: [Record<string, unknown>, string][] = [
      [{ name: '', parentID: parent.id, mimeType: DIR }, 'empty'],
      [{ name: 'a/b', parentID: parent.id, mimeType: DIR }, '"/"'],
      [{ name: '..', parentID: parent.id, mimeType: DIR }, '".."'],
      [{ name: 'x'.repeat(256), parentID: parent.id, mimeType: DIR }, '255'],
      [{ name: 'n\u0000', parentID: parent.id, mimeType: DIR }, 'NUL'],
      [{ parentID: parent.id, mimeType: DIR }, 'name'],
      [{ name: 'ok', mimeType: DIR }, 'parentID'],
      [{ name: 'ok', parentID: parent.id }, 'mimeType'],
      [{ name: 'ok', parentID: parent.id, mimeType: 'text/plain' }, 'mimeType'],
      [{ name: 'ok', parentID: file.id, mimeType: DIR }, 'not a folder'],
      [{ name: 'ok', parentID: parent.id, mimeType: DIR, mTime: 'yesterday' }, 'mTime'],
    ];
    for (const [meta, words] of bads) {
      const r = await mkdir('go', meta);
      expect(r.status, JSON.stringify(meta)).toBe(400);
      expect((r.json as { message: string }).message, JSON.stringify(meta)).toContain(words);
    }
    const related = { 'Content-Type': 'multipart/related; boundary=B' };
    const notJson = await call(svc.baseUrl, token, 'POST', '/sdk/v2/files', { body: '--B\r\n\r\nnot json\r\n--B--', headers: related });
    expect(notJson.status).toBe(400);
    const bare = { 'Content-Type': 'multipart/related' };
    const noBoundary = await call(svc.baseUrl, token, 'POST', '/sdk/v2/files', { body: '{}', headers: bare });
    expect(noBoundary.status).toBe(400);
    expect((await mkdir('go', { name: 'ok', parentID: 'nope', mimeType: DIR })).status).toBe(404);
    expect(((await client(svc.baseUrl, token).list(parent.id)).body as ListingPage).files.map((f) => f.name)).toEqual(['f.txt']);
  });

  it('needs nas_read_write and WriteFile on the parent; an invisible parent is 404', async () => {
    const shared = svc.admin.createFolder('root', 'ForBob');
    const bob = svc.token('nas_read_write', 'bob');
    expect((await mkdir('go', { name: 'x', parentID: shared.id, mimeType: DIR }, '', bob)).status).toBe(404);
    svc.admin.grant('bob', shared.id, 'ReadFile');
    expect((await mkdir('go', { name: 'x', parentID: shared.id, mimeType: DIR }, '', bob)).status).toBe(403);
    svc.admin.grant('bob', shared.id, 'WriteFile');
    expect((await mkdir('go', { name: 'x', parentID: shared.id, mimeType: DIR }, '', bob)).status).toBe(201);
    const badToken = svc.token('nas_read_write', 'bob').replace(/.$/, '?');
    expect((await mkdir('go', { name: 'y', parentID: shared.id, mimeType: DIR }, '', badToken)).status).toBe(401);
    expect((await mkdir('go', { name: 'y', parentID: 'root', mimeType: DIR }, '', svc.token('nas_read_only'))).status).toBe(403);
  });
});
