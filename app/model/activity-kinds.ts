/**
 * The kinds of an activity-log line: the one list the engine writes, the contract checks,
 * the renderer words and the command line prints. A row written with a kind no longer in
 * this list (an earlier version's) is read back as `other` and shown by its summary.
 */
export const ACTIVITY_KINDS = [
  // the user's changes on disk, queued for the NAS
  'renamed',
  'moved',
  'deleted',
  'held',
  // what the NAS answered, and what the user decided about it
  'sent',
  'conflict',
  'approved',
  'rejected',
  'dropped',
  'reapplied',
  'kept-both',
  'undo',
  'organized',
  // local facts with no NAS change
  'replaced',
  'local-only',
  'emptied',
  // content on this device: a NAS version downloaded, or a downloaded file back to a placeholder;
  // kept on this device (pinned, unpinned, the keeper's downloads) and freed
  'downloaded',
  'remote-content',
  'pinned',
  'unpinned',
  'kept',
  'freed',
  // new folders and files made in the mirror folder, created on the NAS
  'created',
  'uploaded',
  // changes made on the NAS, applied to the mirror
  'remote-added',
  'remote-renamed',
  'remote-moved',
  'remote-removed',
  'remote-metadata',
  'refused',
  // the app itself
  'paused',
  'resumed',
  'restored',
  'mirror-moved',
  'nas-moved',
  'watcher',
  'recognised',
  'error',
  'other',
] as const;

export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

const KNOWN: ReadonlySet<string> = new Set(ACTIVITY_KINDS);

/** A stored kind as one of the list (`other` when an earlier version wrote one it no longer has). */
export const activityKindOf = (k: string): ActivityKind => (KNOWN.has(k) ? (k as ActivityKind) : 'other');
