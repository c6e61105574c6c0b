import { describe, expect, it } from 'vitest';
import { releaseMemory } from './release-memory.js';

describe('releaseMemory', () => {
  it('collects a big heap and gives its pages back to the system; the event loop goes on', async () => {
    // ~400 MB of objects, then let go: garbage in the heap until something collects it
    let junk: { i: number; s: string }[][] | undefined = [];
    for (let k = 0; k < 40; k++) junk.push(Array.from({ length: 100_000 }, (_, i) => ({ i, s: `item ${k} ${i}` })));
    junk = undefined;
    const before = process.memoryUsage();
    expect(before.heapUsed).toBeGreaterThan(256 * 1024 * 1024);
    expect(await releaseMemory()).toBe(true);
    const after = process.memoryUsage();
    expect(after.heapUsed).toBeLessThan(before.heapUsed / 4);
    // given back, not only marked free (a plain full collection keeps most of it resident)
    expect(before.rss - after.rss).toBeGreaterThan(150 * 1024 * 1024);
    // its inspector session let go of the event loop
    await new Promise((r) => setTimeout(r, 10));
    // a small heap is left to V8
    expect(await releaseMemory()).toBe(false);
  });
});
