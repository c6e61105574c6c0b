/**
 * test/support/loop-fs.ts itself: each kind is made, mounted with the right type, remounted
 * and removed, leaving no loop device, no mount and no file behind (destroy is idempotent).
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { available, FS_KINDS, makeDisk } from '../support/loop-fs.js';

const MOUNT_TYPE = { exfat: 'fuseblk', ntfs: 'fuseblk', xfs: 'xfs', btrfs: 'btrfs', ext4: 'ext4' } as const;

/** The file system type /proc/self/mountinfo shows at `dir`, or undefined when nothing is mounted there. */
function mountedType(dir: string): string | undefined {
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const f = line.split(' ');
    if (f[4] === dir) return f[f.indexOf('-') + 1];
  }
  return undefined;
}

describe('loop-fs', () => {
  for (const kind of FS_KINDS) {
    const why = available(kind);
    it.skipIf(why !== undefined)(`${kind}: make, remount, destroy${why ? ` (skipped: ${why})` : ''}`, async () => {
      const d = await makeDisk(kind, 400);
      try {
        expect(d.mounted).toBe(true);
        expect(mountedType(d.dir)).toBe(MOUNT_TYPE[kind]);
        expect(d.info().type).toBe(kind);
        expect(d.info().uuid).not.toBe('');
        writeFileSync(join(d.dir, 'kept.txt'), 'x');
        await d.remount();
        expect(mountedType(d.dir)).toBe(MOUNT_TYPE[kind]);
        expect(readFileSync(join(d.dir, 'kept.txt'), 'utf8')).toBe('x');
        await d.unmount();
        expect(mountedType(d.dir)).toBeUndefined();
        expect(existsSync(join(d.dir, 'kept.txt'))).toBe(false);
        await d.mount();
        expect(existsSync(join(d.dir, 'kept.txt'))).toBe(true);
      } finally {
        await d.destroy();
      }
      await d.destroy();
      expect(mountedType(d.dir)).toBeUndefined();
      expect(d.device).toBe('');
      expect(execFileSync('losetup', ['-a'], { encoding: 'utf8' })).not.toContain(d.image);
      expect(existsSync(dirname(d.image))).toBe(false);
    });
  }
});
