import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalWatcher, suggestedLimit, watchesNeeded, type WatcherNotice } from './watch.js';
import { silentLogger } from '../log/logger.js';

let w: LocalWatcher | undefined;
let dir = '';
afterEach(async () => {
  await w?.close();
  w = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const until = async (c: () => boolean, what: string): Promise<void> => {
  const t0 = Date.now();
  while (!c()) {
    if (Date.now() - t0 > 15_000) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('LocalWatcher (real fs.watch, one per folder)', () => {
  it('says which folders to look at, ignores our own folder, passes its self-test', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-'));
    mkdirSync(join(dir, 'sub'));
    const batches: string[][] = [];
    w = new LocalWatcher(dir, (d) => batches.push(d), silentLogger);
    await w.start(['sub']);
    expect(await w.selfTest()).toBe(true);
    writeFileSync(join(dir, 'sub', 'x'), '');
    writeFileSync(join(dir, '.nas-mirror', 'ignored'), '');
    await until(() => batches.flat().includes('sub'), 'sub marked');
    expect(batches.flat().some((d) => d.startsWith('.nas-mirror'))).toBe(false);
  });

  it('holds one watch per folder, never one per file, and still sees file renames and writes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-'));
    for (const d of ['a', 'b', 'a/deep']) {
      mkdirSync(join(dir, d), { recursive: true });
      for (let i = 0; i < 100; i++) writeFileSync(join(dir, d, `f${i}`), '');
    }
    const before = inotifyWatches();
    const batches: string[][] = [];
    w = new LocalWatcher(dir, (d) => batches.push(d), silentLogger);
    await w.start(['a', 'b', 'a/deep']);
    const held = inotifyWatches() - before;
    // root, a, b, a/deep, .nas-mirror/selftest: not 300 files
    expect(held).toBe(5);
    expect(held).toBeLessThanOrEqual(watchesNeeded(dir));
    renameSync(join(dir, 'a/deep/f1'), join(dir, 'a/deep/g1'));
    await until(() => batches.flat().includes('a/deep'), 'a rename in a/deep');
    batches.length = 0;
    writeFileSync(join(dir, 'b', 'f7'), 'content');
    await until(() => batches.flat().includes('b'), 'a write in b');
    // a folder made (or moved in) later is watched too
    mkdirSync(join(dir, 'b', 'new'));
    await until(() => inotifyWatches() - before > held, 'the new folder watched');
    batches.length = 0;
    writeFileSync(join(dir, 'b', 'new', 'x'), '');
    await until(() => batches.flat().includes('b/new'), 'a file made in the new folder');
  });

  it('two folders that traded names in one go (a swap through a temporary name) are watched again by rewatch (seed 9026 r21)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-'));
    for (const d of ['M/A', 'M/B']) mkdirSync(join(dir, d), { recursive: true });
    writeFileSync(join(dir, 'M', 'A', 'a1'), '');
    writeFileSync(join(dir, 'M', 'B', 'b1'), '');
    const batches: string[][] = [];
    w = new LocalWatcher(dir, (d) => batches.push(d), silentLogger);
    await w.start(['M', 'M/A', 'M/B']);
    // back to back, as a file manager or a script swaps them: a watch follows its folder, not its path
    renameSync(join(dir, 'M', 'A'), join(dir, 'M', 'A.swap'));
    renameSync(join(dir, 'M', 'B'), join(dir, 'M', 'A'));
    renameSync(join(dir, 'M', 'A.swap'), join(dir, 'M', 'B'));
    await until(() => batches.flat().includes('M'), 'the swap seen in M');
    expect(w.rewatch(['M/A', 'M/B'])).toBe(2);
    // a change in each is seen (a probe in each, until it is: the new watches come a moment later)
    for (const [d, f] of [
      ['M/A', 'b1'],
      ['M/B', 'a1'],
    ] as const) {
      let i = 0;
      await until(() => {
        if (batches.flat().includes(d)) return true;
        batches.length = 0;
        renameSync(join(dir, ...d.split('/'), i === 0 ? f : `${f}.${i}`), join(dir, ...d.split('/'), `${f}.${i + 1}`));
        i++;
        return false;
      }, `a change in ${d}`);
    }
  });

  it('a folder made, moved in or made again at a watched path is watched with every folder below it, each read once watched', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-'));
    mkdirSync(join(dir, 'a'));
    const outside = mkdtempSync(join(tmpdir(), 'watch-out-'));
    mkdirSync(join(outside, 'tree', 'b', 'c'), { recursive: true });
    writeFileSync(join(outside, 'tree', 'b', 'c', 'before'), '');
    const batches: string[][] = [];
    w = new LocalWatcher(dir, (d) => batches.push(d), silentLogger);
    await w.start(['a']);
    // a tree moved in: its folders are watched, and each is read (what it held before is seen)
    renameSync(join(outside, 'tree'), join(dir, 'a', 'tree'));
    rmSync(outside, { recursive: true, force: true });
    await until(() => w!.watching('a/tree') && w!.watching('a/tree/b') && w!.watching('a/tree/b/c'), 'the tree watched');
    await until(() => batches.flat().includes('a/tree/b/c'), 'the deepest folder read');
    batches.length = 0;
    renameSync(join(dir, 'a/tree/b/c/before'), join(dir, 'a/tree/b/c/after'));
    await until(() => batches.flat().includes('a/tree/b/c'), 'a rename deep in the moved-in tree');
    // removed: its watches go with it; made again at the same path: the new folder is watched, not the old watch kept
    rmSync(join(dir, 'a', 'tree'), { recursive: true });
    await until(() => !w!.watching('a/tree') && !w!.watching('a/tree/b/c'), 'the removed tree unwatched');
    mkdirSync(join(dir, 'a', 'tree', 'b'), { recursive: true });
    await until(() => w!.watching('a/tree/b'), 'the folder made again watched');
    batches.length = 0;
    writeFileSync(join(dir, 'a', 'tree', 'b', 'new'), '');
    await until(() => batches.flat().includes('a/tree/b'), 'a file made in the folder made again');
  });

  it('a folder the start was not told about (made while stopped) is watched once ensureWatched names it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-'));
    mkdirSync(join(dir, 'a2', 'deep'), { recursive: true });
    writeFileSync(join(dir, 'a2', 'deep', 'f'), '');
    const batches: string[][] = [];
    w = new LocalWatcher(dir, (d) => batches.push(d), silentLogger);
    await w.start([]);
    expect([w.watching(''), w.watching('a2'), w.watching('a2/deep')]).toEqual([true, false, false]);
    expect(w.ensureWatched(['', 'a2', 'gone'])).toBe(2);
    expect(w.ensureWatched(['a2'])).toBe(0); // under way: not asked twice
    await until(() => w!.watching('a2') && w!.watching('a2/deep'), 'both watched');
    expect(w.watching('gone')).toBe(false);
    batches.length = 0;
    renameSync(join(dir, 'a2/deep/f'), join(dir, 'a2/deep/g'));
    await until(() => batches.flat().includes('a2/deep'), 'a rename inside the folder made while stopped');
  });

  it('ENOSPC: a clear message and a polling fallback that still sees changes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-'));
    const batches: string[][] = [];
    const notices: WatcherNotice[] = [];
    w = new LocalWatcher(
      dir,
      (d) => batches.push(d),
      silentLogger,
      (n) => notices.push(n),
      { pollIntervalMs: 100 },
    );
    await w.start([]);
    w.simulateError(Object.assign(new Error('watch ENOSPC'), { code: 'ENOSPC' }));
    await until(() => w!.isPolling && notices.some((n) => n.kind === 'restarted'), 'polling, restarted');
    expect(notices[0]).toMatchObject({ kind: 'polling' });
    const reason = (notices[0] as { reason: string }).reason;
    expect(reason).toContain('max_user_watches');
    expect(reason).toContain(`needs ${watchesNeeded(dir)} watches`);
    batches.length = 0;
    mkdirSync(join(dir, 'later'));
    writeFileSync(join(dir, 'later', 'f'), '');
    await until(() => batches.flat().includes('later') || batches.flat().includes(''), 'polling sees a change');
    // polling watches folders, not files: a rename inside a folder moves its mtime
    batches.length = 0;
    renameSync(join(dir, 'later', 'f'), join(dir, 'later', 'g'));
    await until(() => batches.flat().includes('later'), 'polling sees a rename in a folder');
    expect(await w.selfTest()).toBe(true);
  });

  it("a file the engine put in place itself does not make its folder read again while it is as put there; the user's change does", async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-'));
    mkdirSync(join(dir, 'kept'));
    mkdirSync(join(dir, '.nas-mirror', 'downloads'), { recursive: true });
    writeFileSync(join(dir, 'kept', 'a.bin'), '');
    const batches: string[][] = [];
    w = new LocalWatcher(dir, (d) => batches.push(d), silentLogger, undefined, { quietMs: 50 });
    await w.start(['kept']);
    // a download landing: the partial renamed over the placeholder, then told to the watcher (as Downloads.place does)
    const partial = join(dir, '.nas-mirror', 'downloads', 'a.part');
    writeFileSync(partial, 'the NAS version');
    const target = join(dir, 'kept', 'a.bin');
    renameSync(partial, target);
    const st = statSync(target, { bigint: true });
    w.placedByEngine([{ abs: target, ino: st.ino.toString(), size: Number(st.size), mtimeMs: Number(st.mtimeMs) }]);
    // a folder beside it changed after: its batch is the proof that the landing's event came and went
    writeFileSync(join(dir, 'other'), 'x');
    await until(() => batches.flat().includes(''), 'the root marked');
    await new Promise((r) => setTimeout(r, 300));
    expect(batches.flat()).not.toContain('kept');
    // the user writes the landed file: no longer as put there, its folder is read
    writeFileSync(target, 'the user edits it');
    await until(() => batches.flat().includes('kept'), 'the edit seen');
  });

  it('suggests a limit with room to grow', () => {
    expect(suggestedLimit(15_000)).toBe(524_288);
    expect(suggestedLimit(400_000)).toBe(1_048_576);
  });
});

/** inotify watches held by this process (Linux: the `inotify wd:` lines of its fds). */
function inotifyWatches(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fdinfo')) {
    try {
      n += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('inotify wd:')).length;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}
