/** Two users: own trees, grants inherited from parents, scopes; 404 never leaks, 403 when readable. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../server/testing.js';
import { client } from './http.js';
import type { ListingPage, RemoteObject, SearchPage } from '../../../app/model/remote-object.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  svc.admin.addUser('bob');
});
afterAll(async () => {
  await svc.stop();
});

describe('permissions across two users', () => {
  it('each user sees only their tree and what is granted, with inheritance', async () => {
    const demo = client(svc.baseUrl, svc.token());
    const bob = client(svc.baseUrl, svc.token('nas_read_write', 'bob'));
    const shared = svc.admin.createFolder('root', 'Shared');
    const sub = svc.admin.createFolder(shared.id, 'sub');
    const file = svc.admin.createFile(sub.id, 'zebra-secret.txt');
    const top = svc.admin.createFile(shared.id, 'zebra-top.txt');
    const bobRoot = svc.admin.rootId('bob');
    const bobFile = svc.admin.createFile(bobRoot, 'bob-own.txt'); // parent given by real id
    expect((await bob.get('/files/root')).body).toMatchObject({ id: bobRoot, name: 'bob' });
    // nothing of demo's leaks to bob
    for (const r of [
      await bob.get(`/files/${file.id}`),
      await bob.list(shared.id),
      await bob.pan(shared.id, 'sub'),
      await bob.patch(file.id, { name: 'x' }),
      await bob.del(file.id),
    ]) {
      expect(r.status).toBe(404);
    }
    expect(((await bob.search('zebra')).body as SearchPage).matches).toEqual([]);
    expect((await demo.get(`/files/${bobFile.id}`)).status).toBe(404);
    expect((await demo.patch(file.id, { parentID: bobRoot })).status).toBe(404);

    // ReadFile on Shared: bob reads everything below, writes nothing
    svc.admin.grant('bob', shared.id, 'ReadFile');
    expect(((await bob.get(`/files/${file.id}`)).body as RemoteObject).name).toBe('zebra-secret.txt');
    expect(((await bob.list(sub.id)).body as ListingPage).files.map((f) => f.id)).toEqual([file.id]);
    expect(((await bob.search('zebra')).body as SearchPage).matches.map((m) => m.file.id).sort()).toEqual([file.id, top.id].sort());
    expect((await bob.patch(file.id, { name: 'x.txt' })).status).toBe(403);
    expect((await bob.del(file.id)).status).toBe(403);
    expect((await bob.del(shared.id)).status).toBe(403);

    // WriteFile on sub: bob renames inside it; moving out needs write on the target too
    svc.admin.grant('bob', sub.id, 'WriteFile');
    expect((await bob.patch(file.id, { name: 'zebra-renamed.txt' })).status).toBe(204);
    expect((await bob.patch(file.id, { parentID: shared.id })).status).toBe(403);
    expect((await bob.patch(top.id, { parentID: sub.id })).status).toBe(403); // no write on the object
    const ro = client(svc.baseUrl, svc.token('nas_read_only', 'bob'));
    expect((await ro.patch(file.id, { name: 'ro.txt' })).status).toBe(403);
    // into bob's own tree (FileOwner there) works
    expect((await bob.patch(file.id, { parentID: 'root' })).status).toBe(204);
    expect(((await bob.get(`/files/${file.id}`)).body as RemoteObject).parentID).toBe(bobRoot);
    expect((await demo.get(`/files/${file.id}`)).status).toBe(404);

    // FileOwner on Shared: bob deletes it (non-empty: 202)
    svc.admin.grant('bob', shared.id, 'FileOwner');
    expect((await bob.del(shared.id)).status).toBe(202);
    expect((await demo.get(`/files/${shared.id}`)).status).toBe(404);
    expect(((await demo.list('root')).body as ListingPage).files.map((f) => f.name)).not.toContain('Shared');
  });
});
