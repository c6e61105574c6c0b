/**
 * The engine's shared context: the stores, the in-memory local model, the mirror root and
 * the activity log. Every step of the engine (remote sync, local batch, outbox) takes it;
 * only code running under the engine's lock mutates the model.
 */
import type { ActivityKind } from '../../app/model/activity-kinds.js';
import type { ChangeApplier } from '../mirror/apply.js';
import type { MirrorStore } from '../mirror/store.js';
import type { Logger } from '../log/logger.js';
import type { Db } from '../state/db.js';
import type { Disk } from '../local/disk.js';
import type { FsTraits } from '../local/fs-traits.js';
import type { LocalModel } from '../local/model.js';
import type { LocalStore } from '../local/local-store.js';
import type { DeleteThreshold } from '../local/plan.js';
import type { OutboxStore } from '../outbox/outbox-store.js';

export interface ActivityInput {
  kind: ActivityKind;
  path: string;
  summary: string;
  reason: string;
  outboxSeq?: number;
}

export interface Core {
  root: string;
  db: Db;
  store: MirrorStore;
  applier: ChangeApplier;
  local: LocalStore;
  outbox: OutboxStore;
  model: LocalModel;
  traits: FsTraits;
  /** The disk the local pipeline reads the mirror through (tests inject faults). */
  disk?: Disk | undefined;
  threshold: DeleteThreshold;
  holdMs: number;
  log: Logger;
  /** Records a decision in the activity log (and tells listeners). */
  activity(a: ActivityInput): void;
}

/** A promise-chain mutex: one model-mutating step at a time. */
export class Lock {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** The local path of an id for people ('/'-joined), or `(id)` when unknown. */
export const pathFor = (core: Core, id: string): string => core.model.pathOf(id) ?? `(${id})`;
