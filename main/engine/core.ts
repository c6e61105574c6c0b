/**
 * The engine's shared context: the stores, the in-memory local model, the mirror root and
 * the activity log. The engine builds it (`openCore`); each step takes only the part it uses
 * (`ReconcilePort`, `LocalBatchPort`, outbox/settle.ts `SettlePort`, ...). The user's
 * actions and Organize take all of it. Only code running under the engine's lock mutates the
 * model.
 */
import { ChangeApplier } from '../mirror/apply.js';
import { MirrorStore } from '../mirror/store.js';
import type { Logger } from '../log/logger.js';
import { openStateDb, type Db } from '../state/db.js';
import { realDisk, type Disk } from '../local/disk.js';
import type { FsTraits } from '../local/fs-traits.js';
import { STABLE_DISK, type DiskIdentity } from '../local/volume.js';
import { LocalModel, pathOrId } from '../local/model.js';
import { LocalStore, type ActivityInput } from '../local/local-store.js';
import { DEFAULT_THRESHOLD, type DeleteThreshold } from '../local/plan.js';
import { OutboxStore } from '../outbox/outbox-store.js';
import { CreatesStore } from '../local/creates-store.js';
import type { EngineOptions } from './engine-options.js';
import { ignore } from '../../app/util/ignore.js';

export type { ActivityInput };

export interface Core {
  root: string;
  db: Db;
  store: MirrorStore;
  applier: ChangeApplier;
  local: LocalStore;
  outbox: OutboxStore;
  /** New folders and files to create on the NAS (creates.ts). */
  creates: CreatesStore;
  model: LocalModel;
  traits: FsTraits;
  /** The mirror's disk: stable file ids or not, folder mtimes, granularity, the mount's key (probed at start). */
  identity: DiskIdentity;
  /** Every file system call in the mirror folder goes through it (tests inject faults). */
  disk: Disk;
  threshold: DeleteThreshold;
  holdMs: number;
  /** New entries in the mirror folder are created on the NAS (EngineOptions.uploads). */
  uploads: boolean;
  /**
   * Inodes of entries the NAS deleted that were not where the model had them (renamed or moved
   * here while the NAS deleted them) -> until when: not new entries, never created on the NAS
   * (soak seeds 7000, 7002). In memory, for minutes: an inode number is reused once freed.
   */
  tombstones: Map<string, number>;
  log: Logger;
  /** Records a decision in the activity log (and tells listeners). */
  activity(a: ActivityInput): void;
  /**
   * Writes these rows of the activity log in the caller's transaction (the decision's, or one of
   * their own: not one per row) and returns the telling of them (logs, listeners): called once
   * that transaction committed. Absent: `activity` row by row.
   */
  activityRows?(list: readonly ActivityInput[]): () => void;
}

/** The engine's context from its options: the stores on one state db, the model as stored. */
export type CoreOptions = Pick<
  EngineOptions,
  'db' | 'stateDir' | 'store' | 'mirrorDir' | 'applier' | 'traits' | 'identity' | 'disk' | 'threshold' | 'holdMs' | 'uploads' | 'log'
>;

export function openCore(
  opts: CoreOptions,
  activity: (a: ActivityInput) => void,
  activityRows?: (list: readonly ActivityInput[]) => () => void,
): Core {
  const db = opts.db ?? openStateDb(opts.stateDir);
  const store = opts.store ?? new MirrorStore(db);
  const local = new LocalStore(db);
  const rootId = store.root()?.id ?? '';
  const creates = new CreatesStore(db);
  const model = rootId ? local.loadModel(rootId) : new LocalModel('');
  const core: Core = {
    root: opts.mirrorDir,
    db,
    store,
    applier: opts.applier ?? new ChangeApplier(store),
    local,
    outbox: new OutboxStore(db),
    creates,
    model,
    traits: opts.traits ?? { caseInsensitive: false, windowsNames: false, maxNameBytes: 255 },
    identity: { ...STABLE_DISK, ...opts.identity },
    disk: opts.disk ?? realDisk,
    threshold: opts.threshold ?? DEFAULT_THRESHOLD,
    holdMs: opts.holdMs ?? 1000,
    uploads: opts.uploads ?? true,
    tombstones: new Map(),
    log: opts.log,
    activity,
    ...(activityRows ? { activityRows } : {}),
  };
  // Where a held "renamed or deleted?" entry may have gone, when the NAS deleted that entry: it
  // may be that entry renamed here, not a new one of the user's (soak seed 5007: an empty folder
  // renamed while stopped, deleted on the NAS meanwhile, was created on the NAS again). Local only.
  local.heldDropped = (candidates) => {
    for (const path of candidates) {
      const segs = path.split('/');
      const name = segs.pop()!;
      const parent = core.model.dirAt(segs)?.id;
      if (parent !== undefined)
        creates.refuse(
          parent,
          name,
          `it may be an entry the NAS deleted, renamed here meanwhile (${path}): kept here, not created again on the NAS`,
        );
    }
  };
  return core;
}

/**
 * A promise-chain mutex: one model-mutating step at a time. `onIdle` runs when the last step
 * queued has ended and none waits (the engine lets the model release what it read then).
 */
export class Lock {
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;
  onIdle: (() => void) | undefined;
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    this.queued++;
    const step = async (): Promise<T> => {
      try {
        return await fn();
      } finally {
        if (--this.queued === 0) this.onIdle?.();
      }
    };
    const next = this.tail.then(step, step);
    this.tail = next.catch(ignore('the caller of run() gets the failure; the lock only keeps the order'));
    return next;
  }
}

/** The local path of an id for people ('/'-joined), or `(id)` when unknown. */
export const pathFor = (core: Pick<Core, 'model'>, id: string): string => pathOrId(core.model, id);
