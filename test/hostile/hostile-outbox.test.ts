/**
 * The outbox against a NAS whose answers to a change the client can never use (the real
 * service behind a hostile proxy, real folder, real watcher): the change is sent a bounded
 * number of times, then held in the conflicts list with the error said, never dropped and
 * never retried silently for ever; Retry sends it again once the NAS answers properly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { startTestService, type TestService } from '../../server/testing.js';
import { FATAL_ATTEMPTS } from '../../main/outbox/send.js';
import { startRig, waitFor, type Rig } from '../integration/local/harness.js';
import { jsonAnswer, startHostileNas, via, type HostileNas } from './hostile-nas.js';

/** The If-Match of the client's probe (service-client.ts): an empty patch no object matches. */
const PROBE = '"nas-mirror-if-match-probe"';

let rig: Rig | undefined;
let nas: HostileNas | undefined;
let svc: TestService | undefined;
afterEach(async () => {
  await rig?.close();
  await nas?.stop();
  await svc?.stop();
  rig = undefined;
  nas = undefined;
  svc = undefined;
});

describe('hostile NAS: a change it answers with what the client cannot use', () => {
  it(`a rename answered 418 every time: sent ${FATAL_ATTEMPTS} times, then held as "couldn't send" (the NAS name back on disk); Retry sends it once the NAS answers`, async () => {
    svc = await startTestService();
    const id = svc.admin.createFile(svc.admin.rootId(), 'doc.txt').id;
    svc.admin.createFile(svc.admin.rootId(), 'z');
    nas = await startHostileNas(svc.baseUrl);
    // every rename answered with an unknown 4xx: the client cannot tell what it means, so
    // retrying cannot fix it (the client's If-Match probe is let through: it changes nothing)
    const isRename = (x: { method: string; path: string }): boolean => x.method === 'POST' && x.path.endsWith('/patch');
    let refused = 0;
    nas.tamper = (x) => {
      if (!isRename(x) || x.headers['if-match'] === PROBE) return undefined;
      refused++;
      return jsonAnswer({ code: 418, message: 'I am a teapot' }, 418);
    };
    rig = await startRig(() => undefined, {}, svc, via(svc.baseUrl, nas.baseUrl));
    const r = rig;
    const n = nas;
    const patches = (): number => refused;
    renameSync(join(r.mirror, 'doc.txt'), join(r.mirror, 'mine.txt'));
    await waitFor(() => r.engine.status().conflicts === 1, 'held after the last attempt', 30_000);
    expect(patches()).toBe(FATAL_ATTEMPTS);
    const c = r.engine.actions.conflicts().conflicts[0]!;
    expect(c.reason).toMatch(new RegExp(`^couldn't send it: I am a teapot \\(HTTP 418\\); ${FATAL_ATTEMPTS} attempts`));
    expect(c.remote).toBe('not changed as far as the app knows (your change could not be sent)');
    expect(r.engine.status().outbox.pending).toBe(0);
    expect(r.engine.actions.activity().some((a) => a.kind === 'conflict' && a.summary.startsWith("couldn't send:"))).toBe(true);
    // never dropped, and nothing else changed: the NAS keeps its name, which comes back on disk
    expect(svc.admin.get(id)!.name).toBe('doc.txt');
    await waitFor(() => existsSync(join(r.mirror, 'doc.txt')) && !existsSync(join(r.mirror, 'mine.txt')), 'the NAS name back on disk');
    // no more sends while it is held
    await r.engine.syncNow();
    expect(patches()).toBe(FATAL_ATTEMPTS);
    // the NAS answers again: Retry (re-apply) sends the kept change
    n.tamper = undefined;
    expect(await r.engine.actions.resolveConflicts([c.id], 'reapply')).toEqual({ done: 1, failed: [] });
    await waitFor(
      () => svc!.admin.get(id)!.name === 'mine.txt' && existsSync(join(r.mirror, 'mine.txt')),
      're-applied on the NAS and on disk',
    );
    expect(r.engine.status().conflicts).toBe(0);
  });

  it('a rename applied but answered with an eTag that is not one (garbage, a weak tag): the client re-reads the object, so the next change is guarded by the real eTag', async () => {
    svc = await startTestService();
    const id = svc.admin.createFile(svc.admin.rootId(), 'doc.txt').id;
    svc.admin.createFile(svc.admin.rootId(), 'z');
    nas = await startHostileNas(svc.baseUrl);
    const bad = ['nonsense', 'W/"Bg"', '"un"quoted"'];
    let n = 0;
    nas.tamper = async (x, real) => {
      if (x.method !== 'POST' || !x.path.endsWith('/patch') || x.headers['if-match'] === PROBE) return undefined;
      const a = await real();
      return { ...a, headers: { ...a.headers, etag: bad[n++ % bad.length]! } };
    };
    rig = await startRig(() => undefined, {}, svc, via(svc.baseUrl, nas.baseUrl));
    const r = rig;
    for (const name of ['one.txt', 'two.txt', 'three.txt']) {
      const before = readdirSync(r.mirror).find((f) => f.endsWith('.txt') && f !== 'z')!;
      renameSync(join(r.mirror, before), join(r.mirror, name));
      await waitFor(() => svc!.admin.get(id)!.name === name && r.engine.status().outbox.pending === 0, `${name} on the NAS`);
    }
    // every rename went through If-Match with the NAS's own eTag: no 412, no conflict
    expect(r.engine.status().conflicts).toBe(0);
    expect(n).toBe(3);
  });
});
