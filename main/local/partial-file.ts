/**
 * A download's partial file as a content read fills it: chunks are taken at once and written
 * behind, several to one `writev` at their explicit positions, while the next ones arrive;
 * past `HIGH_WATER` bytes taken and unwritten a write waits (memory stays bounded, the answer
 * is paused); while such writes are quick, a batch is written on the spot instead
 * (`InlineWrites`). What is durable when: a byte is in the file (page cache) once a write batch
 * holding it ended, and durable once `finish()` resolved (every byte written, then fsync; or,
 * `finish(false)`, once the caller synced it: file-syncer.ts); nothing may rename the partial
 * before that. A read cut short keeps what it took (close writes it, unsynced: a resumed read
 * continues after it). The descriptor is closed only when no write is in flight (a reused
 * descriptor never receives a late write). Bytes handed over to `copy` (a content read's, from
 * its connection's one buffer) are copied into blocks of this file's own, used again once
 * written, or for a small file written on the spot: no buffer per chunk to collect.
 */
import { closeSync, constants, fstatSync, fsync, ftruncateSync, openSync, writeSync, writev, writevSync } from 'node:fs';
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

/**
 * A batch goes to the disk on the spot, in the caller's thread, while such writes are quick
 * (the page cache takes them: ~0.2 ms per batch): handed to the thread pool instead, the
 * download of 1 GiB took 1.5 s against curl's 1.1-1.2 s on two cores (a fourth busy thread
 * beside the NAS's two and the engine's). A write slower than `SLOW_MS` (a slow disk, the
 * kernel throttling dirty pages) sends batches to the thread pool for a while, twice as long
 * each time it happens again (up to `MAX_BACKOFF_MS`), and a quick one resets that.
 */
export class InlineWrites {
  static readonly SLOW_MS = 8;
  static readonly FIRST_BACKOFF_MS = 30_000;
  static readonly MAX_BACKOFF_MS = 10 * 60_000;
  private until = 0;
  private backoff = InlineWrites.FIRST_BACKOFF_MS;

  /** True when the next batch may be written on the spot. */
  ok(now = Date.now()): boolean {
    return now >= this.until;
  }

  /** A batch written on the spot took `ms`. */
  took(ms: number, now = Date.now()): void {
    if (ms <= InlineWrites.SLOW_MS) {
      this.backoff = InlineWrites.FIRST_BACKOFF_MS;
      return;
    }
    this.until = now + this.backoff;
    this.backoff = Math.min(InlineWrites.MAX_BACKOFF_MS, this.backoff * 2);
  }
}

/** The process's (every partial file: one disk's page cache and its throttling). */
export const inlineWrites = new InlineWrites();

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
  /** `copy`'s blocks: the one being filled (and how far), and those written and free again. */
  private filling: Buffer | undefined;
  private filled = 0;
  private readonly free: Buffer[] = [];
  private readonly blocks = new Set<Buffer>();

  private constructor(
    private readonly abs: string,
    fd: number,
    held: number,
    private readonly taking: (bytes: number) => void,
    /** The bytes the whole file is expected to hold (a small file's block is no bigger than it). */
    private readonly size: number,
    private readonly inline: InlineWrites,
  ) {
    this.fd = fd;
    this.taken = this.written = held;
  }

  /**
   * Opens the partial: emptied when `fresh`, else continued from its length (a partial longer
   * than `size` starts again). `taking` hears the bytes taken so far after each chunk; `inline`
   * says when a batch may be written on the spot (the process's, but for tests).
   */
  static open(
    abs: string,
    fresh: boolean,
    size: number,
    taking: (bytes: number) => void = () => undefined,
    inline: InlineWrites = inlineWrites,
  ): PartialFile {
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
      return new PartialFile(abs, fd, held, taking, size, inline);
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
    this.filled = 0;
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
    this.seal();
    this.queue.push(chunk);
    this.queued += chunk.length;
    return this.took(chunk.length) ?? RESOLVED;
  }

  /**
   * Copies `bytes` into this file's blocks (the caller reuses its buffer); a promise to wait for
   * when too much is unwritten. A small file's (at most SYNC_TAIL in all) are written on the
   * spot instead, from the caller's buffer: no block of its own to allocate and collect.
   */
  copy(bytes: Buffer): Promise<void> | undefined {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.fd === undefined) return Promise.reject(new Error(`${this.abs} is closed`));
    if (this.size <= SYNC_TAIL && this.queued === 0 && this.filled === 0 && this.flight === undefined) {
      try {
        for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done, this.written + done);
      } catch (e) {
        return Promise.reject(this.failed(diskError('write', this.abs, e)));
      }
      this.written += bytes.length;
      return this.took(bytes.length);
    }
    for (let at = 0; at < bytes.length;) {
      const block = (this.filling ??= this.free.pop() ?? this.newBlock(this.size - this.taken - at));
      const n = Math.min(bytes.length - at, block.length - this.filled);
      bytes.copy(block, this.filled, at, at + n);
      this.filled += n;
      at += n;
      if (this.filled === block.length) {
        this.queue.push(block);
        this.queued += block.length;
        this.filling = undefined;
        this.filled = 0;
      }
    }
    return this.took(bytes.length);
  }

  /** `n` more bytes taken: a batch written behind when there is one; a promise while too much waits. */
  private took(n: number): Promise<void> | undefined {
    this.taken += n;
    this.taking(this.taken);
    if (this.flight === undefined && this.queued >= WRITE_BATCH) {
      if (!this.inline.ok()) this.flight = this.writeQueued();
      else {
        const t0 = performance.now();
        try {
          this.writeQueuedNow();
        } catch {
          // kept (writeQueuedNow): said by the next write and by finish, as a batch in flight's
          return undefined;
        }
        this.inline.took(performance.now() - t0);
      }
    }
    if (this.flight !== undefined && this.queued >= HIGH_WATER) return this.settle();
    return undefined;
  }

  /** A block for `left` more bytes expected: WRITE_BATCH, or just what is left of a small file (bytes past it: WRITE_BATCH). */
  private newBlock(left: number): Buffer {
    const b = Buffer.allocUnsafe(left > 0 ? Math.min(WRITE_BATCH, left) : WRITE_BATCH);
    this.blocks.add(b);
    return b;
  }

  /** The block being filled goes to the queue as it is (what is written next follows it). */
  private seal(): void {
    if (this.filling === undefined || this.filled === 0) return;
    this.queue.push(this.filling.subarray(0, this.filled));
    this.queued += this.filled;
    this.filling = undefined;
    this.filled = 0;
  }

  /**
   * Every byte taken written, then fsync'd: the partial is durable when this resolves. Without
   * `sync`, written only: the caller makes it durable (file-syncer.ts) before anything renames it.
   */
  async finish(sync = true): Promise<void> {
    await this.settle();
    this.seal();
    if (this.queued > 0 && this.queued <= SYNC_TAIL) this.writeQueuedNow();
    else if (this.queued > 0) await (this.flight = this.writeQueued());
    await this.settle();
    if (!sync) return;
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
    this.seal();
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
        const batch = this.queue;
        let bufs = batch;
        const n = this.queued;
        this.queue = [];
        this.queued = 0;
        for (let done = 0; done < n;) {
          const { bytesWritten: wrote } = await writevAsync(this.descriptor(), bufs, this.written + done);
          done += wrote;
          if (done < n) bufs = after(bufs, wrote);
        }
        this.written += n;
        // (copy's blocks, written: free for the next bytes)
        for (const b of batch) if (this.blocks.has(b)) this.free.push(b);
      }
    } catch (e) {
      this.failed(diskError('write', this.abs, e));
    } finally {
      this.flight = undefined;
    }
  }

  /** Writes the queue on the spot (a small file's, or a batch while such writes are quick: `inlineWrites`). */
  private writeQueuedNow(): void {
    const batch = this.queue;
    let bufs = batch;
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
    // (copy's blocks, written: free for the next bytes)
    for (const b of batch) if (this.blocks.has(b)) this.free.push(b);
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
