/**
 * A download's partial file as a content read fills it: chunks are taken at once and written
 * behind, several to one `writev` at their explicit positions, while the next ones arrive;
 * past `HIGH_WATER` bytes taken and unwritten a write waits (memory stays bounded, the answer
 * is paused). What is durable when: a byte is in the file (page cache) once a write batch
 * holding it ended, and durable once `finish()` resolved (every byte written, then fsync);
 * nothing may rename the partial before that. A read cut short keeps what it took (close
 * writes it, unsynced: a resumed read continues after it). The descriptor is closed only when
 * no write is in flight (a reused descriptor never receives a late write).
 */
import { closeSync, constants, fstatSync, fsync, ftruncateSync, openSync, writev, writevSync } from 'node:fs';
import { promisify } from 'node:util';
import type { ContentTarget } from '../client/content-read.js';
import { ignore } from '../../app/util/ignore.js';
import { diskError } from './disk.js';

/** A batch is written once this much is taken (the end of the body writes what is left). */
export const WRITE_BATCH = 512 * 1024;
/** Taken and not yet written past this, a write waits for the batch in flight. */
export const HIGH_WATER = 2 * 1024 * 1024;
/** What is left at the end is written on the spot up to this size (one small file: no round trip to the thread pool). */
export const SYNC_TAIL = 256 * 1024;

const writevAsync = promisify(writev);
const fsyncAsync = promisify(fsync);
const RESOLVED = Promise.resolve();

/** `bufs` less their first `n` bytes (what a short write left). */
function after(bufs: readonly Buffer[], n: number): Buffer[] {
  const out: Buffer[] = [];
  for (const b of bufs) {
    if (n >= b.length) n -= b.length;
    else {
      out.push(n > 0 ? b.subarray(n) : b);
      n = 0;
    }
  }
  return out;
}

export class PartialFile implements ContentTarget {
  /** Bytes taken: written, in flight, or queued (a resumed read asks from here). */
  private taken: number;
  /** Bytes known to be in the file (every write up to here ended). */
  private written: number;
  /** Chunks taken and waiting for the next write (those in flight are out of it), and their bytes. */
  private queue: Buffer[] = [];
  private queued = 0;
  private flight: Promise<void> | undefined;
  private failure: unknown;
  private fd: number | undefined;

  private constructor(
    private readonly abs: string,
    fd: number,
    held: number,
    private readonly taking: (bytes: number) => void,
  ) {
    this.fd = fd;
    this.taken = this.written = held;
  }

  /**
   * Opens the partial: emptied when `fresh`, else continued from its length (a partial longer
   * than `size` starts again). `taking` hears the bytes taken so far after each chunk.
   */
  static open(abs: string, fresh: boolean, size: number, taking: (bytes: number) => void = () => undefined): PartialFile {
    let fd: number;
    try {
      fd = openSync(abs, fresh ? 'w' : constants.O_RDWR | constants.O_CREAT, 0o666);
    } catch (e) {
      throw diskError('open', abs, e);
    }
    try {
      let held = fresh ? 0 : fstatSync(fd).size;
      if (held > size) {
        ftruncateSync(fd, 0);
        held = 0;
      }
      return new PartialFile(abs, fd, held, taking);
    } catch (e) {
      closeSync(fd);
      throw diskError('read', abs, e);
    }
  }

  offset(): number {
    return this.taken;
  }

  /** A whole body follows: what is held goes (after the write in flight, if any). */
  async restart(): Promise<void> {
    await this.settle();
    this.queue = [];
    this.queued = 0;
    if (this.written > 0) {
      try {
        ftruncateSync(this.descriptor(), 0);
      } catch (e) {
        throw this.failed(diskError('empty', this.abs, e));
      }
    }
    this.taken = this.written = 0;
    this.taking(0);
  }

  /**
   * Takes a chunk (kept as it came, not copied), written behind with the ones taken meanwhile
   * once a batch is there; the rest (a small file's whole body) is left to `finish`.
   */
  write(chunk: Buffer): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.fd === undefined) return Promise.reject(new Error(`${this.abs} is closed`));
    this.queue.push(chunk);
    this.queued += chunk.length;
    this.taken += chunk.length;
    this.taking(this.taken);
    if (this.flight === undefined && this.queued >= WRITE_BATCH) this.flight = this.writeQueued();
    if (this.flight !== undefined && this.queued >= HIGH_WATER) return this.settle();
    return RESOLVED;
  }

  /** Every byte taken written, then fsync'd: the partial is durable when this resolves. */
  async finish(): Promise<void> {
    await this.settle();
    if (this.queued > 0 && this.queued <= SYNC_TAIL) this.writeQueuedNow();
    else if (this.queued > 0) await (this.flight = this.writeQueued());
    await this.settle();
    try {
      await fsyncAsync(this.descriptor());
    } catch (e) {
      throw this.failed(diskError('sync', this.abs, e));
    }
  }

  /**
   * Writes what was taken and not yet written (a read cut short resumes after it: the bytes
   * are this version's), then closes the file once no write is in flight (idempotent).
   */
  async close(): Promise<void> {
    const why = 'the failure is kept and said by finish() or the next write; the descriptor is closed all the same';
    await this.settle().catch(ignore(why));
    if (this.fd === undefined) return;
    if (this.failure === undefined && this.queued > 0) {
      this.flight = this.writeQueued();
      await this.settle().catch(ignore(why));
    }
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }

  /** Resolves once no batch is in flight (rejects with the failure of one). */
  private async settle(): Promise<void> {
    while (this.flight !== undefined) await this.flight;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Writes the queue in batches until it is empty (another batch may be queued meanwhile); never rejects: a failure is kept. */
  private async writeQueued(): Promise<void> {
    try {
      while (this.queued > 0 && this.failure === undefined) {
        let bufs = this.queue;
        const n = this.queued;
        this.queue = [];
        this.queued = 0;
        for (let done = 0; done < n;) {
          const { bytesWritten: wrote } = await writevAsync(this.descriptor(), bufs, this.written + done);
          done += wrote;
          if (done < n) bufs = after(bufs, wrote);
        }
        this.written += n;
      }
    } catch (e) {
      this.failed(diskError('write', this.abs, e));
    } finally {
      this.flight = undefined;
    }
  }

  /** Writes the (small) queue on the spot. */
  private writeQueuedNow(): void {
    let bufs = this.queue;
    const n = this.queued;
    this.queue = [];
    this.queued = 0;
    try {
      for (let done = 0; done < n;) {
        const wrote = writevSync(this.descriptor(), bufs, this.written + done);
        done += wrote;
        if (done < n) bufs = after(bufs, wrote);
      }
    } catch (e) {
      throw this.failed(diskError('write', this.abs, e));
    }
    this.written += n;
  }

  private failed(e: unknown): unknown {
    this.failure ??= e;
    return this.failure;
  }

  private descriptor(): number {
    if (this.fd === undefined) throw new Error(`${this.abs} is closed`);
    return this.fd;
  }
}
