/**
 * What Organize needs of the engine, and no more: the state db for its batch table and one
 * transaction, the model to check and name objects, the outbox to queue patches, and the
 * activity log. The engine's `Core` satisfies it; organize never imports the engine (the
 * `steps-not-engine` rule of .dependency-cruiser.cjs).
 */
import type { ActivityInput, LocalStore } from '../local/local-store.js';
import type { LocalModel } from '../local/model.js';
import type { OutboxStore } from '../outbox/outbox-store.js';
import type { Db } from '../state/db.js';

export interface OrganizePort {
  readonly db: Db;
  /** Read only here: an object's current name, parent and path. */
  readonly model: LocalModel;
  readonly outbox: Pick<OutboxStore, 'enqueue' | 'get' | 'pendingIds'>;
  readonly local: Pick<LocalStore, 'activity' | 'markUndone'>;
  /** Records a decision in the activity log (and tells listeners). */
  activity(a: ActivityInput): void;
}
