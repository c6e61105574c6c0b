/**
 * Step 3 of the remote pipeline (walk -> diff -> apply): writes a batch of changes to the
 * store in one transaction, then hands the same batch to every listener (offline index,
 * local-folder engine) in registration order. An empty batch writes and tells nothing.
 */
import type { RemoteChange } from './changes.js';
import { parentCountChanges } from './parent-counts.js';
import type { MirrorStore } from './store.js';

export type ChangeListener = (changes: readonly RemoteChange[]) => void;

export class ChangeApplier {
  private readonly listeners: ChangeListener[] = [];
  private readonly ownListeners = new Set<ChangeListener>();
  /** Totals since creation, by kind. */
  readonly totals = { added: 0, updated: 0, removed: 0 };

  constructor(private readonly store: MirrorStore) {}

  /** Registers a listener; returns a function that unregisters it. */
  onChanges(l: ChangeListener): () => void {
    this.listeners.push(l);
    return () => {
      const i = this.listeners.indexOf(l);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  apply(changes: readonly RemoteChange[]): void {
    if (changes.length === 0) return;
    this.store.apply(changes);
    for (const c of changes) this.totals[c.kind]++;
    for (const l of this.listeners) l(changes);
  }

  /**
   * A change the app made itself or read by id (not from a listing): applied, then the
   * `childCount` of the folders it left and entered follows (parent-counts.ts).
   */
  applyOwn(changes: readonly RemoteChange[]): void {
    this.apply(changes);
    this.apply(parentCountChanges(this.store, changes));
    for (const l of this.ownListeners) l(changes);
  }

  /**
   * Hears the changes of `applyOwn` (after every listener of `onChanges`): what the app made
   * itself or read by id, as the NAS answered it. Returns a function that stops it.
   */
  onOwn(l: ChangeListener): () => void {
    this.ownListeners.add(l);
    return () => this.ownListeners.delete(l);
  }
}
