/**
 * The disk seam of the local folder (Syncthing's `fs` + `errorfs` pattern): the few file
 * system calls the local pipeline reads the mirror with, behind one small interface.
 * `realDisk` is node:fs; `FaultDisk` wraps it and fails chosen calls on chosen paths with a
 * chosen errno (EIO, EACCES, ENOSPC, EMFILE, EXDEV...), so tests can fail the disk at exact points.
 * Only ENOENT/ENOTDIR mean "absent": every other error is a `DiskError` the caller must not
 * read as a delete.
 */
import { lstatSync, readdirSync, renameSync, type BigIntStats } from 'node:fs';
import { AppError } from '../../app/errors.js';

export interface Disk {
  /** lstat with bigint fields; throws the errno error as node:fs does. */
  lstat(abs: string): BigIntStats;
  /** Entry names of a folder; throws the errno error as node:fs does. */
  readdir(abs: string): string[];
  /** rename(2); throws the errno error as node:fs does. */
  rename(from: string, to: string): void;
}

export const realDisk: Disk = {
  lstat: (abs) => lstatSync(abs, { bigint: true }),
  readdir: (abs) => readdirSync(abs),
  rename: (from, to) => renameSync(from, to),
};

/** True when the error says the path is not there (and only then). */
export function isAbsent(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Any other file system error, as the typed error of the project (the path in the message). */
export function diskError(op: string, abs: string, e: unknown): AppError {
  const code = (e as NodeJS.ErrnoException | undefined)?.code ?? 'unknown';
  return new AppError('DiskError', `${op} ${abs} failed (${code}): the folder is not read, nothing is concluded from it`, { cause: e, detail: code });
}

export type DiskOp = keyof Disk;

export interface Fault {
  op: DiskOp;
  /** Fails when the absolute path (for rename: the source) matches (a string: ends with it; a RegExp: tested). */
  path: string | RegExp;
  errno: string;
  /** How many calls fail (default: every call until `clear`). */
  times?: number;
}

/** A Disk that fails chosen calls (tests). Never used in production code. */
export class FaultDisk implements Disk {
  private faults: Fault[] = [];
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
    this.check('lstat', abs);
    return this.inner.lstat(abs);
  }

  readdir(abs: string): string[] {
    this.check('readdir', abs);
    return this.inner.readdir(abs);
  }

  rename(from: string, to: string): void {
    this.check('rename', from);
    this.inner.rename(from, to);
  }

  private check(op: DiskOp, abs: string): void {
    const f = this.faults.find((x) => x.op === op && (typeof x.path === 'string' ? abs.endsWith(x.path) : x.path.test(abs)) && (x.times === undefined || x.times > 0));
    if (!f) return;
    if (f.times !== undefined) f.times--;
    this.failed.push(`${op} ${abs} ${f.errno}`);
    const e = new Error(`${f.errno}: injected fault, ${op} '${abs}'`) as NodeJS.ErrnoException;
    e.code = f.errno;
    throw e;
  }
}
