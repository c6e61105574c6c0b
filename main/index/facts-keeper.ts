/**
 * Keeps the object facts of one mirror (ObjectFacts) for the offline index: built on first
 * use, in chunks that yield to the event loop (`ready()`: the engine's process stays
 * responsive while a 1M-object mirror is read), or in one go (`get()`: the command line,
 * tests, and any caller that did not await `ready()`). Afterwards kept up to date by the
 * index's change batches. Changes that land while a chunked build runs are replayed on the
 * result once it ends: a fact depends only on its object's latest state, so replaying them
 * in order gives exactly the store's state, whichever state each chunk read.
 */
import type { RemoteChange } from '../mirror/changes.js';
import type { MirrorStore } from '../mirror/store.js';
import { ObjectFacts } from './object-facts.js';

/** Lets other work run between chunks (I/O, timers, requests), not just other microtasks. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class FactsKeeper {
  private facts: ObjectFacts | undefined;
  private building: { rootId: string; done: Promise<ObjectFacts>; pending: RemoteChange[] } | undefined;

  /** `chunk`: rows per chunk, or (the engine's way) chunks sized to about `targetMs` each. */
  constructor(
    private readonly store: MirrorStore,
    private readonly chunk: number | { targetMs: number } = { targetMs: 12 },
  ) {}

  private rootId(): string {
    return this.store.root()?.id ?? 'root';
  }

  /** The facts when already built for the current root, else undefined (never builds). */
  current(): ObjectFacts | undefined {
    return this.facts && this.facts.rootId === this.rootId() ? this.facts : undefined;
  }

  /** The facts, built now in one pass if they are not yet (blocks for that pass). */
  get(): ObjectFacts {
    const have = this.current();
    if (have) return have;
    this.facts = ObjectFacts.build(this.store);
    return this.facts;
  }

  /** The facts, built in chunks that yield to the event loop if they are not yet; concurrent callers share one build. */
  ready(): Promise<ObjectFacts> {
    const have = this.current();
    if (have) return Promise.resolve(have);
    const rootId = this.rootId();
    if (this.building?.rootId === rootId) return this.building.done;
    const pending: RemoteChange[] = [];
    const done = (async (): Promise<ObjectFacts> => {
      const steps = ObjectFacts.building(this.store, this.chunk);
      let r = steps.next();
      while (!r.done) {
        await nextTurn();
        r = steps.next();
      }
      const built = r.value;
      built.apply(pending);
      // a one-pass get() may have won meanwhile: it is as fresh (it saw every change since)
      const now = this.current();
      if (now) return now;
      if (built.rootId !== this.rootId()) return this.ready();
      this.facts = built;
      return built;
    })().finally(() => {
      if (this.building?.done === done) this.building = undefined;
    });
    this.building = { rootId, done, pending };
    return done;
  }

  /** Follows a batch of remote changes (already applied to the store). */
  apply(changes: readonly RemoteChange[]): void {
    this.facts?.apply(changes);
    if (this.building) for (const c of changes) this.building.pending.push(c);
  }
}
