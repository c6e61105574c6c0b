/**
 * The partial file alone on a real temp folder: chunks taken at once land at their places
 * (several per write, behind or on the spot: `InlineWrites`), a fresh partial is emptied and a kept one continued from its length, a
 * whole body restarts it, a write past the high-water mark waits for the batch in flight, a
 * failed write is said by the next write and by finish (never swallowed), and the descriptor
 * is closed only once no write is in flight.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HIGH_WATER, InlineWrites, PartialFile, SYNC_TAIL, WRITE_BATCH } from './partial-file.js';

/** Batches go to the thread pool (as after a slow write: `InlineWrites`), for the tests of writes behind. */
const behind = (): InlineWrites => {
  const w = new InlineWrites();
  w.took(InlineWrites.SLOW_MS + 1);
  return w;
};

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'nm-partial-'));
  dirs.push(d);
  return join(d, 'x.part');
};
/** `n` bytes of a pattern that differs at every offset of a chunk (a misplaced chunk shows). */
const pattern = (n: number, seed = 1): Buffer => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7 + (i >> 11)) & 0xff;
  return b;
};
const chunksOf = (b: Buffer, size: number): Buffer[] => {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
};

describe('PartialFile', () => {
  it.each([
    ['behind (the thread pool)', behind],
    ['on the spot, while such writes are quick', () => new InlineWrites()],
  ])('writes many chunks %s, each at its place, and holds all of them after finish', async (_, writes) => {
    const abs = temp();
    const data = pattern(3 * WRITE_BATCH + 12_345);
    const seen: number[] = [];
    const p = PartialFile.open(abs, true, data.length, (n) => seen.push(n), writes());
    for (const c of chunksOf(data, 65_536)) await p.write(c);
    expect(p.offset()).toBe(data.length);
    await p.finish();
    await p.close();
    expect(readFileSync(abs).equals(data)).toBe(true);
    expect(seen.at(-1)).toBe(data.length);
  });

  it('writes a batch on the spot while such writes are quick; after a slow one, behind for a while, longer each time', async () => {
    const abs = temp();
    const quick = new InlineWrites();
    const p = PartialFile.open(abs, true, 4 * WRITE_BATCH, undefined, quick);
    // on the spot: the batch is in the file when the write returns, before any other turn of the loop
    void p.write(pattern(WRITE_BATCH, 3));
    expect(statSync(abs).size).toBe(WRITE_BATCH);
    await p.close();
    const w = new InlineWrites();
    const t = 1_000_000;
    expect(w.ok(t)).toBe(true);
    w.took(InlineWrites.SLOW_MS + 1, t);
    expect([w.ok(t + InlineWrites.FIRST_BACKOFF_MS - 1), w.ok(t + InlineWrites.FIRST_BACKOFF_MS)]).toEqual([false, true]);
    const t2 = t + InlineWrites.FIRST_BACKOFF_MS;
    w.took(InlineWrites.SLOW_MS + 1, t2);
    expect([w.ok(t2 + 2 * InlineWrites.FIRST_BACKOFF_MS - 1), w.ok(t2 + 2 * InlineWrites.FIRST_BACKOFF_MS)]).toEqual([false, true]);
    // a quick one: the next slow one counts from the first backoff again
    w.took(0.2, t2 + 2 * InlineWrites.FIRST_BACKOFF_MS);
    const t3 = t2 + 3 * InlineWrites.FIRST_BACKOFF_MS;
    w.took(InlineWrites.SLOW_MS + 1, t3);
    expect(w.ok(t3 + InlineWrites.FIRST_BACKOFF_MS)).toBe(true);
  });

  it('copy takes bytes from a buffer the caller reuses at once, in order with written chunks; its blocks are used again', async () => {
    const abs = temp();
    const data = pattern(6 * WRITE_BATCH + 777);
    const p = PartialFile.open(abs, true, data.length, undefined, behind());
    const reused = Buffer.alloc(200_000);
    let at = 0;
    let waited = 0;
    for (const c of chunksOf(data.subarray(0, 5 * WRITE_BATCH), 200_000)) {
      // (the caller's one buffer, overwritten after each copy)
      c.copy(reused);
      const wait = p.copy(reused.subarray(0, c.length));
      reused.fill(0xee);
      if (wait) {
        waited++;
        await wait;
      }
      at += c.length;
    }
    expect(p.offset()).toBe(at);
    // a chunk handed on as it came follows the bytes copied before it
    await p.write(Buffer.from(data.subarray(at, at + 100_000)));
    for (const c of chunksOf(data.subarray(at + 100_000), 65_536)) await p.copy(Buffer.from(c));
    await p.finish();
    await p.close();
    expect(readFileSync(abs).equals(data)).toBe(true);
    expect(waited).toBeGreaterThan(0);
    // blocks used again once written: never more than the high-water mark's worth and the one being filled
    expect((p as unknown as { blocks: Set<Buffer> }).blocks.size).toBeLessThanOrEqual(HIGH_WATER / WRITE_BATCH + 2);
  });

  it('a small body is written at finish, in one go', async () => {
    const abs = temp();
    const data = pattern(SYNC_TAIL - 1);
    const p = PartialFile.open(abs, true, data.length);
    await p.write(data);
    // taken, not yet written: nothing reaches the file before finish
    expect(statSync(abs).size).toBe(0);
    await p.finish();
    await p.close();
    expect(readFileSync(abs).equals(data)).toBe(true);
  });

  it('empties a fresh partial, continues a kept one from its length, and starts over one longer than the file', async () => {
    const abs = temp();
    writeFileSync(abs, 'old bytes of another version');
    const fresh = PartialFile.open(abs, true, 10);
    expect(fresh.offset()).toBe(0);
    await fresh.close();
    expect(statSync(abs).size).toBe(0);

    writeFileSync(abs, 'abcd');
    const kept = PartialFile.open(abs, false, 10);
    expect(kept.offset()).toBe(4);
    await kept.write(Buffer.from('efghij'));
    await kept.finish();
    await kept.close();
    expect(readFileSync(abs, 'utf8')).toBe('abcdefghij');

    writeFileSync(abs, 'much longer than ten bytes');
    const long = PartialFile.open(abs, false, 10);
    expect(long.offset()).toBe(0);
    await long.close();
    expect(statSync(abs).size).toBe(0);
  });

  it('a whole body (restart) drops what was held and what was queued', async () => {
    const abs = temp();
    const p = PartialFile.open(abs, true, 20);
    await p.write(pattern(2 * WRITE_BATCH, 3));
    await p.write(Buffer.from('queued'));
    await p.restart();
    expect(p.offset()).toBe(0);
    await p.write(Buffer.from('the whole new body'));
    await p.finish();
    await p.close();
    expect(readFileSync(abs, 'utf8')).toBe('the whole new body');
  });

  it('a write past the high-water mark waits for the batch in flight', async () => {
    const abs = temp();
    const p = PartialFile.open(abs, true, 2 * HIGH_WATER, undefined, behind());
    const chunk = pattern(65_536);
    let waited = 0;
    for (let n = 0; n < (2 * HIGH_WATER) / chunk.length; n++) {
      let settled = false;
      const w = p.write(chunk).then(() => {
        settled = true;
      });
      // a write under the mark settles at once (a microtask); one past it waits for the disk
      await Promise.resolve();
      await Promise.resolve();
      if (!settled) waited++;
      await w;
    }
    expect(waited).toBeGreaterThan(0);
    await p.finish();
    await p.close();
    expect(statSync(abs).size).toBe(2 * HIGH_WATER);
  });

  it('bytes past the expected size (another version) are written behind too, never held in memory', async () => {
    const abs = temp();
    const p = PartialFile.open(abs, true, 10);
    const data = pattern(HIGH_WATER + 3 * 65_536, 9);
    for (const c of chunksOf(data, 65_536)) await p.write(c);
    // most of it is in the file already, before any finish
    await new Promise((r) => setTimeout(r, 50));
    expect(statSync(abs).size).toBeGreaterThan(HIGH_WATER / 2);
    await p.close();
    expect(readFileSync(abs).equals(data)).toBe(true);
  });

  it.skipIf(process.platform !== 'linux')('a failed write is said by the next write and by finish, never swallowed', async () => {
    // /dev/full: every write fails with ENOSPC (a full disk)
    const big = PartialFile.open('/dev/full', true, 4 * WRITE_BATCH);
    await big.write(pattern(WRITE_BATCH)); // starts a batch, which fails in the thread pool
    await expect(big.finish()).rejects.toMatchObject({ code: 'DiskError', detail: 'ENOSPC' });
    await expect(big.write(pattern(10))).rejects.toMatchObject({ code: 'DiskError' });
    await big.close();

    const small = PartialFile.open('/dev/full', true, 100);
    await small.write(pattern(100));
    await expect(small.finish()).rejects.toMatchObject({ code: 'DiskError', detail: 'ENOSPC' });
    await small.close();
  });

  it('closes only once no write is in flight, and a second close is nothing', async () => {
    const abs = temp();
    const p = PartialFile.open(abs, true, 4 * WRITE_BATCH, undefined, behind());
    const data = pattern(4 * WRITE_BATCH, 5);
    for (const c of chunksOf(data, WRITE_BATCH)) void p.write(c);
    await p.close(); // the batches in flight end first: their bytes are in the file
    await p.close();
    expect(readFileSync(abs).equals(data)).toBe(true);
    await expect(p.write(Buffer.from('late'))).rejects.toThrow(/closed/);
  });
});
