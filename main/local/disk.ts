/**
 * The disk seam of the mirror folder (Syncthing's `fs` + `errorfs` pattern): every file
 * system call the client makes in the mirror folder (the local scan, the placeholder writer,
 * the put-back of a local batch, the root's health check, the probe) goes through one small
 * interface. `realDisk` is node:fs; `FaultDisk` wraps it and fails chosen calls on chosen
 * paths with a chosen errno (EIO, EACCES, ENOSPC, EMFILE, EXDEV...), or lets a call happen
 * and then "kills the process" (`crash`): every later call fails, as if the process had died
 * right after that write. Only ENOENT/ENOTDIR mean "absent": every other error is a
 * `DiskError` the caller must not read as a delete.
 */
import {
  closeSync,
  existsSync,
  readSync,
  fstatSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
  type BigIntStats,
} from 'node:fs';
import { AppError } from '../../app/errors.js';

export interface Disk {
  /** lstat with bigint fields; throws the errno error as node:fs does. */
  lstat(abs: string): BigIntStats;
  /** Entry names of a folder. */
  readdir(abs: string): string[];
  /** Entry names of a folder with whether each is a folder (no lstat per entry). */
  readdirKinds(abs: string): { name: string; dir: boolean }[];
  /** rename(2). */
  rename(from: string, to: string): void;
  /** mkdir(2) (with `recursive`: mkdir -p, no error when it exists). */
  mkdir(abs: string, recursive?: boolean): void;
  rmdir(abs: string): void;
  unlink(abs: string): void;
  /** Removes a file the client made itself (a probe); no error when absent. */
  rmFile(abs: string): void;
  /** Sets atime and mtime (ms since the epoch). */
  utimes(abs: string, ms: number): void;
  /** Creates an empty file exclusively (EEXIST when taken) with this mtime (ms) if given; its inode. */
  createFile(abs: string, ms: number | undefined): bigint;
  /** Writes a small file of the client's own (the marker). */
  writeFile(abs: string, text: string): void;
  readlink(abs: string): string;
  realpath(abs: string): string;
  /** existsSync: symlinks followed, false on any error. */
  exists(abs: string): boolean;
  /** Reads up to `length` bytes at `offset` of a file (an upload's chunk); fewer at its end. */
  readChunk(abs: string, offset: number, length: number): Buffer;
}

export const realDisk: Disk = {
  lstat: (abs) => lstatSync(abs, { bigint: true }),
  readdir: (abs) => readdirSync(abs),
  readdirKinds: (abs) => readdirSync(abs, { withFileTypes: true }).map((d) => ({ name: d.name, dir: d.isDirectory() })),
  rename: (from, to) => renameSync(from, to),
  mkdir: (abs, recursive = false) => {
    mkdirSync(abs, { recursive });
  },
  rmdir: (abs) => rmdirSync(abs),
  unlink: (abs) => unlinkSync(abs),
  rmFile: (abs) => rmSync(abs, { force: true }),
  utimes: (abs, ms) => utimesSync(abs, ms / 1000, ms / 1000),
  createFile: (abs, ms) => {
    const fd = openSync(abs, 'wx');
    try {
      if (ms !== undefined) futimesSync(fd, ms / 1000, ms / 1000);
      return fstatSync(fd, { bigint: true }).ino;
    } catch (e) {
      // half made (ENOSPC, EIO after the open): the empty file goes, never left to look like the user's
      try {
        unlinkSync(abs);
      } catch {
        /* the next create finds it: adopted as an empty twin */
      }
      throw e;
    } finally {
      closeSync(fd);
    }
  },
  writeFile: (abs, text) => writeFileSync(abs, text),
  readlink: (abs) => readlinkSync(abs),
  // (libc's realpath(3) where it is what the JS one does, at half the cost: it runs for every path checked)
  realpath: process.platform === 'win32' ? (abs) => realpathSync(abs) : (abs) => realpathSync.native(abs),
  exists: (abs) => existsSync(abs),
  readChunk: (abs, offset, length) => {
    const fd = openSync(abs, 'r');
    try {
      const buf = Buffer.allocUnsafe(length);
      let got = 0;
      while (got < length) {
        const n = readSync(fd, buf, got, length - got, offset + got);
        if (n === 0) break;
        got += n;
      }
      return got === length ? buf : buf.subarray(0, got);
    } finally {
      closeSync(fd);
    }
  },
};

/** True when the error says the path is not there (and only then). */
export function isAbsent(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** The errno code of a file system error ('unknown' when it has none). */
export const errnoOf = (e: unknown): string => (e as NodeJS.ErrnoException | undefined)?.code ?? 'unknown';

/**
 * The errno of a failure the disk itself caused (EIO, EACCES, ENOSPC...), or undefined for
 * absence, a taken name, or an error that is not the disk's (an unsafe name).
 */
export function diskErrno(e: unknown): string | undefined {
  if (e instanceof AppError) return e.code === 'DiskError' ? e.detail : undefined;
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === undefined || isAbsent(e) || code === 'EEXIST' ? undefined : code;
}

/** Any other file system error, as the typed error of the project (the path in the message). */
export function diskError(op: string, abs: string, e: unknown): AppError {
  const code = errnoOf(e);
  return new AppError('DiskError', `${op} ${abs} failed (${code}): the folder is not read, nothing is concluded from it`, {
    cause: e,
    detail: code,
  });
}

export type DiskOp = keyof Disk;

export interface Fault {
  op: DiskOp;
  /** Fails when the absolute path (for rename: the source) matches (a string: ends with it; a RegExp: tested). */
  path: string | RegExp;
  errno: string;
  /** How many calls fail (default: every call until `clear`). */
  times?: number;
  /** The call happens, then the process "dies": this and every later call fail (a crash test). */
  crash?: () => void;
}

/** A Disk that fails chosen calls (tests). Never used in production code. */
export class FaultDisk implements Disk {
  private faults: Fault[] = [];
  /** Set once a `crash` fault fired: every call fails (the process is gone). */
  private dead = false;
  /** Calls that failed, in order: `op path errno`. */
  readonly failed: string[] = [];
  constructor(private readonly inner: Disk = realDisk) {}

  add(f: Fault): this {
    this.faults.push({ ...f });
    return this;
  }

  clear(): void {
    this.faults = [];
  }

  lstat(abs: string): BigIntStats {
    return this.call('lstat', abs, () => this.inner.lstat(abs));
  }
  readdir(abs: string): string[] {
    return this.call('readdir', abs, () => this.inner.readdir(abs));
  }
  readdirKinds(abs: string): { name: string; dir: boolean }[] {
    return this.call('readdirKinds', abs, () => this.inner.readdirKinds(abs));
  }
  rename(from: string, to: string): void {
    this.call('rename', from, () => this.inner.rename(from, to));
  }
  mkdir(abs: string, recursive?: boolean): void {
    this.call('mkdir', abs, () => this.inner.mkdir(abs, recursive));
  }
  rmdir(abs: string): void {
    this.call('rmdir', abs, () => this.inner.rmdir(abs));
  }
  unlink(abs: string): void {
    this.call('unlink', abs, () => this.inner.unlink(abs));
  }
  rmFile(abs: string): void {
    this.call('rmFile', abs, () => this.inner.rmFile(abs));
  }
  utimes(abs: string, ms: number): void {
    this.call('utimes', abs, () => this.inner.utimes(abs, ms));
  }
  createFile(abs: string, ms: number | undefined): bigint {
    return this.call('createFile', abs, () => this.inner.createFile(abs, ms));
  }
  writeFile(abs: string, text: string): void {
    this.call('writeFile', abs, () => this.inner.writeFile(abs, text));
  }
  readlink(abs: string): string {
    return this.call('readlink', abs, () => this.inner.readlink(abs));
  }
  readChunk(abs: string, offset: number, length: number): Buffer {
    return this.call('readChunk', abs, () => this.inner.readChunk(abs, offset, length));
  }
  realpath(abs: string): string {
    return this.call('realpath', abs, () => this.inner.realpath(abs));
  }

  exists(abs: string): boolean {
    try {
      return this.call('exists', abs, () => this.inner.exists(abs));
    } catch {
      return false; // as existsSync: false on any error
    }
  }

  private call<T>(op: DiskOp, abs: string, fn: () => T): T {
    if (this.dead) throw this.errno(op, abs, 'EIO', 'the process was killed');
    const f = this.faults.find(
      (x) =>
        x.op === op && (typeof x.path === 'string' ? abs.endsWith(x.path) : x.path.test(abs)) && (x.times === undefined || x.times > 0),
    );
    if (!f) return fn();
    if (f.times !== undefined) f.times--;
    if (f.crash) {
      fn();
      this.dead = true;
      f.crash();
      throw this.errno(op, abs, f.errno, 'the process was killed right after this call');
    }
    throw this.errno(op, abs, f.errno, 'injected fault');
  }

  private errno(op: DiskOp, abs: string, code: string, why: string): NodeJS.ErrnoException {
    this.failed.push(`${op} ${abs} ${code}`);
    const e = new Error(`${code}: ${why}, ${op} '${abs}'`) as NodeJS.ErrnoException;
    e.code = code;
    return e;
  }
}
