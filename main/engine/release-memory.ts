/**
 * Hands a big walk's garbage back at once. A first walk of 1M objects leaves ~600 MB of dead
 * pages, changes and rows in the heap. Left alone, V8's memory reducer collects it a minute
 * or so after the walk: a full mark-compact of a ~1.7 GB heap, seconds of CPU on every core,
 * at a moment nobody chose ("idle" CPU), while until then the engine's RSS stays at its peak
 * as the index's final rebuild starts in its worker. Collected at the walk's end instead,
 * the heap shrinks before that rebuild, and idle is idle. `releaseMemory` (below) runs at a
 * big walk's end (remote-rounds.ts), when the engine is ready (engine.ts) and when the index
 * has caught up (api/compose.ts): the last moments before a worker's build or the rounds'
 * quiet time; `releaseGarbage` when the index replaced itself after a catch-up rebuild.
 */
import { Session } from 'node:inspector';
import { fullGc } from '../index/full-gc.js';

/** Heaps below this are left to V8's own pace (at 100k objects the engine's is ~100-200 MB). */
const WORTH_BYTES = 64 * 1024 * 1024;

/** A full garbage collection now, when the heap is big enough to matter. Returns whether it ran. */
export function releaseGarbage(): boolean {
  if (process.memoryUsage().heapUsed < WORTH_BYTES) return false;
  fullGc();
  return true;
}

/**
 * Gives a big heap's free memory back to the system now: V8's low-memory collection (what the
 * inspector's `HeapProfiler.collectGarbage` asks for), which also compacts and returns the
 * pages a plain collection keeps pooled. Left to V8's memory reducer, the same happened ~35 s
 * after a 1M first run was ready: 2.4 s of CPU on five threads in the middle of idle time,
 * RSS 1.31 -> 1.07 GB. Falls back to `releaseGarbage` where there is no inspector.
 */
export async function releaseMemory(): Promise<boolean> {
  if (process.memoryUsage().heapUsed < WORTH_BYTES) return false;
  let session: Session;
  try {
    session = new Session();
    session.connect();
  } catch {
    return releaseGarbage();
  }
  try {
    await new Promise<void>((resolve, reject) => {
      // a walk's end awaits this: an inspector that never answers must not hold it
      const late = setTimeout(resolve, 10_000);
      late.unref();
      session.post('HeapProfiler.collectGarbage', (e) => {
        clearTimeout(late);
        if (e) reject(e);
        else resolve();
      });
    });
  } catch {
    releaseGarbage();
  } finally {
    // not from within the inspector's own callback (a disconnect there hung the event loop)
    setImmediate(() => session.disconnect());
  }
  return true;
}
