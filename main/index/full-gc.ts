/**
 * A full garbage collection now. `gc` is exposed only by a V8 flag; set here, it reaches a
 * new context's global (the flag is the process's: any thread may then collect). Used where
 * a big step just left much garbage that V8 would otherwise keep for a while: the engine after
 * a walk or an index swap (`release-memory.ts`), and an index build worker between its steps,
 * whose dead typed arrays (~200 MB at 1M) no allocation on the JS heap would soon collect.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

export function fullGc(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
