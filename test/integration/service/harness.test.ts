import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../server/testing.js';
import { client } from './http.js';
import type { ListingPage, RemoteObject } from '../../../app/model/remote-object.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
});

describe('test harness', () => {
  it('creates objects that the interface returns', async () => {
    const c = client(svc.baseUrl, svc.token());
    const f = svc.admin.createFolder('root', 'Photos');
    const file = svc.admin.createFile(f.id, 'IMG_2041.JPG', { size: 10, image: { cameraMake: 'Canon', width: 4, height: 3 } });
    expect(file.eTag).toBe('"Ag"');
    const page = (await c.list('root')).body as ListingPage;
    expect(page.files.map((o) => o.name)).toEqual(['Photos']);
    expect(page.files[0]!.parentID).toBe(svc.admin.rootId());
    const got = (await c.get(`/files/${file.id}`)).body as RemoteObject;
    expect(got).toMatchObject({ name: 'IMG_2041.JPG', size: 10, extension: '.JPG', mimeType: 'image/jpeg', parentID: f.id });
    expect(svc.requests().filter((r) => r.method === 'GET').length).toBe(2);
    expect(svc.requestCount()).toBe(2);
  });
});
