/**
 * The chunks of a file going up (creates.ts): read from one descriptor by the request that
 * sends them (transport.ts `FileBody`), never held whole in memory. The first chunk is
 * `CHUNK_BYTES`; each later one is about `CHUNK_SECS` of sending at the pace of the one before
 * (at least `CHUNK_BYTES`, at most `MAX_CHUNK_BYTES`): over a fast link the NAS's cost per
 * request and the wait between requests are paid ~20 times per GiB instead of 128, over a slow
 * one the progress still moves every few seconds. The descriptor is opened on the file as the
 * upload saw it (same inode, size and time), so every byte sent is that file's.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import type { FileBody } from '../client/transport.js';
import { diskError } from '../local/disk.js';

/** Bytes of an upload's first request (and the most a file sent whole holds). */
export const CHUNK_BYTES = 8 * 1024 * 1024;
/** The most bytes one request sends. */
export const MAX_CHUNK_BYTES = 64 * 1024 * 1024;
/** A later chunk is about this long at the pace of the one before. */
export const CHUNK_SECS = 1;

/** What the disk showed of a file (lstat): the upload sends these bytes or none. */
export interface FileSeen {
  size: number;
  mtimeMs: number;
  ino: string;
}

export class FileChunks {
  private fd: number | undefined;

  private constructor(fd: number) {
    this.fd = fd;
  }

  /** The file at `abs`, opened for reading, when it is still the one seen; undefined when it changed (or left). */
  static open(abs: string, seen: FileSeen): FileChunks | undefined {
    let fd: number;
    try {
      fd = openSync(abs, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw diskError('open', abs, e);
    }
    try {
      const st = fstatSync(fd, { bigint: true });
      if (st.ino.toString() === seen.ino && Number(st.size) === seen.size && Number(st.mtimeMs) === seen.mtimeMs) return new FileChunks(fd);
    } catch (e) {
      closeSync(fd);
      throw diskError('read', abs, e);
    }
    closeSync(fd);
    return undefined;
  }

  /** `length` bytes from `offset`, read as the request sends them (the descriptor stays open until `close`). */
  body(offset: number, length: number): FileBody {
    if (this.fd === undefined) throw new Error('the file sent is closed');
    return { fd: this.fd, position: offset, length };
  }

  /** Closes the descriptor (once; only after the last request with a body of it settled). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * Bytes of the next request when `left` remain and chunks are `chunk` long. The last request
 * (`done=true`) holds what a run of `CHUNK_BYTES` chunks would end with, at most `CHUNK_BYTES`,
 * as before chunks grew: the bytes read while the request that finishes the upload goes stay
 * few (the file is checked before each request, not during one); what is left before them
 * goes first, in a request of its own.
 */
export function chunkAt(left: number, chunk: number): number {
  if (left > chunk || left <= CHUNK_BYTES) return Math.min(left, chunk);
  const tail = left % CHUNK_BYTES || CHUNK_BYTES;
  return left - tail;
}

/** The next chunk's size after one of `sent` bytes took `ms`: about `CHUNK_SECS` at that pace, whole MiB, within the bounds. */
export function nextChunk(sent: number, ms: number): number {
  const MiB = 1024 * 1024;
  const paced = ms > 0 ? (sent / ms) * 1000 * CHUNK_SECS : MAX_CHUNK_BYTES;
  return Math.min(MAX_CHUNK_BYTES, Math.max(CHUNK_BYTES, Math.floor(paced / MiB) * MiB));
}
