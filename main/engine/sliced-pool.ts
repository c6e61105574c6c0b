/**
 * Runs `fn` on every item, at most `n` at once; the outcomes in order. Items that end without
 * waiting for anything (10,000 files just dropped, each "not stable yet") would follow one
 * another as microtasks and hold the engine's thread (the window's search waited on it): once
 * the items of a slice have run SLICE_MS, every worker waits for the same turn of the event
 * loop (one `setImmediate`), so what arrived meanwhile (a search, a rename) goes first. Each
 * worker used to wait for a turn of its own and start its own slice after it: with six workers
 * the thread was held ~50 ms between two looks at what arrived (s34).
 */

/** The longest the pool runs items without letting the event loop turn (ms). */
export const SLICE_MS = 8;

export async function slicedPool<T, R>(
  items: readonly T[],
  n: number,
  fn: (t: T) => Promise<R>,
  now: () => number = () => performance.now(),
): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  let sliceEnd = now() + SLICE_MS;
  let turn: Promise<void> | undefined;
  /** The turn every worker past the slice's end waits for; the next slice starts after it. */
  const turned = (): Promise<void> =>
    (turn ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        turn = undefined;
        sliceEnd = now() + SLICE_MS;
        resolve();
      }),
    ));
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
      if (now() >= sliceEnd) await turned();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}
