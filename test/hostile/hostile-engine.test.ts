/**
 * The engine (real service behind a hostile proxy, real folder, real watcher) against broken
 * or malicious NAS data: invalid objects are skipped and said, nothing is half-written, a
 * restart does not move the tree aside; a rename to an unsafe name is refused, never a delete.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestService, type TestService } from '../../server/testing.js';
import { openServiceDb } from '../../server/store/schema.js';
import { startRig, waitFor, type Rig } from '../integration/local/harness.js';
import { createLogger } from '../../main/log/logger.js';
import { jsonAnswer, realJson, startHostileNas, via, type HostileNas } from './hostile-nas.js';

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

async function hostileRig(seed: Parameters<typeof startRig>[0]): Promise<{ r: Rig; nas: HostileNas }> {
  svc = await startTestService();
  nas = await startHostileNas(svc.baseUrl);
  rig = await startRig(seed, {}, svc, via(svc.baseUrl, nas.baseUrl));
  return { r: rig, nas };
}

/** Listings of the NAS with `broken` merged into the objects named in it. */
function breakObjects(n: HostileNas, broken: Record<string, Record<string, unknown>>): void {
  n.tamper = async (x, real) => {
    if (!x.path.endsWith('/filesSearch/parents')) return undefined;
    const { status, value } = await realJson(real);
    if (status !== 200) return undefined;
    const files = (value['files'] as Record<string, unknown>[]).map((f) =>
      typeof f['name'] === 'string' && broken[f['name']] ? { ...f, ...broken[f['name']] } : f,
    );
    return jsonAnswer({ ...value, files });
  };
}

describe('hostile NAS: invalid objects', () => {
  it('mTime null / mTime object / eTag object: skipped and said, the rest placed, state whole, a restart moves nothing aside', async () => {
    svc = await startTestService();
    const root = svc.admin.rootId();
    const f = svc.admin.createFolder(root, 'F');
    for (const n of ['a.txt', 'b.txt', 'c.txt', 'd.txt']) svc.admin.createFile(f.id, n);
    svc.admin.createFile(root, 'top.txt');
    nas = await startHostileNas(svc.baseUrl);
    breakObjects(nas, { 'b.txt': { mTime: null }, 'c.txt': { mTime: { at: 1 } }, 'd.txt': { eTag: { x: 1 } } });
    rig = await startRig(() => undefined, {}, svc, via(svc.baseUrl, nas.baseUrl));
    const r = rig;
    expect(readdirSync(join(r.mirror, 'F')).sort()).toEqual(['a.txt']);
    expect(existsSync(join(r.mirror, 'top.txt'))).toBe(true);
    const st = r.engine.status();
    expect(st.connection).toBe('online');
    expect(st.error?.code).toBe('BadResponse');
    expect(st.error?.message).toMatch(/3 invalid objects, skipped: the walk is incomplete, nothing is deleted/);
    expect(st.error?.message).toContain('mTime');
    expect(r.engine.actions.activity().some((a) => a.kind === 'error' && a.summary.startsWith('walk incomplete'))).toBe(true);
    const ino = statSync(join(r.mirror, 'F', 'a.txt')).ino;
    // restarts: the state of the first run is whole, nothing is moved to local-only
    await r.restart();
    await r.restart();
    expect(existsSync(join(r.mirror, '.nas-mirror', 'local-only'))).toBe(false);
    expect(statSync(join(r.mirror, 'F', 'a.txt')).ino).toBe(ino);
    expect(r.engine.actions.localOnly()).toHaveLength(0);
    // the NAS heals: the next walk places the rest
    nas.tamper = undefined;
    await r.engine.syncNow();
    await waitFor(() => readdirSync(join(r.mirror, 'F')).length === 4, 'the rest placed once the NAS sends valid objects');
    expect(r.engine.status().error).toBeNull();
    expect(r.count('DELETE')).toBe(0);
  });

  it('an object that turns invalid after a good walk keeps its placeholder (incomplete walk: no delete)', async () => {
    const { r, nas: n } = await hostileRig((s, root) => {
      s.admin.createFile(root, 'keep.txt');
      s.admin.createFile(root, 'other.txt');
    });
    expect(existsSync(join(r.mirror, 'keep.txt'))).toBe(true);
    breakObjects(n, { 'keep.txt': { mTime: null, name: '' } });
    await r.engine.syncNow();
    await waitFor(() => r.engine.status().error?.code === 'BadResponse', 'walk refused');
    expect(existsSync(join(r.mirror, 'keep.txt'))).toBe(true);
    expect(r.engine.actions.activity().some((a) => a.kind === 'remote-removed')).toBe(false);
  });
});

describe('hostile NAS: unsafe names', () => {
  it('a NAS rename of a folder to ../../escape and of a file to "..": refused, both kept with what the user had, logged "refused: unsafe name"', async () => {
    let folderId = '';
    let fileId = '';
    const { r } = await hostileRig((s, root) => {
      const d = s.admin.createFolder(root, 'Docs');
      folderId = d.id;
      s.admin.createFile(d.id, 'mine.txt');
      fileId = s.admin.createFile(root, 'f.txt').id;
    });
    writeFileSync(join(r.mirror, 'Docs', 'mine.txt'), 'the user wrote this');
    await waitFor(() => r.engine.actions.localOnly().length === 1, 'filled placeholder seen');
    const db = openServiceDb(r.svc.dataDir);
    db.prepare('UPDATE objects SET name = ? WHERE id = ?').run('../../escape', folderId);
    db.prepare('UPDATE objects SET name = ? WHERE id = ?').run('..', fileId);
    db.prepare("UPDATE meta SET value = value + 1 WHERE key = 'tree_version'").run();
    db.close();
    await r.engine.syncNow();
    await waitFor(() => r.engine.actions.activity().filter((a) => a.kind === 'refused').length === 2, 'both refused');
    const refused = r.engine.actions.activity().filter((a) => a.kind === 'refused');
    expect(refused.map((a) => a.path).sort()).toEqual(['Docs', 'f.txt']);
    for (const a of refused) expect(a.summary).toBe('refused: unsafe name');
    expect(readFileSync(join(r.mirror, 'Docs', 'mine.txt'), 'utf8')).toBe('the user wrote this');
    expect(existsSync(join(r.mirror, 'f.txt'))).toBe(true);
    expect(existsSync(join(r.mirror, '..', 'escape'))).toBe(false);
    expect(r.engine.actions.activity().some((a) => a.kind === 'remote-removed')).toBe(false);
    expect(r.count('DELETE')).toBe(0);
  });
});

describe('hostile NAS: an empty NAS after a good mirror', () => {
  it('is held like a local mass delete: nothing removed, held says why; reject keeps, approve removes', async () => {
    const { r, nas: n } = await hostileRig((s, root) => {
      const f = s.admin.createFolder(root, 'F');
      for (let i = 0; i < 60; i++) s.admin.createFile(f.id, `x${i}`);
      s.admin.createFile(root, 'top.txt');
    });
    expect(readdirSync(join(r.mirror, 'F'))).toHaveLength(60);
    // the NAS (or a wrong account) answers every listing with nothing
    n.tamper = (x) =>
      x.path.endsWith('/filesSearch/parents')
        ? jsonAnswer({ files: [], pageToken: '' })
        : x.method === 'GET' && x.path.includes('/files/') && !x.path.endsWith('/files/root')
          ? jsonAnswer({ code: 404, message: 'not found' }, 404)
          : undefined;
    await r.engine.syncNow();
    await waitFor(() => r.engine.status().heldDeletes === 1, 'the empty NAS is held');
    const { held } = r.engine.actions.conflicts();
    expect(held[0]!.path).toContain('the NAS now looks empty');
    expect(held[0]!.objects).toBe(62);
    expect(r.engine.status().error?.code).toBe('NasLooksEmpty');
    expect(readdirSync(join(r.mirror, 'F'))).toHaveLength(60);
    expect(existsSync(join(r.mirror, 'top.txt'))).toBe(true);
    // reject: kept; the next walk asks again
    await r.engine.actions.resolveHeld(['all'], 'reject');
    expect(r.engine.status().heldDeletes).toBe(0);
    await r.engine.syncNow();
    await waitFor(() => r.engine.status().heldDeletes === 1, 'asked again');
    expect(existsSync(join(r.mirror, 'top.txt'))).toBe(true);
    // approve: the next walk removes the placeholders (nothing is deleted on the NAS)
    await r.engine.actions.resolveHeld(['all'], 'approve');
    await waitFor(() => !existsSync(join(r.mirror, 'top.txt')) && !existsSync(join(r.mirror, 'F')), 'placeholders removed after approval');
    expect(r.count('DELETE')).toBe(0);
    expect(r.engine.status().heldDeletes).toBe(0);
  });
});

describe('an empty NAS, the real service emptied (listings with ETags)', () => {
  it('a rejected hold is asked again at the next walk (the empty root listing is not answered 304 from a stored chain)', async () => {
    const { r } = await hostileRig((s, root) => {
      for (let i = 0; i < 60; i++) s.admin.createFile(root, `x${i}`);
    });
    for (const [, o] of await r.nasChildren(r.svc.admin.rootId())) await r.client.delete(o.id);
    await r.svc.admin.drainDeletes();
    await r.engine.syncNow();
    await waitFor(() => r.engine.status().heldDeletes === 1, 'the empty NAS is held');
    expect(r.engine.actions.conflicts().held[0]).toMatchObject({ cause: 'nas-looks-empty', objects: 60 });
    await r.engine.actions.resolveHeld(['all'], 'reject');
    await r.engine.syncNow();
    await waitFor(() => r.engine.status().heldDeletes === 1, 'asked again');
    expect(readdirSync(r.mirror).filter((n) => n !== '.nas-mirror')).toHaveLength(60);
  });
});

describe('hostile NAS: secrets echoed back', () => {
  it('a 401 that repeats the token (plain, URL-encoded, base64): redacted in the status, the activity, the log and the state db', async () => {
    const lines: string[] = [];
    svc = await startTestService();
    svc.admin.createFile(svc.admin.rootId(), 'a.txt');
    nas = await startHostileNas(svc.baseUrl);
    rig = await startRig(
      () => undefined,
      { log: createLogger('engine', { write: (l) => lines.push(l) }, 'debug') },
      svc,
      via(svc.baseUrl, nas.baseUrl),
    );
    const r = rig;
    let forms: string[] = [];
    // echoes the token the client sent, in three forms
    nas.tamper = (x) => {
      const token = String(x.headers.authorization).replace(/^Bearer /, '');
      forms = [token, encodeURIComponent(token), Buffer.from(token).toString('base64').replace(/=+$/, '')];
      return jsonAnswer({ message: `token ${token} is not valid (${forms[1]})`, detail: `seen: ${forms[2]}` }, 401);
    };
    await r.engine.syncNow();
    await waitFor(() => r.engine.status().connection === 'auth-error', 'auth-error');
    const seen = JSON.stringify(r.engine.status()) + JSON.stringify(r.engine.actions.activity()) + lines.join('');
    expect(seen).toContain('[redacted]');
    await r.engine.stop();
    let db = '';
    for (const f of readdirSync(r.state)) if (statSync(join(r.state, f)).isFile()) db += readFileSync(join(r.state, f)).toString('latin1');
    expect(forms.length).toBe(3);
    for (const f of forms) {
      expect(seen).not.toContain(f);
      expect(db).not.toContain(f);
    }
    await r.restart();
  });
});
