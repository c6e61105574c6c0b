/**
 * What a walk found different on the NAS, as a discriminated union. A rename or move is an
 * `updated` change of the same id (never removed + added). Order within one batch: parents
 * are added before their children; children are removed before their parents.
 * Consumers: the store (apply), the offline index, the local-folder engine.
 */
import type { RemoteObject } from '../../app/model/remote-object.js';

/** What an update touched. More than one may be true. */
export interface UpdateAspects {
  /** `name` changed. */
  renamed: boolean;
  /** `parentID` changed. */
  moved: boolean;
  /** Anything else changed (eTag, times, size, childCount, image, ...). */
  metadata: boolean;
}

export type RemoteChange =
  | { kind: 'added'; after: RemoteObject }
  | { kind: 'updated'; before: RemoteObject; after: RemoteObject; aspects: UpdateAspects }
  | { kind: 'removed'; before: RemoteObject };

/** The aspects of an update from `before` to `after` (same id). */
export function aspectsOf(before: RemoteObject, after: RemoteObject): UpdateAspects {
  const renamed = before.name !== after.name;
  const moved = before.parentID !== after.parentID;
  const a = { ...before, name: '', parentID: '' };
  const b = { ...after, name: '', parentID: '' };
  return { renamed, moved, metadata: JSON.stringify(a) !== JSON.stringify(b) };
}

const JSON_CACHE = new WeakMap<RemoteObject, string>();

/** `JSON.stringify(o)`, computed once per object (diff, batching and the store all need it). */
export function jsonOf(o: RemoteObject): string {
  let j = JSON_CACHE.get(o);
  if (j === undefined) {
    j = JSON.stringify(o);
    JSON_CACHE.set(o, j);
  }
  return j;
}
