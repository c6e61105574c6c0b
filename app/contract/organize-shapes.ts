/**
 * The shapes of Organize (bulk rename/move by pattern) and of the storage view, as the
 * window and the engine exchange them. A plan lists every change before anything is sent.
 */
import { arr, bool, int, nullable, num, obj, oneOf, opt, str, type Infer } from './schema.js';

const id = str({ min: 1, max: 512 });
const path = str({ max: 65_536 });

export const PLAN_STATUSES = ['ok', 'unchanged', 'collision', 'invalid', 'missing-folder'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** What to organize (a search query, operators allowed) and how (either pattern or both). */
export const organizeArgs = obj({ q: str({ min: 1, max: 1024 }), rename: opt(str({ max: 1024 })), move: opt(str({ max: 4096 })) });
export type OrganizeArgs = Infer<typeof organizeArgs>;

export const planItem = obj({
  id,
  folder: opt(bool()),
  from: path,
  to: path,
  /** The new name / the id of the new folder; null when that aspect does not change. */
  name: nullable(str({ max: 1024 })),
  parentId: nullable(id),
  status: oneOf(PLAN_STATUSES),
  problem: opt(str({ max: 4096 })),
});
export type PlanItem = Infer<typeof planItem>;

export const MAX_ORGANIZE = 10_000;

export const organizePlan = obj({
  items: arr(planItem, MAX_ORGANIZE),
  counts: obj({ ok: int(), unchanged: int(), collision: int(), invalid: int(), missingFolder: int() }),
  /** Target folders that do not exist on the NAS (the interface cannot create them). */
  missingFolders: arr(path, MAX_ORGANIZE),
  /** The selection had more objects than one batch takes. */
  truncated: opt(bool()),
});
export type OrganizePlan = Infer<typeof organizePlan>;

export const organizeOutcome = obj({ activityId: nullable(str({ max: 32 })), queued: int(), skipped: arr(obj({ id, message: str({ max: 4096 }) }), MAX_ORGANIZE) });
export type OrganizeOutcome = Infer<typeof organizeOutcome>;

const bucket = obj({ key: str({ max: 64 }), bytes: num(), files: int() });
const entry = obj({ id, name: str({ max: 1024 }), folder: opt(bool()), bytes: num(), files: int() });

/** The storage view of one folder: its children by size (for the treemap), and totals below it. */
export const storageView = obj({
  folder: obj({ id, name: str({ max: 1024 }), path }),
  crumbs: arr(obj({ id, name: str({ max: 1024 }) }), 1024),
  bytes: num(),
  files: int(),
  children: arr(entry, 2000),
  byKind: arr(bucket, 16),
  byYear: arr(bucket, 400),
  largest: arr(obj({ id, name: str({ max: 1024 }), path, bytes: num() }), 100),
  duplicates: arr(obj({ name: str({ max: 1024 }), bytes: num(), count: int(), paths: arr(path, 20) }), 100),
  /** When the aggregates were computed (they follow every change batch). */
  computedMs: num(),
});
export type StorageView = Infer<typeof storageView>;
