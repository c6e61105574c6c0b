/**
 * The disk the mirror folder is on, and whether its file ids (inode numbers) can be trusted.
 * An inode is evidence, never identity: ext4, XFS, btrfs, APFS and NTFS keep a file's id
 * across mounts, but exFAT and FAT drivers (the kernel's and FUSE's alike) hand ids out per
 * mount in the order they meet entries, and a restore from a copy gives every file a new id
 * on any disk. So the engine records what identifies the mount it placed the inodes on (the
 * file system's type and UUID, the device, the marker file's own inode: git-annex's sentinel)
 * and trusts recorded inodes only while all of it matches on a file system with stable ids;
 * otherwise it re-establishes inode <-> entry by place (folder + name) before pairing anything
 * (`pair-moves.ts`, place mode). See docs/sync-engine.md, "Identity".
 *
 * Also probed here, in the client's own folder: whether a folder's mtime moves when an entry
 * inside it is renamed (exFAT through FUSE: no, so folder stamps cannot find changes made
 * while stopped) and the file system's mtime granularity (FAT: 2 s, exFAT: 10 ms).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESERVED_DIR } from './local-names.js';
import { realDisk, type Disk } from './disk.js';

/** What the engine knows of the mirror folder's disk. */
export interface DiskIdentity {
  /** The file system's type ('ext4', 'exfat', 'ntfs', 'fuseblk' when FUSE hides it, 'unknown'). */
  fsType: string;
  /** File ids survive a remount (by type; unknown types and FUSE file systems we cannot name: no). */
  stableIds: boolean;
  /** A folder's mtime moves when an entry inside is renamed (probed): folder stamps can be trusted. */
  dirMtimeOnRename: boolean;
  /** The file system's mtime granularity in ms (probed; 0 when finer than a millisecond). */
  mtimeGranularityMs: number;
  /** What identifies the mount the inodes were read on; a change means "re-establish by place". */
  key: string;
}

/** A disk like ext4 (the tests' default when they do not probe). */
export const STABLE_DISK: DiskIdentity = { fsType: 'ext4', stableIds: true, dirMtimeOnRename: true, mtimeGranularityMs: 0, key: '' };

/** File system types whose file ids survive unmount and mount (research/identity.md). */
const STABLE_TYPES = new Set([
  'ext2',
  'ext3',
  'ext4',
  'xfs',
  'btrfs',
  'zfs',
  'f2fs',
  'bcachefs',
  'jfs',
  'reiserfs',
  'tmpfs',
  'apfs',
  'hfs',
  'hfsplus',
  'ntfs',
  'ntfs3',
]);

/** Whether ids on this file system type are stable. */
const stableIdsFor = (fsType: string): boolean => STABLE_TYPES.has(fsType);

export interface MountFacts {
  fsType: string;
  source: string;
  uuid: string | undefined;
  mountPoint: string;
}

/** The mount holding `abs` (an absolute, resolved path) from /proc/self/mountinfo; undefined when unreadable. */
export function linuxMount(abs: string, mountinfo?: string): MountFacts | undefined {
  let text = mountinfo;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/mountinfo', 'utf8');
    } catch {
      return undefined;
    }
  }
  let best: MountFacts | undefined;
  for (const line of text.split('\n')) {
    const dash = line.indexOf(' - ');
    if (dash < 0) continue;
    const left = line.slice(0, dash).split(' ');
    const right = line.slice(dash + 3).split(' ');
    const mp = unescapeMount(left[4] ?? '');
    if (!(abs === mp || abs.startsWith(mp.endsWith('/') ? mp : `${mp}/`))) continue;
    // the longest mount point wins; a later line for the same point is mounted over the earlier
    if (best && mp.length < best.mountPoint.length) continue;
    best = { fsType: right[0] ?? 'unknown', source: unescapeMount(right[1] ?? ''), uuid: undefined, mountPoint: mp };
  }
  return best;
}

const unescapeMount = (s: string): string => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/**
 * The real type and UUID of a block device behind a FUSE mount (`fuseblk` hides ntfs-3g and
 * exfat-fuse alike) or of any device: lsblk reads udev's database (no root needed), blkid the
 * device itself. Undefined when neither can tell.
 */
function deviceType(source: string): { fsType: string | undefined; uuid: string | undefined } | undefined {
  if (!source.startsWith('/dev/')) return undefined;
  const attempts: [string, string[]][] = [
    ['lsblk', ['-ndo', 'FSTYPE,UUID', source]],
    ['blkid', ['-o', 'export', source]],
  ];
  for (const [cmd, args] of attempts) {
    try {
      const out = execFileSync(cmd, args, { encoding: 'utf8', timeout: 3000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (cmd === 'lsblk') {
        const [t, u] = out.split(/\s+/);
        if (t) return { fsType: t, uuid: u || undefined };
      } else {
        const kv = new Map(
          out.split('\n').map((l) => {
            const i = l.indexOf('=');
            return [l.slice(0, i), l.slice(i + 1)] as const;
          }),
        );
        if (kv.get('TYPE')) return { fsType: kv.get('TYPE'), uuid: kv.get('UUID') };
      }
    } catch {
      // not installed, no permission, not a device: try the next
    }
  }
  return undefined;
}

/** macOS: the type `mount` prints for the volume holding `abs` ("/dev/disk4s1 on /Volumes/SD (exfat, local...)"). */
function darwinMount(abs: string): MountFacts | undefined {
  let out: string;
  try {
    out = execFileSync('/sbin/mount', { encoding: 'utf8', timeout: 3000 });
  } catch {
    return undefined;
  }
  let best: MountFacts | undefined;
  for (const line of out.split('\n')) {
    const m = /^(.*) on (.*) \(([^,)]+)/.exec(line);
    if (!m) continue;
    const mp = m[2]!;
    if (!(abs === mp || abs.startsWith(mp === '/' ? '/' : `${mp}/`))) continue;
    if (best && mp.length < best.mountPoint.length) continue;
    best = { fsType: m[3]!, source: m[1]!, uuid: undefined, mountPoint: mp };
  }
  return best;
}

/** The mount facts of the folder `abs` on this platform ('unknown' type where it cannot tell). */
export function mountFacts(abs: string, platform: NodeJS.Platform = process.platform): MountFacts {
  const unknown: MountFacts = { fsType: 'unknown', source: '', uuid: undefined, mountPoint: '' };
  if (platform === 'darwin') return darwinMount(abs) ?? unknown;
  if (platform !== 'linux') return unknown; // Windows: not probed yet (treated as without stable ids: a full scan at each start)
  const m = linuxMount(abs);
  if (!m) return unknown;
  if (m.fsType === 'fuseblk' || m.fsType.startsWith('fuse')) {
    const d = deviceType(m.source);
    return { ...m, fsType: d?.fsType ?? m.fsType, uuid: d?.uuid };
  }
  if (!m.source.startsWith('/dev/')) return m;
  return { ...m, uuid: deviceType(m.source)?.uuid };
}

/**
 * Probes the mirror folder `root` (which holds `.nas-mirror/`, where the probes are made):
 * the mount, the marker's inode, folder mtimes on rename and the mtime granularity. A probe
 * the disk refuses answers on the safe side (folder stamps not trusted).
 */
export function probeDiskIdentity(
  root: string,
  markerAbs: string,
  disk: Disk = realDisk,
  platform: NodeJS.Platform = process.platform,
): DiskIdentity {
  let real = root;
  try {
    real = disk.realpath(root);
  } catch {
    /* keep the path as given */
  }
  const m = mountFacts(real, platform);
  let dev = '?';
  let marker = '?';
  try {
    dev = disk.lstat(root).dev.toString();
  } catch {
    /* unreadable: the key will not match */
  }
  try {
    marker = disk.lstat(markerAbs).ino.toString();
  } catch {
    /* no marker yet: ditto */
  }
  const base = join(root, RESERVED_DIR);
  return {
    fsType: m.fsType,
    stableIds: stableIdsFor(m.fsType),
    dirMtimeOnRename: probeDirMtime(base, disk),
    mtimeGranularityMs: probeGranularity(base, disk),
    key: [m.fsType, m.uuid ?? m.source, dev, marker].join('|'),
  };
}

const probeName = (what: string): string => `.probe-${what}-${process.pid}`;

/** Does a folder's mtime move when an entry inside it is renamed? (a folder's mtime set back first: no clock tick needed) */
function probeDirMtime(base: string, disk: Disk): boolean {
  const d = join(base, probeName('dir'));
  try {
    disk.mkdir(d, true);
    disk.rmFile(join(d, 'b'));
    disk.rmFile(join(d, 'a'));
    disk.createFile(join(d, 'a'), undefined);
    disk.utimes(d, 1_000_000_000_000);
    const before = disk.lstat(d).mtimeNs;
    disk.rename(join(d, 'a'), join(d, 'b'));
    return disk.lstat(d).mtimeNs !== before;
  } catch {
    return false;
  } finally {
    try {
      disk.rmFile(join(d, 'a'));
      disk.rmFile(join(d, 'b'));
      disk.rmdir(d);
    } catch {
      /* left for the next probe */
    }
  }
}

/** The mtime granularity in ms: a time with 123 ms set and read back (ext4, NTFS: exact; exFAT: 10 ms; HFS+: 1 s; FAT: 2 s). */
function probeGranularity(base: string, disk: Disk): number {
  const f = join(base, probeName('time'));
  const t = 1_600_000_001_123;
  try {
    disk.rmFile(f);
    disk.createFile(f, t);
    const err = Math.abs(Number(disk.lstat(f).mtimeNs) / 1e6 - t);
    return err < 1 ? 0 : err <= 10 ? 10 : err <= 1000 ? 1000 : 2000;
  } catch {
    return 2000;
  } finally {
    try {
      disk.rmFile(f);
    } catch {
      /* left for the next probe */
    }
  }
}
