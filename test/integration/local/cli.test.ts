import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestService, type TestService } from '../../../server/testing.js';
import { waitFor } from './harness.js';
import { ROOT, startRunProcess, type RunProcess } from './run-process.js';

const BIN = join(ROOT, 'bin/nas-mirror.js');
const run = promisify(execFile);

let svc: TestService;
let base: string;
const ids: string[] = [];
const N = 400;

beforeAll(async () => {
  svc = await startTestService();
  const root = svc.admin.rootId();
  for (let i = 0; i < N; i++) ids.push(svc.admin.createFile(root, `file${i}.txt`).id);
  base = mkdtempSync(join(tmpdir(), 'nas-cli-'));
});
afterAll(async () => {
  await svc.stop();
  rmSync(base, { recursive: true, force: true });
});

const startRun = (state: string, mirror: string, extra: string[] = []): RunProcess => startRunProcess(svc, state, mirror, extra);

const cli = async (...args: string[]): Promise<string> => (await run(process.execPath, [BIN, ...args], { cwd: ROOT })).stdout;

describe('nas-mirror run (a real process)', () => {
  it('kill -9 in the middle of replay, restart: every change applied exactly once; SIGTERM stops cleanly', async () => {
    const state = join(base, 'state');
    const mirror = join(base, 'mirror');
    let p = startRun(state, mirror);
    await waitFor(() => existsSync(join(mirror, `file${N - 1}.txt`)), 'placeholders placed', 60_000);
    await waitFor(() => p.err().includes('watcher self-test passed'), 'watching', 30_000);
    const before = svc.requests().length;
    for (let i = 0; i < N; i++) renameSync(join(mirror, `file${i}.txt`), join(mirror, `renamed${i}.txt`));
    const patched = (): number =>
      svc
        .requests()
        .slice(before)
        .filter((r) => r.method === 'POST').length;
    await waitFor(() => patched() >= 5, 'replay started', 60_000);
    p.child.kill('SIGKILL');
    await p.exit;
    expect(patched()).toBeLessThan(N); // really in the middle
    p = startRun(state, mirror);
    await waitFor(() => ids.every((id, i) => svc.admin.get(id)!.name === `renamed${i}.txt`), 'all renamed on the NAS', 60_000);
    const perId = new Map<string, number>();
    for (const r of svc.requests().slice(before)) if (r.method === 'POST') perId.set(r.path, (perId.get(r.path) ?? 0) + 1);
    expect(perId.size).toBe(N);
    expect([...perId.values()].every((n) => n === 1)).toBe(true);
    expect(
      svc
        .requests()
        .slice(before)
        .filter((r) => r.method === 'DELETE'),
    ).toHaveLength(0);
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);
    expect(readdirSync(mirror).filter((n) => n.startsWith('renamed'))).toHaveLength(N);

    const status = JSON.parse(await cli('status', '--state', state, '--json')) as {
      objects: number;
      outbox: { pending: number };
      conflicts: number;
    };
    expect(status.objects).toBe(N);
    expect(status.outbox.pending).toBe(0);
    expect(status.conflicts).toBe(0);
    const log = JSON.parse(await cli('log', '--state', state, '--json', '--limit', '2000')) as {
      seq: number;
      kind: string;
      undoable: boolean;
    }[];
    expect(log.some((a) => a.kind === 'renamed' && a.undoable)).toBe(true);
    // for people: plain words, the way to undo, no protocol words (issue 25 point 6); --details adds them
    const words = await cli('log', '--state', state, '--limit', '2000');
    expect(words).toMatch(/^#\d+ {2}.+ {2}Renamed “file\d+\.txt” to “renamed\d+\.txt” {2}\(undo: nas-mirror undo \d+\)$/m);
    const jargon = /If-Match|eTag|inode|#\d+ applied|\b412\b/;
    expect(words.split('\n').filter((l) => jargon.test(l.replace(/^#\d+/, '')))).toEqual([]);
    expect(await cli('log', '--state', state, '--limit', '2000', '--details')).toMatch(/If-Match/);
    expect(await cli('held', '--state', state)).toContain('no held deletes');
    expect(await cli('conflicts', '--state', state)).toContain('no conflicts');

    // undo through the command line: queued, carried out by `run --once`
    const op = log.find((a) => a.kind === 'renamed' && a.undoable)!;
    expect(await cli('undo', String(op.seq), '--state', state)).toContain('queued');
    const once = startRun(state, mirror, ['--once']);
    expect(await once.exit).toBe(0);
    const logNow = JSON.parse(await cli('log', '--state', state, '--json', '--limit', '2000')) as { kind: string }[];
    expect(logNow.some((a) => a.kind === 'undo')).toBe(true);
    const undone = ids[Number(/renamed(\d+)/.exec(JSON.stringify(op))?.[1] ?? -1)];
    if (undone) expect(svc.admin.get(undone)!.name).toMatch(/^file\d+\.txt$/);
  }, 180_000);
});
