/**
 * At most one call per `ms` for each key: the first at once, any more in the next `ms` folded
 * into one at its end. The engine says "content changed" or "activity" once per file of a
 * 10,000-file upload; each window view re-reads what it shows on such a word, so the window
 * is told at most five times a second per kind (never later than `ms` after the last change).
 */
export class Coalescer<K> {
  private readonly last = new Map<K, number>();
  private readonly pending = new Map<K, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly ms: number,
    private readonly fire: (key: K) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  push(key: K): void {
    if (this.pending.has(key)) return;
    const wait = (this.last.get(key) ?? -Infinity) + this.ms - this.now();
    if (wait <= 0) return this.run(key);
    this.pending.set(
      key,
      setTimeout(() => {
        this.pending.delete(key);
        this.run(key);
      }, wait),
    );
  }

  /** Drops what waits (the listener is going away). */
  close(): void {
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
  }

  private run(key: K): void {
    this.last.set(key, this.now());
    this.fire(key);
  }
}
