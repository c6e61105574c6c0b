/**
 * An upload's chunk sizes: the first one CHUNK_BYTES, then about CHUNK_SECS of sending at the
 * pace seen (whole MiB, within bounds); the last request never holds more than CHUNK_BYTES.
 */
import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES, chunkAt, MAX_CHUNK_BYTES, nextChunk } from './file-chunks.js';

const MiB = 1024 * 1024;

describe('chunks', () => {
  it('grow with the pace, within bounds', () => {
    expect(nextChunk(CHUNK_BYTES, 10)).toBe(MAX_CHUNK_BYTES); // 800 MiB/s: capped
    expect(nextChunk(CHUNK_BYTES, 1000)).toBe(CHUNK_BYTES); // 8 MiB/s: the floor
    expect(nextChunk(CHUNK_BYTES, 300)).toBe(26 * MiB); // 26.7 MiB/s: whole MiB
    expect(nextChunk(CHUNK_BYTES, 0)).toBe(MAX_CHUNK_BYTES);
  });

  it('the last request holds what a run of CHUNK_BYTES chunks would end with', () => {
    expect(chunkAt(100, CHUNK_BYTES)).toBe(100);
    expect(chunkAt(3 * CHUNK_BYTES, CHUNK_BYTES)).toBe(CHUNK_BYTES);
    // a tail past one chunk: what is before it goes first
    expect(chunkAt(CHUNK_BYTES + 12_345, MAX_CHUNK_BYTES)).toBe(CHUNK_BYTES);
    expect(chunkAt(7 * CHUNK_BYTES, MAX_CHUNK_BYTES)).toBe(6 * CHUNK_BYTES);
    expect(chunkAt(CHUNK_BYTES, MAX_CHUNK_BYTES)).toBe(CHUNK_BYTES);
    expect(chunkAt(200 * MiB, MAX_CHUNK_BYTES)).toBe(MAX_CHUNK_BYTES);
    // every byte sent, the last request at most CHUNK_BYTES
    for (const size of [1, CHUNK_BYTES - 1, CHUNK_BYTES + 1, 2 * CHUNK_BYTES + 12_345, 1024 * MiB + 5]) {
      let left = size;
      let last = 0;
      while (left > 0) {
        last = chunkAt(left, MAX_CHUNK_BYTES);
        expect(last).toBeGreaterThan(0);
        left -= last;
      }
      expect(left).toBe(0);
      expect(last).toBeLessThanOrEqual(CHUNK_BYTES);
    }
  });
});
