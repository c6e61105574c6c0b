/**
 * The shapes of Organize (bulk rename/move by pattern) and of the storage view, as the
 * window and the engine exchange them. A plan lists every change before anything is sent.
 */
import { AppError } from '../errors.js';
import { arr, bool, int, nullable, num, obj, oneOf, opt, str, type Infer, type Schema } from '../util/schema.js';

const id = str({ min: 1, max: 512 });
const path = str({ max: 65_536 });

export const PLAN_STATUSES = ['ok', 'unchanged', 'collision', 'invalid', 'missing-folder'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** The most objects one batch takes (a query's matches beyond it are cut, `truncated`). */
export const MAX_ORGANIZE = 10_000;

const organizeFields = obj({
  q: opt(str({ min: 1, max: 1024 })),
  ids: opt(arr(id, MAX_ORGANIZE)),
  rename: opt(str({ max: 1024 })),
  move: opt(str({ max: 4096 })),
});

/**
 * What to organize, either a search query (operators allowed) or a hand-picked list of object
 * ids (kept in the given order), and how (either pattern or both). Exactly one of `q`/`ids`.
 */
export const organizeArgs: Schema<Infer<typeof organizeFields>> = {
  describe: 'object',
  parse(v, path = '') {
    const a = organizeFields.parse(v, path);
    const where = (k: string): string => (path ? `${path}.${k}` : k);
    if (a.q !== undefined && a.ids !== undefined) throw new AppError('BadRequest', `${path || 'value'}: give either q or ids, not both`);
    if (a.q === undefined && a.ids === undefined)
      throw new AppError('BadRequest', `${path || 'value'}: give q (a search) or ids (objects)`);
    if (a.ids !== undefined && a.ids.length === 0) throw new AppError('BadRequest', `${where('ids')}: empty (pick at least one object)`);
    return a;
  },
  test(v): v is Infer<typeof organizeFields> {
    try {
      this.parse(v);
      return true;
    } catch {
      return false;
    }
  },
};
export type OrganizeArgs = Infer<typeof organizeArgs>;

/** How a batch is named in Activity and the batch store: its query, or its selection. */
export const sourceOf = (a: Pick<OrganizeArgs, 'q' | 'ids'>): string =>
  a.q ?? `${a.ids?.length ?? 0} selected object${a.ids?.length === 1 ? '' : 's'}`;

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

export const organizePlan = obj({
  items: arr(planItem, MAX_ORGANIZE),
  counts: obj({ ok: int(), unchanged: int(), collision: int(), invalid: int(), missingFolder: int() }),
  /** Target folders that do not exist on the NAS (the interface cannot create them). */
  missingFolders: arr(path, MAX_ORGANIZE),
  /** The selection had more objects than one batch takes. */
  truncated: opt(bool()),
});
export type OrganizePlan = Infer<typeof organizePlan>;

export const organizeOutcome = obj({
  activityId: nullable(str({ max: 32 })),
  queued: int(),
  skipped: arr(obj({ id, message: str({ max: 4096 }) }), MAX_ORGANIZE),
});
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
