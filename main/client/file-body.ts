/**
 * A request body read from an open file as it is sent (an upload's chunk, transport.ts): never
 * held whole in memory. It is read into a few buffers of its own, each written to the request
 * and read into again once the socket took it (no buffer per read: a GiB in fresh 1 MiB
 * buffers cost 0.4 s of garbage collection). The descriptor is the caller's: never closed
 * here, and `stop()` resolves only once no read of it is in flight, so a descriptor the
 * caller closes then, and the system hands out again, never receives a late read.
 */
import { read } from 'node:fs';
import type { Writable } from 'node:stream';

/** `length` bytes from `position` of the open file `fd` (the caller closes it after the request settled). */
export interface FileBody {
  fd: number;
  position: number;
  length: number;
}

/** Bytes per read, and buffers: at most this much of the file is held at once. */
const READ_BYTES = 512 * 1024;
const BUFFERS = 4;

export interface FileSending {
  /** Stops reading; resolves once no read is in flight. */
  stop(): Promise<void>;
}

/**
 * Writes the body's bytes to `to` as they are read, at the pace `to` takes them, then ends it.
 * `progress` after each read; `failed` once, with a read error or `short()` (the file got
 * shorter than the body says).
 */
export function sendFile(
  body: FileBody,
  to: Writable,
  hooks: { progress: () => void; failed: (e: Error) => void; short: () => Error },
): FileSending {
  let pos = body.position;
  let left = body.length;
  let reading = false;
  let stopped = false;
  let idle: (() => void) | undefined;
  const free: Buffer[] = Array.from({ length: Math.min(BUFFERS, Math.ceil(body.length / READ_BYTES)) }, () =>
    Buffer.allocUnsafe(READ_BYTES),
  );
  const fail = (e: Error): void => {
    if (stopped) return;
    stopped = true;
    hooks.failed(e);
  };
  const pump = (): void => {
    if (stopped || reading || left === 0) return;
    const buf = free.pop();
    if (buf === undefined) return; // every buffer is with the socket: the next write's end reads on
    const n = Math.min(READ_BYTES, left);
    reading = true;
    read(body.fd, buf, 0, n, pos, (err, got) => {
      reading = false;
      if (stopped) {
        idle?.();
        return;
      }
      if (err) return fail(err);
      if (got === 0) return fail(hooks.short());
      pos += got;
      left -= got;
      hooks.progress();
      // (the buffers are the flow control: the next read waits for one the socket gave back)
      to.write(buf.subarray(0, got), () => {
        free.push(buf);
        pump();
      });
      if (left === 0) to.end();
      pump();
    });
  };
  pump();
  return {
    stop: () => {
      stopped = true;
      return reading ? new Promise<void>((r) => (idle = r)) : Promise.resolve();
    },
  };
}
