/**
 * Hands a big walk's garbage back at once. A first walk of 1M objects leaves ~600 MB of dead
 * pages, changes and rows in the heap. Left alone, V8's memory reducer collects it a minute
 * or so after the walk: a full mark-compact of a ~1.7 GB heap, seconds of CPU on every core,
 * at a moment nobody chose ("idle" CPU), while until then the engine's RSS stays at its peak
 * as the index's final rebuild starts in its worker. Collected at the walk's end instead,
 * the heap shrinks before that rebuild, and idle is idle. Called at three such moments: a
 * big walk's end (remote-rounds.ts), the engine getting ready (engine.ts), and the offline
 * index replacing itself after a catch-up rebuild (api/compose.ts).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Heaps below this are left to V8's own pace. */
const WORTH_BYTES = 256 * 1024 * 1024;

let gc: (() => void) | undefined;

/** A full garbage collection now, when the heap is big enough to matter. Returns whether it ran. */
export function releaseGarbage(): boolean {
  if (process.memoryUsage().heapUsed < WORTH_BYTES) return false;
  if (!gc) {
    // `gc` is exposed only by a flag; set here, it reaches a new context's global
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  return true;
}
