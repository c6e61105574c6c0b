/**
 * `nas-mirror sync --once` and `run --once` after a walk made incomplete by invalid objects
 * (a hostile proxy in front of the real service breaks some objects): exit 1, and say which
 * objects, how many, and that nothing was inferred deleted.
 */
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../server/testing.js';
import { jsonAnswer, realJson, startHostileNas, type HostileNas } from './hostile-nas.js';
import { runCli } from '../support/run-cli.js';

let svc: TestService;
let nas: HostileNas;
let tmp: string;
let badId = '';
let topId = '';

const cli = (...argv: string[]): ReturnType<typeof runCli> => runCli(argv, { token: svc.token() });

beforeAll(async () => {
  svc = await startTestService();
  const root = svc.admin.rootId();
  const f = svc.admin.createFolder(root, 'F');
  svc.admin.createFile(f.id, 'good.txt');
  badId = svc.admin.createFile(f.id, 'bad.txt').id;
  topId = svc.admin.createFile(root, 'top.txt').id;
  nas = await startHostileNas(svc.baseUrl);
  tmp = mkdtempSync(join(tmpdir(), 'cli-once-'));
});
afterAll(async () => {
  await nas.stop();
  await svc.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** bad.txt served with `mTime: null` (invalid), everything else as the service answers. */
function breakBad(): void {
  nas.tamper = async (x, real) => {
    if (!x.path.endsWith('/filesSearch/parents')) return undefined;
    const { status, value } = await realJson(real);
    if (status !== 200) return undefined;
    return jsonAnswer({
      ...value,
      files: (value['files'] as Record<string, unknown>[]).map((o) => (o['id'] === badId ? { ...o, mTime: null } : o)),
    });
  };
}

const says = (err: string): void => {
  expect(err).toMatch(/1 invalid object/);
  expect(err).toContain(badId);
  expect(err).toContain('mTime');
  expect(err).toMatch(/nothing (was|is) (inferred )?deleted/);
};

describe('--once after a walk made incomplete by invalid objects', () => {
  it('sync --once exits 1 and says which objects, how many, nothing deleted', async () => {
    breakBad();
    const r = await cli('sync', '--device', nas.baseUrl, '--state', join(tmp, 'sync-state'), '--token-env', 'NAS_TOKEN', '--once');
    says(r.err);
    expect(r.code).toBe(1);
  });

  it('run --once exits 1 and says the same; the good objects are placed, a healed NAS exits 0', async () => {
    breakBad();
    const args = [
      'run',
      '--device',
      nas.baseUrl,
      '--state',
      join(tmp, 'run-state'),
      '--dir',
      join(tmp, 'mirror'),
      '--token-env',
      'NAS_TOKEN',
      '--once',
    ];
    const r = await cli(...args);
    says(r.err);
    expect(r.code).toBe(1);
    expect(existsSync(join(tmp, 'mirror', 'F', 'good.txt'))).toBe(true);
    expect(existsSync(join(tmp, 'mirror', 'F', 'bad.txt'))).toBe(false);
    // a second run against the same broken NAS, with a rename of the user's that it sends: still 1, nothing removed
    renameSync(join(tmp, 'mirror', 'top.txt'), join(tmp, 'mirror', 'top2.txt'));
    const again = await cli(...args);
    says(again.err);
    expect(again.code).toBe(1);
    expect(svc.admin.get(topId)?.name).toBe('top2.txt');
    expect(existsSync(join(tmp, 'mirror', 'top2.txt'))).toBe(true);
    expect(existsSync(join(tmp, 'mirror', 'F', 'good.txt'))).toBe(true);
    nas.tamper = undefined;
    const healed = await cli(...args);
    expect(healed.err).not.toMatch(/invalid/);
    expect(healed.code).toBe(0);
    expect(existsSync(join(tmp, 'mirror', 'F', 'bad.txt'))).toBe(true);
  });
});
