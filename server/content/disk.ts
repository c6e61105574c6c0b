/**
 * The one write the content store makes to disk while receiving bytes, behind a small
 * interface so tests can give the service a disk that fills up (`roomLimitedDisk`) without
 * touching the service itself. A full disk is an error with code ENOSPC (or EDQUOT).
 */
import type { FileHandle } from 'node:fs/promises';

export interface ContentDisk {
  /** Writes all of `data` at `position` of an open file, or throws (ENOSPC when there is no room). */
  write(file: FileHandle, data: Buffer, position: number): Promise<void>;
}

export const realDisk: ContentDisk = {
  async write(file, data, position) {
    let done = 0;
    while (done < data.length) {
      const { bytesWritten } = await file.write(data, done, data.length - done, position + done);
      done += bytesWritten;
    }
  },
};

/** An error like the one a full disk gives. */
export function noSpaceError(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
}

/** True for "the disk (or the user's quota) is full". */
export function isNoSpace(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** A disk with `room` bytes left (tests): a write past it stores what fits, then fails with ENOSPC. */
export interface RoomLimitedDisk extends ContentDisk {
  setRoom(bytes: number): void;
  room(): number;
}

export function roomLimitedDisk(room: number, base: ContentDisk = realDisk): RoomLimitedDisk {
  let left = room;
  return {
    async write(file, data, position) {
      if (data.length <= left) {
        await base.write(file, data, position);
        left -= data.length;
        return;
      }
      const fits = Math.max(0, left);
      if (fits > 0) await base.write(file, data.subarray(0, fits), position);
      left = 0;
      throw noSpaceError();
    },
    setRoom: (bytes) => {
      left = bytes;
    },
    room: () => left,
  };
}
