/**
 * The contract's handlers for Organize (preview from the offline index, apply through the
 * running engine's outbox) and the storage view (offline aggregates). Kept apart from
 * handlers.ts so the organize feature is one place.
 */
import type { ContractHandlers } from '../../app/contract/methods.js';
import { sourceOf, type OrganizeArgs, type OrganizeOutcome } from '../../app/contract/organize-shapes.js';
import { AppError } from '../../app/errors.js';
import type { Engine } from '../engine/engine.js';
import type { OfflineIndex } from '../index/offline-index.js';
import { enqueueBatch, itemsOf } from '../organize/apply.js';
import { buildPlan } from '../organize/plan.js';
import { StorageAggregates } from '../storage/aggregates.js';

type OrganizeHandlers = Pick<ContractHandlers, 'organizePreview' | 'organizeApply' | 'storage'>;

const aggregates = new WeakMap<OfflineIndex, StorageAggregates>();

/** The storage aggregates of an index (one per index, kept across calls). */
export function storageOf(index: OfflineIndex): StorageAggregates {
  let a = aggregates.get(index);
  if (!a)
    aggregates.set(
      index,
      (a = new StorageAggregates(
        () => index.facts(),
        () => index.factsReady(),
      )),
    );
  return a;
}

/** Plans again from the mirror as it is now, then enqueues under the engine's lock. */
export async function applyOrganize(engine: Engine, index: OfflineIndex, args: OrganizeArgs): Promise<OrganizeOutcome> {
  await index.factsReady();
  const plan = buildPlan(index, args, () => engine.deviceView());
  const items = itemsOf(index, plan);
  if (items.length === 0) throw new AppError('BadRequest', 'nothing to change: every item is unchanged or flagged in the preview');
  const out = await engine.locked(() =>
    enqueueBatch(engine.core, { q: sourceOf(args), rename: args.rename || null, move: args.move || null }, items),
  );
  engine.kickOutbox();
  engine.events.emit('changed', { what: 'activity' });
  return out;
}

export function organizeHandlers(index: () => OfflineIndex, engine: () => Engine): OrganizeHandlers {
  return {
    // the facts are built in chunks that yield to the event loop (seconds at 1M objects), then kept
    organizePreview: async (args) => {
      await index().factsReady();
      return buildPlan(index(), args, () => engine().deviceView());
    },
    organizeApply: async (args) => applyOrganize(engine(), index(), args),
    storage: async ({ folderId }) => storageOf(index()).viewReady(folderId),
  };
}
