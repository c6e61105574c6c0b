/**
 * The command line in a terminal (issue 25, points 17, 18 and 20), spawned as a user runs it:
 * `nas-mirror run` and `nas-service serve` print lines for people (local time, what, where),
 * JSON lines only with --log-json; `run --dir`/`--state` given relative are taken from the
 * current folder and said back in full, and a folder the window refuses is refused; without --state the commands use the app's own data
 * folder (the window's: main/settings/app-dirs.ts), so `status` shows what the window shows.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../main/settings/app-dirs.js';
import { startTestService, type TestService } from '../../server/testing.js';

const ROOT = resolve(import.meta.dirname, '../..');
const MIRROR = join(ROOT, 'bin', 'nas-mirror.js');
const SERVICE = join(ROOT, 'bin', 'nas-service.js');
/** A log line for people: `12:04:31 what  where`. */
const HUMAN = /^\d\d:\d\d:\d\d \S/;

let svc: TestService;
let base: string;

/** The environment of a user who set nothing: no NAS_MIRROR_HOME, no XDG folders of the test runner's. */
const userEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, NAS_TOKEN: svc.token(), ...extra };
  if (!('NAS_MIRROR_HOME' in extra)) delete env['NAS_MIRROR_HOME'];
  if (!('XDG_CONFIG_HOME' in extra)) delete env['XDG_CONFIG_HOME'];
  return env;
};

interface Result {
  code: number;
  out: string;
  err: string;
}
const cli = (bin: string, args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<Result> =>
  new Promise((res) => {
    execFile(process.execPath, [bin, ...args], { cwd: opts.cwd ?? ROOT, env: userEnv(opts.env ?? {}), timeout: 90_000 }, (e, out, err) => {
      res({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, out, err });
    });
  });

const logLines = (err: string): string[] => err.split('\n').filter((l) => HUMAN.test(l) || l.startsWith('{'));

beforeAll(async () => {
  svc = await startTestService();
  const root = svc.admin.rootId();
  svc.admin.createFile(svc.admin.createFolder(root, 'Photos').id, 'a.jpg');
  svc.admin.createFile(root, 'notes.txt');
  base = mkdtempSync(join(tmpdir(), 'nas-cli-terminal-'));
});
afterAll(async () => {
  await svc.stop();
  rmSync(base, { recursive: true, force: true });
});

describe('nas-mirror run in a terminal', () => {
  it('takes relative folders from the current folder, says them in full, logs lines for people; JSON with --log-json', async () => {
    const work = join(base, 'work');
    mkdirSync(work);
    const args = ['run', '--device', svc.baseUrl, '--state', 'st', '--dir', 'mirror', '--token-env', 'NAS_TOKEN', '--once'];
    const first = await cli(MIRROR, args, { cwd: work });
    expect(first.code, first.err).toBe(0);
    expect(first.err).toContain(`mirror folder ${join(work, 'mirror')} (state in ${join(work, 'st')})\n`);
    expect(existsSync(join(work, 'mirror', 'Photos', 'a.jpg'))).toBe(true);
    expect(existsSync(join(work, 'st', 'state.db'))).toBe(true);
    // lines for people: local time, then the engine's decisions in the window's plain words; no JSON
    const human = logLines(first.err);
    expect(human.length).toBeGreaterThan(0);
    expect(human.filter((l) => l.startsWith('{'))).toEqual([]);
    expect(human.some((l) => /^\d\d:\d\d:\d\d \d+ new items from the NAS$/.test(l))).toBe(true);

    // a rename, logged as JSON lines with --log-json
    renameSync(join(work, 'mirror', 'notes.txt'), join(work, 'mirror', 'renamed.txt'));
    const json = await cli(MIRROR, [...args, '--log-json'], { cwd: work });
    expect(json.code, json.err).toBe(0);
    const lines = logLines(json.err);
    expect(lines.filter((l) => HUMAN.test(l))).toEqual([]);
    const records = lines.map((l) => JSON.parse(l) as { msg: string; path?: string; level: string });
    expect(records).toContainEqual(expect.objectContaining({ msg: 'renamed', path: 'renamed.txt', level: 'info' }));

    // and the same kind of line for people without the flag
    renameSync(join(work, 'mirror', 'renamed.txt'), join(work, 'mirror', 'notes.txt'));
    const back = await cli(MIRROR, args, { cwd: work });
    expect(back.code, back.err).toBe(0);
    expect(logLines(back.err).some((l) => /^\d\d:\d\d:\d\d Renamed “renamed\.txt” to “notes\.txt”$/.test(l))).toBe(true);
  }, 120_000);
});

describe('nas-mirror run refuses a folder as the window does', () => {
  it('a new mirror goes into an empty or new folder: one holding files is refused, untouched', async () => {
    const full = join(base, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'mine.txt'), 'my own file');
    const r = await cli(MIRROR, [
      'run',
      '--device',
      svc.baseUrl,
      '--state',
      join(base, 'full-state'),
      '--dir',
      full,
      '--token-env',
      'NAS_TOKEN',
      '--once',
    ]);
    expect(r.code).toBe(1);
    expect(r.err.split('\n').filter((l) => l.startsWith('nas-mirror '))).toEqual([
      `nas-mirror run: the folder ${full} already holds files: choose an empty or new folder for the mirror`,
    ]);
    expect(readdirSync(full)).toEqual(['mine.txt']);
  }, 60_000);
});

describe('nas-service serve in a terminal', () => {
  const serveOnce = async (data: string, extra: string[]): Promise<{ code: number | null; err: string }> => {
    const child = spawn(process.execPath, [SERVICE, 'serve', '--data', data, ...extra], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    await new Promise<void>((r) =>
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('listening on ')) r();
      }),
    );
    child.kill('SIGTERM');
    return { code: await exited, err };
  };

  it('says it is stopping in a line for people; JSON with --log-json', async () => {
    const data = join(base, 'nas');
    expect((await cli(SERVICE, ['demo', '--data', data, '--objects', '10'])).code).toBe(0);
    const human = await serveOnce(data, []);
    expect(human.code).toBe(0);
    expect(human.err).toMatch(/^\d\d:\d\d:\d\d stopping +signal=SIGTERM$/m);
    expect(human.err).not.toContain('{"');
    const json = await serveOnce(data, ['--log-json']);
    expect(json.code).toBe(0);
    const stop = json.err
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(stop).toContainEqual(expect.objectContaining({ msg: 'stopping', signal: 'SIGTERM', level: 'info' }));
  }, 60_000);
});

describe("--state defaults to the app's own data folder", () => {
  it("run and status without --state use the window's folder (NAS_MIRROR_HOME, else the platform's)", async () => {
    const home = join(base, 'home');
    const mirror = join(base, 'home-mirror');
    const ran = await cli(MIRROR, ['run', '--device', svc.baseUrl, '--dir', mirror, '--token-env', 'NAS_TOKEN', '--once'], {
      env: { NAS_MIRROR_HOME: home },
    });
    expect(ran.code, ran.err).toBe(0);
    expect(ran.err).toContain(`mirror folder ${mirror} (state in ${home}, the app's data folder)\n`);
    const status = await cli(MIRROR, ['status'], { env: { NAS_MIRROR_HOME: home } });
    expect(status.code, status.err).toBe(0);
    expect(status.out).toMatch(new RegExp(`^mirror folder: +${mirror.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    expect(status.out).toMatch(/^mirrored: +3 objects \(3 entries in the mirror folder\)/m);
    const json = await cli(MIRROR, ['status', '--json'], { env: { NAS_MIRROR_HOME: home } });
    expect(JSON.parse(json.out)).toEqual(JSON.parse((await cli(MIRROR, ['status', '--json', '--state', home])).out));

    // a relative NAS_MIRROR_HOME is taken from the current folder and said back in full (point 18)
    const cwd = join(base, 'rel-cwd');
    mkdirSync(cwd);
    const relEnv = { NAS_MIRROR_HOME: 'rel-home' };
    const relMirror = join(base, 'rel-mirror');
    const relRun = await cli(MIRROR, ['run', '--device', svc.baseUrl, '--dir', relMirror, '--token-env', 'NAS_TOKEN', '--once'], {
      cwd,
      env: relEnv,
    });
    expect(relRun.code, relRun.err).toBe(0);
    expect(relRun.err).toContain(`mirror folder ${relMirror} (state in ${join(cwd, 'rel-home')}, the app's data folder)\n`);
    expect(existsSync(join(cwd, 'rel-home', 'state.db'))).toBe(true);
    const relStatus = await cli(MIRROR, ['status'], { cwd, env: relEnv });
    expect(relStatus.code, relStatus.err).toBe(0);
    expect(relStatus.out).toMatch(/^mirrored: +3 objects/m);
    const elsewhere = await cli(MIRROR, ['status'], { cwd: base, env: relEnv });
    expect(elsewhere.err).toBe(
      `nas-mirror status: no mirror in ${join(base, 'rel-home')} (the app's data folder): ` +
        'set one up in the app (or "nas-mirror run --device ... --dir ..."), or give --state DIR\n',
    );
    // the window's folder is that same full path (main/settings/app-dirs.ts: Electron takes only a full one)
    expect(defaultDataDir({ NAS_MIRROR_HOME: 'rel-home' })).toBe(resolve('rel-home'));

    // nothing set: the platform's folder, the one the window opens (here under XDG_CONFIG_HOME)
    const xdg = join(base, 'xdg');
    const windows = defaultDataDir({ XDG_CONFIG_HOME: xdg }, process.platform);
    const none = await cli(MIRROR, ['status'], { env: { XDG_CONFIG_HOME: xdg } });
    expect(none.code).toBe(1);
    expect(none.err).toBe(
      `nas-mirror status: no mirror in ${windows} (the app's data folder): set one up in the app (or "nas-mirror run --device ... --dir ..."), or give --state DIR\n`,
    );
    expect(existsSync(windows)).toBe(false);
  }, 120_000);
});
