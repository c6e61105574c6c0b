/**
 * A user's intent for one NAS object: the ONE shape it keeps from the local plan
 * (main/local/plan.ts) through the outbox (main/outbox/) to the conflicts list, where it is
 * parsed back from the database with this schema. `fromName`/`fromParent` are where the
 * object was when the user acted (412 checks, undo); a patch holds only the fields it changes.
 */
import { int, lit, obj, opt, str, tagged, type Infer } from '../util/schema.js';

const id = str({ min: 1, max: 512 });
const name = str({ min: 1, max: 1024 });

/** Rename and/or move (one PATCH): `name` and `parentID` present only when they change. */
export const patchIntentSchema = obj({
  op: lit('patch'),
  id,
  name: opt(name),
  parentID: opt(id),
  fromName: str({ max: 1024 }),
  fromParent: str({ max: 512 }),
});
export type PatchIntent = Infer<typeof patchIntentSchema>;

/** Delete (the object and whatever it holds). */
export const deleteIntentSchema = obj({ op: lit('delete'), id, fromName: str({ max: 1024 }), fromParent: str({ max: 512 }) });
export type DeleteIntent = Infer<typeof deleteIntentSchema>;

/** What the outbox sends. */
export const intentSchema = tagged('op', { patch: patchIntentSchema, delete: deleteIntentSchema });
export type Intent = Infer<typeof intentSchema>;

const when = str({ max: 64 });

/**
 * A file changed here and on the NAS (a content conflict): both are kept, the NAS's version at
 * the name (object `id`), the user's beside it as `copyName` in the folder `copyParent` (its
 * inode `copyIno` then, '' unknown). `mine` and `nas` are the two versions as the list shows
 * them (size in bytes, modified time); `nas.eTag` is the version Keep mine replaces (If-Match).
 * `note`: why the user's last choice could not be carried out.
 */
export const contentConflictSchema = obj({
  op: lit('content'),
  id,
  copyParent: id,
  copyName: name,
  copyIno: str({ max: 64 }),
  mine: obj({ size: int(), mtime: when }),
  nas: obj({ eTag: str({ min: 1, max: 1024 }), size: int(), mtime: when }),
  note: opt(str({ max: 4096 })),
});
export type ContentConflict = Infer<typeof contentConflictSchema>;

/**
 * What a conflict keeps: an intent the NAS refused, or one it cannot take at all (a move
 * into a folder that exists only on this disk: `unsendable`, never re-applied), or the two
 * versions of a file changed on both sides (`content`).
 */
export const conflictIntentSchema = tagged('op', {
  patch: patchIntentSchema,
  delete: deleteIntentSchema,
  unsendable: obj({ op: lit('unsendable'), id, to: str({ max: 65_536 }) }),
  content: contentConflictSchema,
});
export type ConflictIntent = Infer<typeof conflictIntentSchema>;

/** A conflict's kind: its intent's `op`. */
export const CONFLICT_KINDS = ['patch', 'delete', 'unsendable', 'content'] as const satisfies readonly ConflictIntent['op'][];
export type ConflictKind = (typeof CONFLICT_KINDS)[number];

/**
 * The user's choices on a conflict. A change the NAS did not take: `reapply` (send it again)
 * or `drop` (keep the NAS's). A file changed on both sides (`content`): `keep-mine` (yours
 * becomes the NAS's version, the conflicted copy goes), `keep-nas` (the copy goes) or
 * `keep-both` (both stay as they are).
 */
export const CONFLICT_ACTIONS = ['reapply', 'drop', 'keep-mine', 'keep-nas', 'keep-both'] as const;
export type ConflictAction = (typeof CONFLICT_ACTIONS)[number];

/** The choices a conflict of this kind takes. */
export function conflictActions(kind: ConflictKind): readonly ConflictAction[] {
  return kind === 'content' ? ['keep-mine', 'keep-nas', 'keep-both'] : ['reapply', 'drop'];
}

/** Exactly the intent's fields of a richer value (a planned op with its reason, ...). */
export function intentOf(i: Intent): Intent {
  if (i.op === 'delete') return { op: 'delete', id: i.id, fromName: i.fromName, fromParent: i.fromParent };
  const p: PatchIntent = { op: 'patch', id: i.id, fromName: i.fromName, fromParent: i.fromParent };
  if (i.name !== undefined) p.name = i.name;
  if (i.parentID !== undefined) p.parentID = i.parentID;
  return p;
}

/** The inverse of an applied patch, from where the object is now (`now`): back to its `from` values. */
export function inverseOf(p: PatchIntent, now: { name: string; parentID: string }): PatchIntent {
  const inv: PatchIntent = { op: 'patch', id: p.id, fromName: now.name, fromParent: now.parentID };
  if (p.name !== undefined) inv.name = p.fromName;
  if (p.parentID !== undefined) inv.parentID = p.fromParent;
  return inv;
}

/** The intent in words, for the conflicts list and the activity log. */
export function describeIntent(i: ConflictIntent, pathOf: (id: string) => string): string {
  if (i.op === 'delete') return `delete ${pathOf(i.id)}`;
  if (i.op === 'unsendable') return `move into ${i.to}`;
  if (i.op === 'content') return `your version, kept beside it as ${JSON.stringify(i.copyName)}`;
  const parts: string[] = [];
  if (i.name !== undefined) parts.push(`rename to ${JSON.stringify(i.name)}`);
  if (i.parentID !== undefined) parts.push(`move into ${pathOf(i.parentID) || '/'}`);
  return parts.join(' and ');
}
