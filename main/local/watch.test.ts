import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalWatcher, type WatcherNotice } from './watch.js';
import { silentLogger } from '../log/logger.js';

let w: LocalWatcher | undefined;
let dir = '';
afterEach(async () => { await w?.close(); w = undefined; rmSync(dir, { recursive: true, force: true }); });

const until = async (c: () => boolean, what: string): Promise<void> => {
  const t0 = Date.now();
  while (!c()) {
    if (Date.now() - t0 > 15_000) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('LocalWatcher (real chokidar)', () => {
  it('says which folders to look at, ignores our own folder, passes its self-test', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-'));
    mkdirSync(join(dir, 'sub'));
    const batches: string[][] = [];
    w = new LocalWatcher(dir, (d) => batches.push(d), silentLogger);
    await w.start();
    expect(await w.selfTest()).toBe(true);
    writeFileSync(join(dir, 'sub', 'x'), '');
    writeFileSync(join(dir, '.nas-mirror', 'ignored'), '');
    await until(() => batches.flat().includes('sub'), 'sub marked');
    expect(batches.flat().some((d) => d.startsWith('.nas-mirror'))).toBe(false);
  });

  it('ENOSPC: a clear message and a polling fallback that still sees changes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-'));
    const batches: string[][] = [];
    const notices: WatcherNotice[] = [];
    w = new LocalWatcher(dir, (d) => batches.push(d), silentLogger, (n) => notices.push(n), { pollIntervalMs: 100 });
    await w.start();
    w.simulateError(Object.assign(new Error('watch ENOSPC'), { code: 'ENOSPC' }));
    await until(() => w!.isPolling && notices.some((n) => n.kind === 'restarted'), 'polling, restarted');
    expect(notices[0]).toMatchObject({ kind: 'polling' });
    expect((notices[0] as { reason: string }).reason).toContain('max_user_watches');
    batches.length = 0;
    mkdirSync(join(dir, 'later'));
    writeFileSync(join(dir, 'later', 'f'), '');
    await until(() => batches.flat().includes('later') || batches.flat().includes(''), 'polling sees a change');
  });
});
