/**
 * Moving the mirror folder to another disk (rename fails with EXDEV): the tree is COPIED into
 * a staging folder next to the target (same disk as the target), checked against the source
 * entry by entry, then renamed into place. The source is never touched here: until the caller
 * switches the state over, the old tree stays the truth, and an interrupted copy leaves only
 * the staging folder, which the next attempt removes and starts again (see `stagingFor`).
 * Folders, files (placeholders and real content, mode and times kept) and symbolic links
 * (as links, never followed) are copied; anything else (sockets, fifos) is refused.
 */
import { constants } from 'node:fs';
import { chmod, copyFile, lstat, lutimes, mkdir, readdir, readlink, rename, rm, rmdir, statfs, symlink, utimes } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ignore } from '../../app/util/ignore.js';

export type MovePhase = 'counting' | 'copying' | 'verifying' | 'switching' | 'removing-old' | 'done';
export interface MoveProgress {
  phase: MovePhase;
  done: number;
  total: number;
  bytes: number;
  totalBytes: number;
}

interface Entry {
  rel: string;
  kind: 'dir' | 'file' | 'link';
  size: number;
  mtimeMs: number;
  mode: number;
}

/** Files copied at once (a disk copy waits on I/O, not on the CPU). */
const PARALLEL = 8;

const formatBytes = (n: number): string => (n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GB` : `${Math.ceil(n / 1024 ** 2)} MB`);

/** The staging folder for a copy to `to`: hidden, next to it, so the last step is a rename on one disk. */
export function stagingFor(to: string): string {
  return join(dirname(to), `.${basename(to)}.nas-mirror-partial`);
}

/** Every entry under `root` (parents before children), relative paths with '/'. */
async function walk(root: string): Promise<Entry[]> {
  const out: Entry[] = [];
  const visit = async (rel: string): Promise<void> => {
    for (const name of (await readdir(rel ? join(root, rel) : root)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = await lstat(join(root, r));
      const kind = st.isDirectory() ? 'dir' : st.isFile() ? 'file' : st.isSymbolicLink() ? 'link' : null;
      if (kind === null) throw new Error(`${join(root, r)} is neither a file, a folder nor a link: move it out of the mirror first`);
      out.push({ rel: r, kind, size: kind === 'file' ? st.size : 0, mtimeMs: st.mtimeMs, mode: st.mode & 0o7777 });
      if (kind === 'dir') await visit(r);
    }
  };
  await visit('');
  return out;
}

export interface CopyOptions {
  from: string;
  to: string;
  onProgress?: (p: MoveProgress) => void;
  /** Called before each entry is copied (tests: an interruption at a chosen point). */
  beforeEntry?: (rel: string, index: number) => void;
  /** Called with the staging folder once the copy is verified, before it is renamed into place. */
  beforeSwitch?: (staging: string) => void;
}

/**
 * Copies `from` into `stagingFor(to)`, verifies it, and renames it to `to` (which must not
 * exist, or be an empty folder). On any failure the staging folder is removed and the error
 * rethrown: `to` and `from` are as they were.
 */
export async function copyTreeAcrossDisks(o: CopyOptions): Promise<void> {
  const staging = stagingFor(o.to);
  const say = new ProgressSay(o.onProgress ?? (() => undefined));
  await rm(staging, { recursive: true, force: true }); // an earlier, interrupted attempt: start again
  try {
    say.tick({ phase: 'counting', done: 0, total: 0, bytes: 0, totalBytes: 0 }, true);
    const entries = await walk(o.from);
    const total = entries.length;
    const totalBytes = entries.reduce((n, e) => n + e.size, 0);
    await checkRoom(o.to, total, totalBytes);
    await mkdir(staging, { recursive: false });
    const run: CopyRun = { o, staging, say, total, totalBytes, done: 0, bytes: 0 };
    const files = await copyFoldersAndLinks(run, entries);
    await copyFiles(run, files);
    await restoreFolderTimes(entries, staging);
    say.tick({ phase: 'verifying', done: total, total, bytes: run.bytes, totalBytes }, true);
    await verify(entries, staging);
    o.beforeSwitch?.(staging);
    say.tick({ phase: 'switching', done: total, total, bytes: run.bytes, totalBytes }, true);
    await rmdir(o.to).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
    await rename(staging, o.to);
  } catch (e) {
    await rm(staging, { recursive: true, force: true }).catch(
      ignore('the copy failed: its error is thrown below; a staging folder left over is removed by the next attempt'),
    );
    throw e;
  }
}

/** Progress, said at most every 200 ms unless forced. */
class ProgressSay {
  private last = 0;
  private readonly say: (p: MoveProgress) => void;

  constructor(say: (p: MoveProgress) => void) {
    this.say = say;
  }

  tick(p: MoveProgress, force = false): void {
    const now = Date.now();
    if (force || now - this.last >= 200) {
      this.last = now;
      const say = this.say;
      say(p);
    }
  }
}

/** A copy under way: where it goes, and how far it is. */
interface CopyRun {
  readonly o: CopyOptions;
  readonly staging: string;
  readonly say: ProgressSay;
  readonly total: number;
  readonly totalBytes: number;
  done: number;
  bytes: number;
}

/** One entry copied: counted, and said. */
function copied(run: CopyRun, e: Entry): void {
  run.done++;
  run.bytes += e.size;
  const { done, total, bytes, totalBytes } = run;
  run.say.tick({ phase: 'copying', done, total, bytes, totalBytes }, done === total);
}

/** Refuses a copy the target's disk has no room for. */
async function checkRoom(to: string, total: number, totalBytes: number): Promise<void> {
  const free = await statfs(dirname(to)).then(
    (f) => f.bavail * f.bsize,
    () => Infinity,
  );
  // placeholders take a block each even when empty: a margin of 4 KiB per entry
  if (free < totalBytes + total * 4096)
    throw new Error(`${dirname(to)} has ${formatBytes(free)} free; the mirror needs about ${formatBytes(totalBytes + total * 4096)}`);
}

/** Folders and links first, in order (parents before children); the files, with their index, are left for `copyFiles`. */
async function copyFoldersAndLinks(run: CopyRun, entries: Entry[]): Promise<[Entry, number][]> {
  const { o, staging } = run;
  const files: [Entry, number][] = [];
  for (const [i, e] of entries.entries()) {
    if (e.kind === 'file') {
      files.push([e, i]);
      continue;
    }
    o.beforeEntry?.(e.rel, i);
    if (e.kind === 'dir') await mkdir(join(staging, e.rel));
    else await symlink(await readlink(join(o.from, e.rel)), join(staging, e.rel));
    copied(run, e);
  }
  return files;
}

/** The files, PARALLEL at a time (mode and times kept); the first failure is rethrown once every copy stopped. */
async function copyFiles(run: CopyRun, files: [Entry, number][]): Promise<void> {
  const { o, staging } = run;
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failure === null && next < files.length) {
      const [e, i] = files[next++]!;
      try {
        o.beforeEntry?.(e.rel, i);
        const dst = join(staging, e.rel);
        await copyFile(join(o.from, e.rel), dst, constants.COPYFILE_EXCL);
        await chmod(dst, e.mode);
        await utimes(dst, e.mtimeMs / 1000, e.mtimeMs / 1000);
        copied(run, e);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker)); // every worker stops before the staging folder may go
  if (failure !== null) throw (failure as { error: unknown }).error;
}

/** Folders last, deepest first: writing into a folder moves its mtime. */
async function restoreFolderTimes(entries: Entry[], staging: string): Promise<void> {
  for (const e of [...entries].reverse()) {
    const dst = join(staging, e.rel);
    if (e.kind === 'dir') {
      await chmod(dst, e.mode);
      await utimes(dst, e.mtimeMs / 1000, e.mtimeMs / 1000);
    } else if (e.kind === 'link')
      await lutimes(dst, e.mtimeMs / 1000, e.mtimeMs / 1000).catch(ignore('a link keeps the copy time where the disk cannot set its own'));
  }
}

/** The copy holds exactly the source's entries: same kinds, same sizes, same file times. */
async function verify(source: Entry[], staging: string): Promise<void> {
  const copied = new Map((await walk(staging)).map((e) => [e.rel, e]));
  if (copied.size !== source.length) throw new Error(`the copy holds ${copied.size} entries, the mirror ${source.length}`);
  for (const e of source) {
    const c = copied.get(e.rel);
    if (!c || c.kind !== e.kind || c.size !== e.size || (e.kind === 'file' && Math.abs(c.mtimeMs - e.mtimeMs) >= 1)) {
      const was = `${e.kind} ${e.size} B ${new Date(e.mtimeMs).toISOString()}`;
      const is = c ? `${c.kind} ${c.size} B ${new Date(c.mtimeMs).toISOString()}` : 'missing';
      throw new Error(`the copy of ${e.rel} does not match the original (${is}, not ${was})`);
    }
  }
}
