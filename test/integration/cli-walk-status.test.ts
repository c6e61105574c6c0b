/**
 * `nas-mirror status` during a first mirror (issue 25 point 12), spawned as a user runs it
 * beside a running `nas-mirror run`: it says how far the walk is in the window's words, the
 * items the walk knows exist and, once that total is settled, the percentage and the time
 * left; the engine "syncing" meanwhile. The service answers slowly (its `latency` quirk: 1.5 s
 * a request, as the walk lists small folders several in one request, a few rounds of requests
 * in all) so the first walk of a demo library of 20,000 objects lasts ~20 s, each stage
 * long enough for `status` spawned by three pollers in turns on a busy machine (~1 s a spawn) to see it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../server/testing.js';
import { waitFor } from '../support/wait.js';
import { ROOT, startRunProcess, type RunProcess } from './local/run-process.js';

let svc: TestService;
let base: string;
let run: RunProcess | undefined;

const status = (state: string): Promise<string> =>
  new Promise((res, rej) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bin', 'nas-mirror.js'), 'status', '--state', state],
      { cwd: ROOT, timeout: 30_000 },
      (e, out) => (e ? rej(e) : res(out)),
    );
  });

beforeAll(async () => {
  svc = await startTestService({ demo: { objects: 20000, seed: 7 }, quirks: 'latency', latencyMs: 1500 });
  base = mkdtempSync(join(tmpdir(), 'nas-cli-walk-'));
});
afterAll(async () => {
  run?.child.kill('SIGTERM');
  await run?.exit;
  await svc.stop();
  rmSync(base, { recursive: true, force: true });
});

describe('nas-mirror status during a first mirror', () => {
  it('says the items known so far, then the total with the percentage and the time left; the whole count once it is done', async () => {
    const state = join(base, 'state');
    run = startRunProcess(svc, state, join(base, 'mirror'));
    const walkLines: string[] = [];
    const walking: string[] = [];
    let done = '';
    let answers = 0;
    // three `status` spawned in turns, each again as soon as it answered: a spawn takes a second
    // or more on a busy machine. The total settles after 16 reports that did not grow it: on
    // 5,000 objects that was the walk's last round or two (CI missed it twice), on 20,000 about
    // half the walk
    const poll = async (): Promise<void> => {
      while (done === '') {
        const out = await status(state).catch(() => '');
        answers++;
        const line = /^walk: +(.*)$/m.exec(out)?.[1];
        if (line) {
          walkLines.push(line);
          walking.push(out);
        }
        if (/^last complete walk: +\d{4}-/m.test(out) && !line) done = out;
      }
    };
    const pollers: Promise<void>[] = [];
    for (let i = 0; i < 3; i++) {
      pollers.push(poll());
      await waitFor(() => done !== '' || answers > i, 'a status answer', 30_000, 50);
    }
    await waitFor(() => done !== '', 'the first walk to end', 90_000, 100);
    await Promise.all(pollers);
    // the items the walk knows exist while it still grows, then the NAS's whole count, said before the walk ended
    expect(
      walkLines.some((l) => /^Reading the NAS: [\d,]+ of at least [\d,]+ items$/.test(l)),
      walkLines.join('\n'),
    ).toBe(true);
    const total = walkLines.filter((l) => / of 20,000 items \(/.test(l));
    expect(total.length, walkLines.join('\n')).toBeGreaterThan(0);
    expect(total[0]).toMatch(/^Reading the NAS: [\d,]+ of 20,000 items \(\d{1,2} %\)( · (less than a minute|about \d+ min) left)?$/);
    // never a wrong total: no "of N items" but 5,000
    for (const l of walkLines) if (/ of [\d,]+ items \(/.test(l)) expect(l).toContain(' of 20,000 items (');
    // while it walks the engine is syncing; once done, the whole count, with the same separators
    expect(
      walking.every((o) => /^state: +syncing/m.test(o)),
      walking.join('\n'),
    ).toBe(true);
    expect(done).toMatch(/^mirrored: +20,000 objects/m);
  }, 120_000);
});
