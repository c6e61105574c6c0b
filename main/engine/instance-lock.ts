/**
 * One engine per state folder: `engine.lock` holds the pid of the engine using it. A lock
 * whose process is gone (kill -9, crash) is taken over; a live one is refused.
 */
import { openSync, closeSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../app/errors.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes the lock; returns the release function. */
export function lockStateDir(dir: string): () => void {
  const path = join(dir, 'engine.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new AppError('BadConfig', `cannot lock ${dir}`, { cause: e });
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new AppError('BadConfig', `another NAS Mirror engine (pid ${pid}) is using ${dir}`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new AppError('BadConfig', `cannot lock ${dir}`);
}

/** The pid of a live engine using `dir`, or null. */
export function enginePid(dir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dir, 'engine.lock'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}
