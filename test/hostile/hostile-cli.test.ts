/**
 * The command line after a hostile NAS served a parent cycle once (folder A listed in the root
 * with B as its parent, B inside A): `search` shows the objects with an unknown folder path,
 * never fails the whole search.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../server/testing.js';
import { jsonAnswer, realJson, startHostileNas, type HostileNas } from './hostile-nas.js';
import { runCli } from '../support/run-cli.js';

let svc: TestService;
let nas: HostileNas;
let state: string;

const cli = (...argv: string[]): ReturnType<typeof runCli> => runCli(argv, { token: svc.token() });

beforeAll(async () => {
  svc = await startTestService();
  const root = svc.admin.rootId();
  const a = svc.admin.createFolder(root, 'A-docs');
  const b = svc.admin.createFolder(a.id, 'B-docs');
  svc.admin.createFile(b.id, 'keep-inside.txt');
  svc.admin.createFile(root, 'keep-top.txt');
  nas = await startHostileNas(svc.baseUrl);
  nas.tamper = async (x, real) => {
    if (!x.path.endsWith('/filesSearch/parents') || x.query.get('ids') !== root) return undefined;
    const { value } = await realJson(real);
    const files = (value['files'] as Record<string, unknown>[]).map((f) => (f['id'] === a.id ? { ...f, parentID: b.id } : f));
    return jsonAnswer({ ...value, files });
  };
  state = mkdtempSync(join(tmpdir(), 'cli-cycle-'));
});
afterAll(async () => {
  await nas.stop();
  await svc.stop();
  rmSync(state, { recursive: true, force: true });
});

describe('a parent cycle served once', () => {
  it('search shows every match, the ones in the cycle with an unknown folder', async () => {
    const s = await cli('sync', '--device', nas.baseUrl, '--state', state, '--token-env', 'NAS_TOKEN', '--once');
    expect(s.code).toBe(0);
    const r = await cli('search', 'keep', '--state', state);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines.find((l) => l.includes('-top.txt'))).toMatch(/\s\/\s*$/);
    expect(lines.find((l) => l.includes('-inside.txt'))).toMatch(/\s\?\s*$/);
    const json = await cli('search', 'keep', '--state', state, '--json');
    expect((JSON.parse(json.out) as { matches: unknown[] }).matches).toHaveLength(2);
  });
});
