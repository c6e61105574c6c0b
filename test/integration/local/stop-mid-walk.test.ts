/**
 * Stopping `nas-mirror run` while one of its periodic re-walks waits on the NAS: the walk is
 * aborted, the process exits at once with 0, and nothing it left behind holds it open. Until
 * s33 the aborted walk's loop scheduled the next re-walk after the stop (a ref'd timer of up to
 * 50 min at 1M, the last walk's CPU spacing), so the bundled command line never exited and the
 * source one exited after its 3 s guard, saying what still held it open.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../server/testing.js';
import { waitFor } from './harness.js';
import { startRunProcess, type RunProcess } from './run-process.js';

let svc: TestService;
let base: string;
let run: RunProcess | undefined;

beforeAll(async () => {
  svc = await startTestService({ demo: { objects: 200, seed: 3 }, quirks: 'latency', latencyMs: 1000 });
  base = mkdtempSync(join(tmpdir(), 'nas-stop-walk-'));
});
afterAll(async () => {
  run?.child.kill('SIGKILL');
  await run?.exit;
  await svc.stop();
  rmSync(base, { recursive: true, force: true });
});

describe('nas-mirror run stopped during a re-walk', () => {
  it('exits at once with 0, nothing left holding it open', async () => {
    // re-walks 4 s apart: the aborted one's loop, before the fix, held the process past its 3 s guard
    run = startRunProcess(svc, join(base, 'state'), join(base, 'mirror'), ['--rewalk-sec', '4']);
    const r = run;
    await waitFor(() => r.err().includes('watcher self-test passed'), 'watching', 60_000);
    // the first round's requests are over once none came for a while; the next one is a re-walk
    let last = -1;
    let quietSince = Date.now();
    await waitFor(
      () => {
        const n = svc.requestCount();
        if (n !== last) {
          last = n;
          quietSince = Date.now();
        }
        return Date.now() - quietSince > 1500;
      },
      'the first round over',
      60_000,
      100,
    );
    const before = svc.requestCount();
    await waitFor(() => svc.requestCount() > before, 'a re-walk asking the NAS', 60_000, 20);
    const t0 = Date.now();
    r.child.kill('SIGTERM');
    expect(await r.exit).toBe(0);
    expect(Date.now() - t0).toBeLessThan(2500);
    expect(r.err()).not.toContain('still held open');
  }, 120_000);
});
