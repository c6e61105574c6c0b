/**
 * What the local filesystem can hold: letter case, Windows-forbidden names, name length.
 * `probeFsTraits` asks the real filesystem (case) and the platform (names); tests pass
 * traits explicitly to exercise every rule on any machine.
 */
import { join } from 'node:path';
import { realDisk, type Disk } from './disk.js';

export interface FsTraits {
  /** `a` and `A` are the same entry (macOS, Windows defaults). */
  caseInsensitive: boolean;
  /** Windows rules: `<>:"\|?*`, control characters, trailing dot/space, CON/PRN/AUX/NUL/COMn/LPTn. */
  windowsNames: boolean;
  /** Longest name in UTF-8 bytes (255 on ext4, APFS, NTFS in UTF-16 units: we use bytes, stricter). */
  maxNameBytes: number;
}

export const POSIX_TRAITS: FsTraits = { caseInsensitive: false, windowsNames: false, maxNameBytes: 255 };
export const WINDOWS_TRAITS: FsTraits = { caseInsensitive: true, windowsNames: true, maxNameBytes: 255 };

/**
 * Probes `dir` (an existing, writable folder) for case sensitivity and the names it refuses.
 * It creates no folder: a missing one (a disk not mounted) gets the platform's defaults, and
 * is probed again when it comes back.
 */
export function probeFsTraits(dir: string, platform: NodeJS.Platform = process.platform, disk: Disk = realDisk): FsTraits {
  const fallback: FsTraits = {
    caseInsensitive: platform === 'win32' || platform === 'darwin',
    windowsNames: platform === 'win32',
    maxNameBytes: 255,
  };
  if (!disk.exists(dir)) return fallback;
  const probe = join(dir, `.nas-mirror-probe-${process.pid}-Ab`);
  let caseInsensitive = fallback.caseInsensitive;
  try {
    disk.writeFile(probe, '');
    try {
      disk.lstat(join(dir, `.nas-mirror-probe-${process.pid}-aB`));
      caseInsensitive = true;
    } catch {
      caseInsensitive = false;
    }
  } catch {
    // keep the platform's default
  } finally {
    try {
      disk.rmFile(probe);
    } catch {
      /* the disk refused: the empty probe stays (listed as local only) */
    }
  }
  return { caseInsensitive, windowsNames: platform === 'win32' || refusesWindowsNames(dir, disk), maxNameBytes: 255 };
}

/**
 * Whether the file system refuses the names Windows refuses, whatever the platform: exFAT and
 * FAT do on Linux too (`a:b` gives EINVAL), so NAS names with `<>:"\|?*` must be mapped there.
 */
function refusesWindowsNames(dir: string, disk: Disk): boolean {
  const probe = join(dir, `.nas-mirror-probe-${process.pid}-a:b?`);
  try {
    disk.createFile(probe, undefined);
    disk.rmFile(probe);
    return false;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code !== 'EEXIST';
  }
}
