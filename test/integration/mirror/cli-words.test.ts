/**
 * Command-line messages a new user meets (issue 11, points 13-15): every error names its
 * command and says why; a command that fails on a bad option or a missing folder writes
 * nothing; `status` says each count once, in words.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../server/testing.js';
import { runCli, type CliRun } from '../../support/run-cli.js';

let svc: TestService;
const base = mkdtempSync(join(tmpdir(), 'cli-words-'));
const state = join(base, 'state');

const cli = (...argv: string[]): Promise<CliRun> => runCli(argv, { token: svc.token() });
const service = (...args: string[]) => spawnSync(process.execPath, ['bin/nas-service.js', ...args], { encoding: 'utf8', timeout: 60_000 });

beforeAll(async () => {
  svc = await startTestService({ demo: { objects: 200, seed: 5 } });
  const r = await cli('sync', '--device', join(svc.dataDir, 'device.json'), '--state', state, '--token-env', 'NAS_TOKEN', '--once');
  expect(r.code).toBe(0);
});
afterAll(async () => {
  await svc.stop();
  rmSync(base, { recursive: true, force: true });
});

describe('command-line words', () => {
  it('nas-service: a missing data folder or a bad option fails before anything is written', () => {
    const missing = join(base, 'no-such-nas');
    const t = service('token', 'demo', '--scope', 'nas_read_write', '--data', missing);
    expect(t.status).toBe(1);
    expect(t.stderr).toBe(
      `nas-service: no service data in ${missing}: create it first with "nas-service demo --data ${missing}" (or serve, or user add)\n`,
    );
    expect(existsSync(missing)).toBe(false);
    const neg = join(base, 'neg');
    const d = service('demo', '--objects', '-5', '--data', neg);
    expect(d.status).toBe(2);
    expect(existsSync(neg)).toBe(false);
  }, 60_000);

  it('a device record that cannot be used says why, and leaves no state folder behind', async () => {
    const fresh = join(base, 'fresh-state');
    const gone = await cli('sync', '--device', join(base, 'nope.json'), '--state', fresh, '--token-env', 'NAS_TOKEN', '--once');
    expect(gone).toMatchObject({
      code: 1,
      err: `nas-mirror sync: cannot read the device record ${join(base, 'nope.json')}: no such file\n`,
    });
    writeFileSync(join(base, 'bad.json'), '{oops');
    const bad = await cli('sync', '--device', join(base, 'bad.json'), '--state', fresh, '--token-env', 'NAS_TOKEN', '--once');
    expect(bad.err).toBe('nas-mirror sync: the device record is not valid JSON (is it the right file?)\n');
    expect(existsSync(fresh)).toBe(false);
  });

  it('what was not found is named, with the command', async () => {
    const ls = await cli('ls', 'nosuchid', '--state', state);
    expect(ls).toMatchObject({
      code: 1,
      err: 'nas-mirror ls: no folder "nosuchid" in this mirror (a path such as Photos/2019, or an id from the last column of "nas-mirror ls /")\n',
    });
    const held = await cli('held', 'approve', '42', '--state', state);
    expect(held).toMatchObject({ code: 1, err: 'nas-mirror held: no held delete 42 (see "nas-mirror held")\n' });
    const conflicts = await cli('conflicts', 'drop', '42', '--state', state);
    expect(conflicts).toMatchObject({ code: 1, err: 'nas-mirror conflicts: no conflict 42 (see "nas-mirror conflicts")\n' });
  });

  it('status says each thing once', async () => {
    const s = await cli('status', '--state', state);
    expect(s.out).toContain('mirror folder:       (none: this state folder was only synced, never run with --dir)\n');
    expect(s.out).toContain('mirrored:            200 objects\n');
    expect(s.out).toContain('changes to send:     0 (0 sent so far)\n');
    expect(s.out.match(/conflict/g)).toHaveLength(1);
  });
});
