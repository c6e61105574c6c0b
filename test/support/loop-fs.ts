/**
 * Real file systems for tests: a sparse image under os.tmpdir(), formatted, attached to a
 * loop device and mounted (exFAT and NTFS through FUSE: `mount.exfat-fuse`, `ntfs-3g`; xfs,
 * btrfs and ext4 through the kernel). Linux and root only; `available(kind)` says why not.
 *
 * Every disk made here is tracked: `destroyAllDisks()` (for afterAll) and a process 'exit'
 * hook unmount, detach and delete whatever is left, also after a failed or timed-out test.
 * Everything runs through execFileSync; a failing command throws with its stderr.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export type FsKind = 'exfat' | 'ntfs' | 'xfs' | 'btrfs' | 'ext4';
export const FS_KINDS: readonly FsKind[] = ['exfat', 'ntfs', 'xfs', 'btrfs', 'ext4'];

export interface LoopDisk {
  readonly kind: FsKind;
  /** The mount point (a fresh folder under os.tmpdir()). */
  readonly dir: string;
  /** The image file. */
  readonly image: string;
  /** The loop device while attached (`/dev/loopN`), else ''. */
  readonly device: string;
  readonly mounted: boolean;
  /** `blkid`'s TYPE and UUID of the device. */
  info(): { type: string; uuid: string };
  /** umount, then mount the same device again (on exFAT this hands out new inode numbers). */
  remount(): Promise<void>;
  unmount(): Promise<void>;
  mount(): Promise<void>;
  /** umount (lazily if it stays busy), losetup -d, delete the image and its folder. Idempotent. */
  destroy(): Promise<void>;
}

interface Spec {
  mkfs: string;
  mkfsArgs: (img: string) => string[];
  mount: (dev: string, dir: string) => [string, string[]];
  fuse: boolean;
  minMb: number;
}

const SPECS: Record<FsKind, Spec> = {
  exfat: {
    mkfs: 'mkfs.exfat',
    mkfsArgs: (img) => [img],
    mount: (dev, dir) => [tool('mount.exfat-fuse'), [dev, dir]],
    fuse: true,
    minMb: 8,
  },
  ntfs: { mkfs: 'mkntfs', mkfsArgs: (img) => ['-F', '-Q', img], mount: (dev, dir) => [tool('ntfs-3g'), [dev, dir]], fuse: true, minMb: 8 },
  xfs: {
    mkfs: 'mkfs.xfs',
    mkfsArgs: (img) => ['-q', img],
    mount: (dev, dir) => [tool('mount'), ['-t', 'xfs', dev, dir]],
    fuse: false,
    minMb: 300,
  },
  btrfs: {
    mkfs: 'mkfs.btrfs',
    mkfsArgs: (img) => ['-q', img],
    mount: (dev, dir) => [tool('mount'), ['-t', 'btrfs', dev, dir]],
    fuse: false,
    minMb: 128,
  },
  ext4: {
    mkfs: 'mkfs.ext4',
    mkfsArgs: (img) => ['-q', '-F', img],
    mount: (dev, dir) => [tool('mount'), ['-t', 'ext4', dev, dir]],
    fuse: false,
    minMb: 8,
  },
};
const MOUNT_TOOL: Record<FsKind, string> = { exfat: 'mount.exfat-fuse', ntfs: 'ntfs-3g', xfs: 'mount', btrfs: 'mount', ext4: 'mount' };

const SEARCH = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin', '/usr/bin', '/bin'].filter(
  Boolean,
);

function which(name: string): string | undefined {
  for (const d of SEARCH) if (existsSync(join(d, name))) return join(d, name);
  return undefined;
}

function tool(name: string): string {
  const p = which(name);
  if (!p) throw new Error(`loop-fs: ${name} is not installed (looked in ${SEARCH.join(':')})`);
  return p;
}

function run(cmd: string, args: string[], timeoutMs = 60_000): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
  } catch (e) {
    const err = e as { status?: number | null; signal?: string | null; stderr?: string; stdout?: string; message: string };
    const out = `${err.stderr ?? ''}${err.stdout ?? ''}`.trim();
    throw new Error(
      `loop-fs: \`${cmd} ${args.join(' ')}\` failed (${err.status != null ? `exit ${err.status}` : (err.signal ?? err.message)})${out ? `: ${out}` : ''}`,
    );
  }
}

function kernelHas(fs: string): boolean {
  try {
    if (
      readFileSync('/proc/filesystems', 'utf8')
        .split('\n')
        .some((l) => l.trim().split(/\s+/).pop() === fs)
    )
      return true;
  } catch {
    return false;
  }
  const modprobe = which('modprobe');
  if (!modprobe) return false;
  try {
    execFileSync(modprobe, ['-q', fs], { stdio: 'ignore', timeout: 10_000 });
    return readFileSync('/proc/filesystems', 'utf8').includes(fs);
  } catch {
    return false;
  }
}

const availability = new Map<FsKind, string | undefined>();

/** undefined when this machine can make and mount `kind`; otherwise why not. */
export function available(kind: FsKind): string | undefined {
  if (availability.has(kind)) return availability.get(kind);
  const why = ((): string | undefined => {
    if (process.platform !== 'linux') return `not Linux (${process.platform})`;
    if (process.getuid?.() !== 0) return 'not root: loop devices and mounts need root';
    for (const t of ['losetup', 'mount', 'umount', 'blkid', SPECS[kind].mkfs, MOUNT_TOOL[kind]])
      if (!which(t)) return `${t} is not installed`;
    if (!existsSync('/dev/loop-control') && !existsSync('/dev/loop0')) return 'no loop device (/dev/loop-control)';
    // a container may show the device nodes and still refuse them
    try {
      execFileSync(tool('losetup'), ['-f'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
    } catch (e) {
      return `no free loop device (\`losetup -f\`: ${String((e as { stderr?: unknown }).stderr ?? e).trim()})`;
    }
    if (SPECS[kind].fuse) {
      if (!existsSync('/dev/fuse')) return 'no /dev/fuse';
    } else if (!kernelHas(kind)) return `the kernel has no ${kind} support`;
    return undefined;
  })();
  availability.set(kind, why);
  return why;
}

/** The mount points of this mount namespace (octal escapes undone). */
function mountPoints(): Set<string> {
  const out = new Set<string>();
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const f = line.split(' ');
    if (f[4]) out.add(f[4].replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))));
  }
  return out;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Retries `fn` while it throws, up to `ms`; the last error is thrown. (Synchronous: usable in an 'exit' hook.) */
function retrying<T>(fn: () => T, ms: number, stepMs = 100): T {
  const t0 = Date.now();
  for (;;) {
    try {
      return fn();
    } catch (e) {
      if (Date.now() - t0 > ms) throw e;
      Atomics.wait(sleeper, 0, 0, stepMs);
    }
  }
}

const live = new Set<Disk>();

class Disk implements LoopDisk {
  device = '';
  mounted = false;
  private destroyed = false;

  constructor(
    readonly kind: FsKind,
    readonly base: string,
    readonly image: string,
    readonly dir: string,
  ) {}

  attach(): void {
    this.device = run(tool('losetup'), ['-f', '--show', this.image]).trim();
    if (!this.device.startsWith('/dev/')) throw new Error(`loop-fs: losetup gave no device for ${this.image}: '${this.device}'`);
  }

  mountSync(): void {
    if (this.mounted) return;
    if (!this.device) throw new Error(`loop-fs: ${this.kind} disk ${this.image} is not attached`);
    const [cmd, args] = SPECS[this.kind].mount(this.device, this.dir);
    // a FUSE daemon of the previous mount may still hold the device for a moment
    retrying(() => run(cmd, args), 10_000, 200);
    this.mounted = true;
    retrying(
      () => {
        if (!mountPoints().has(this.dir)) throw new Error(`loop-fs: ${this.dir} does not show in /proc/self/mountinfo after \`${cmd}\``);
      },
      10_000,
      50,
    );
  }

  unmountSync(lazyAtLast = false): void {
    if (!this.mounted && !mountPoints().has(this.dir)) {
      this.mounted = false;
      return;
    }
    try {
      retrying(() => run(tool('umount'), [this.dir]), 10_000, 200);
    } catch (e) {
      if (!lazyAtLast) throw e;
      run(tool('umount'), ['-l', this.dir]);
    }
    this.mounted = false;
    // FUSE: the daemon exits after umount returns; wait until it has let go of the device
    if (SPECS[this.kind].fuse)
      retrying(
        () => {
          if (mountPoints().has(this.dir)) throw new Error(`loop-fs: ${this.dir} still mounted`);
        },
        10_000,
        50,
      );
  }

  info(): { type: string; uuid: string } {
    const out = run(tool('blkid'), ['-p', '-o', 'export', this.device]);
    const get = (k: string): string => new RegExp(`^${k}=(.*)$`, 'm').exec(out)?.[1] ?? '';
    return { type: get('TYPE'), uuid: get('UUID') };
  }

  async remount(): Promise<void> {
    this.unmountSync();
    this.mountSync();
    await Promise.resolve();
  }

  async unmount(): Promise<void> {
    this.unmountSync();
    await Promise.resolve();
  }

  async mount(): Promise<void> {
    this.mountSync();
    await Promise.resolve();
  }

  async destroy(): Promise<void> {
    this.destroySync();
    await Promise.resolve();
  }

  /** Best effort at each step; throws at the end if a mount or a loop device was left. */
  destroySync(): void {
    if (this.destroyed) return;
    const errors: string[] = [];
    try {
      this.unmountSync(true);
    } catch (e) {
      errors.push(String(e));
    }
    if (this.device) {
      try {
        retrying(() => run(tool('losetup'), ['-d', this.device]), 5000, 200);
        this.device = '';
      } catch (e) {
        errors.push(String(e));
      }
    }
    if (!this.mounted) {
      try {
        rmSync(this.base, { recursive: true, force: true });
      } catch (e) {
        errors.push(String(e));
      }
    }
    if (errors.length === 0) {
      this.destroyed = true;
      live.delete(this);
      return;
    }
    throw new Error(`loop-fs: cleanup of the ${this.kind} disk ${this.image} left something behind: ${errors.join('; ')}`);
  }
}

/** Makes a `kind` file system of `sizeMb` (sparse) and mounts it at a fresh folder (`.dir`). */
export async function makeDisk(kind: FsKind, sizeMb = 400): Promise<LoopDisk> {
  const why = available(kind);
  if (why) throw new Error(`loop-fs: cannot make a ${kind} disk here: ${why}`);
  const spec = SPECS[kind];
  const base = mkdtempSync(join(tmpdir(), `nas-disk-${kind}-`));
  const image = join(base, `${kind}.img`);
  const dir = join(base, 'mnt');
  mkdirSync(dir);
  const disk = new Disk(kind, base, image, dir);
  live.add(disk);
  try {
    const fd = openSync(image, 'w');
    try {
      ftruncateSync(fd, Math.max(sizeMb, spec.minMb) * 1024 * 1024);
    } finally {
      closeSync(fd);
    }
    run(tool(spec.mkfs), spec.mkfsArgs(image), 120_000);
    disk.attach();
    disk.mountSync();
  } catch (e) {
    try {
      disk.destroySync();
    } catch {
      /* the first error says more */
    }
    throw e;
  }
  await Promise.resolve();
  return disk;
}

/** Unmounts, detaches and deletes every disk this process made and has not destroyed. */
export async function destroyAllDisks(): Promise<void> {
  const errors: string[] = [];
  for (const d of [...live]) {
    try {
      d.destroySync();
    } catch (e) {
      errors.push(String(e));
    }
  }
  await Promise.resolve();
  if (errors.length) throw new Error(errors.join('\n'));
}

process.once('exit', () => {
  for (const d of [...live]) {
    try {
      d.destroySync();
    } catch (e) {
      process.stderr.write(`${String(e)}\n`);
    }
  }
});
