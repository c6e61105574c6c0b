/**
 * `nas-mirror run|sync` failure modes, as a user meets them (real service, real folders,
 * the real binary): each gives one `nas-mirror CMD: ...` line on stderr and exit 1, and
 * loses nothing. Regression tests for bugs found by QA: `run --once` exited 0 on a refused
 * token, an unreachable NAS or a refused rename; a mirror folder equal to / holding the
 * state folder was accepted (the database became "local only" files); a --state that is
 * a file printed a raw EEXIST; a --dir under /proc hung forever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnServiceProcess, startTestService, type TestService } from '../../../server/testing.js';
import { waitFor } from './harness.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'bin/nas-mirror.js');

let svc: TestService;
let base: string;

beforeAll(async () => {
  svc = await startTestService();
  const root = svc.admin.rootId();
  const music = svc.admin.createFolder(root, 'Music');
  svc.admin.createFile(music.id, 'song.mp3');
  svc.admin.createFile(root, 'notes.txt');
  base = mkdtempSync(join(tmpdir(), 'nas-cli-err-'));
});
afterAll(async () => {
  await svc.stop();
  rmSync(base, { recursive: true, force: true });
});

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
const cli = (args: string[], token = svc.token()): Promise<Result> =>
  new Promise((res) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env: { ...process.env, NAS_TOKEN: token }, timeout: 60_000 },
      (err, stdout, stderr) => {
        res({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      },
    );
  });
const errorLines = (r: Result): string[] => r.stderr.split('\n').filter((l) => l.startsWith('nas-mirror '));
const runOnce = (state: string, dir: string, token?: string, device = svc.baseUrl): Promise<Result> =>
  cli(['run', '--device', device, '--state', state, '--dir', dir, '--token-env', 'NAS_TOKEN', '--once'], token);

describe('nas-mirror run/sync: bad folders are refused before anything is touched', () => {
  it('mirror = state, mirror inside state, state inside mirror, state is a file, dir under a file', async () => {
    const s = join(base, 'f-state');
    const cases: [string, string, RegExp][] = [
      [s, s, /is inside the state folder/],
      [s, join(s, 'sub'), /is inside the state folder/],
      [join(base, 'f-mirror', '.state'), join(base, 'f-mirror'), /must not be inside the mirror folder/],
      [join(base, 'a-file'), join(base, 'f-m2'), /is a file, not a folder/],
      [join(base, 'f-s3'), join(base, 'a-file', 'sub'), /cannot create the mirror folder .*a parent is a file/],
    ];
    writeFileSync(join(base, 'a-file'), 'x');
    for (const [state, dir, re] of cases) {
      const r = await runOnce(state, dir);
      expect(r.code, `${state} ${dir}`).toBe(1);
      expect(errorLines(r)).toHaveLength(1);
      expect(errorLines(r)[0]).toMatch(re);
    }
    expect(existsSync(join(base, 'f-mirror', '.state'))).toBe(false);
    const sync = await cli(['sync', '--device', svc.baseUrl, '--state', join(base, 'a-file'), '--token-env', 'NAS_TOKEN', '--once']);
    expect(sync.code).toBe(1);
    expect(errorLines(sync)[0]).toMatch(/--state .* is a file, not a folder/);
  });

  it.runIf(process.platform === 'linux')('a --dir that cannot be created fails at once (no hang under /proc)', async () => {
    const r = await runOnce(join(base, 'p-state'), '/proc/nas-mirror-test/x');
    expect(r.code).toBe(1);
    expect(errorLines(r)[0]).toMatch(/cannot create the mirror folder/);
  });

  it('the app default <state>/mirror is still accepted', async () => {
    const s = join(base, 'd-state');
    const r = await runOnce(s, join(s, 'mirror'));
    expect(r.stderr).not.toMatch(/^nas-mirror run:/m);
    expect(r.code).toBe(0);
    expect(existsSync(join(s, 'mirror', 'Music', 'song.mp3'))).toBe(true);
  });
});

describe('nas-mirror run --once: a round that did not do its job exits 1 with one line', () => {
  it('a refused token', async () => {
    const r = await runOnce(join(base, 't-state'), join(base, 't-mirror'), 'nst_not-a-real-token');
    expect(r.code).toBe(1);
    expect(errorLines(r)).toEqual([expect.stringMatching(/^nas-mirror run: the NAS refused the token .*--token-env/)]);
    const s = await cli(
      ['sync', '--device', svc.baseUrl, '--state', join(base, 't-state2'), '--token-env', 'NAS_TOKEN', '--once'],
      'nst_not-a-real-token',
    );
    expect(s.code).toBe(1);
    expect(errorLines(s)).toEqual([expect.stringMatching(/^nas-mirror sync: .*the NAS refused the token/)]);
  });

  it('a NAS that is not running (connection refused)', async () => {
    const r = await runOnce(join(base, 'o-state'), join(base, 'o-mirror'), undefined, 'http://127.0.0.1:1');
    expect(r.code).toBe(1);
    expect(errorLines(r)).toEqual([expect.stringMatching(/^nas-mirror run: the NAS is not reachable/)]);
  });

  it('a read-only token and a local rename: exit 1, the change kept in the conflicts list', async () => {
    const state = join(base, 'r-state');
    const dir = join(base, 'r-mirror');
    const ro = svc.token('nas_read_only');
    expect((await runOnce(state, dir, ro)).code).toBe(0);
    renameSync(join(dir, 'Music'), join(dir, 'Musik'));
    const r = await runOnce(state, dir, ro);
    expect(r.code).toBe(1);
    expect(errorLines(r)).toEqual([expect.stringMatching(/^nas-mirror run: needs attention: 1 change the NAS did not take/)]);
    expect(readdirSync(dir)).toContain('Music'); // the NAS wins on disk
    const c = await cli(['conflicts', '--state', state]);
    expect(c.stdout).toMatch(/Musik/);
  });
});

describe('offline look-ups say what is wrong', () => {
  it('find with a wrong-case name, undo of an unknown or non-rename operation', async () => {
    const state = join(base, 'l-state');
    expect((await cli(['sync', '--device', svc.baseUrl, '--state', state, '--token-env', 'NAS_TOKEN', '--once'])).code).toBe(0);
    const f = await cli(['find', 'root', 'music', '--state', state]);
    expect(f.code).toBe(1);
    expect(errorLines(f)).toEqual(['nas-mirror find: no object named "music" in the root folder (names are exact and case-sensitive)']);
    expect((await cli(['find', 'root', 'Music', '--state', state])).code).toBe(0);
    const empty = await cli(['search', '  ', '--state', state]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^nas-mirror search: the QUERY is empty/);
    const u = await cli(['undo', '999', '--state', state]);
    expect(u.code).toBe(1);
    expect(errorLines(u)).toEqual([expect.stringMatching(/^nas-mirror undo: no operation 999 in the activity log/)]);
  });
});

describe('the NAS dies under a running `run` and comes back', () => {
  it('says offline (log and status), keeps the local rename, replays it when the NAS is back', async () => {
    const data = join(base, 'dying-nas');
    const setup = await startTestService({ dataDir: data });
    const file = setup.admin.createFile(setup.admin.rootId(), 'before.txt');
    const token = setup.token();
    await setup.stop();
    let nas = await spawnServiceProcess(data);
    const port = Number(new URL(nas.baseUrl).port);
    const state = join(base, 'dying-state');
    const dir = join(base, 'dying-mirror');
    const child = spawn(
      process.execPath,
      [BIN, 'run', '--device', nas.baseUrl, '--state', state, '--dir', dir, '--token-env', 'NAS_TOKEN', '--hold-ms', '300', '--log-json'],
      {
        cwd: ROOT,
        env: { ...process.env, NAS_TOKEN: token },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    try {
      await waitFor(() => err.includes('watcher self-test passed'), 'watching', 60_000);
      await nas.stop();
      renameSync(join(dir, 'before.txt'), join(dir, 'after.txt'));
      await waitFor(() => err.includes('"msg":"offline"'), 'offline logged', 60_000);
      const st = await cli(['status', '--state', state]);
      expect(st.stdout).toMatch(/^state:\s+offline -- /m);
      expect(st.stdout).toMatch(/changes to send:\s+1 \(/);
      nas = await spawnServiceProcess(data, port);
      await waitFor(() => err.includes('"msg":"online"'), 'online again', 90_000);
      // "online" is logged at the NAS's first answer; the rename follows at once (waited on, not assumed)
      const nameOnNas = async (): Promise<string | undefined> => {
        const res = await fetch(`${nas.baseUrl}/sdk/v2/filesSearch/parents?ids=root`, { headers: { authorization: `Bearer ${token}` } });
        return ((await res.json()) as { files: { id: string; name: string }[] }).files.find((f) => f.id === file.id)?.name;
      };
      await waitFor(async () => (await nameOnNas()) === 'after.txt', 'the rename replayed', 30_000);
      expect((await cli(['status', '--state', state])).stdout).toMatch(/^state:\s+synced/m);
    } finally {
      child.kill('SIGTERM');
      await exited;
      await nas.stop().catch(() => undefined);
    }
  }, 180_000);
});
