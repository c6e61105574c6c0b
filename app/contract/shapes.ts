/**
 * The data shapes the window and the engine exchange (status, search results, listings,
 * activity, conflicts, held deletes and uploads, settings), each a schema so its type and its check
 * are one thing. The token never appears in any shape sent to the window: settings only
 * say whether one is stored, and where.
 */
import { ACTIVITY_KINDS } from '../model/activity-kinds.js';
import { CONFLICT_KINDS } from '../model/intent.js';
import { remoteObjectSchema } from '../model/remote-object.js';
import { arr, bool, int, nullable, obj, oneOf, opt, str, type Infer } from '../util/schema.js';

const id = str({ min: 1, max: 512 });
const iso = str({ max: 64 });

/** A file or folder as the service returns it (unknown fields kept): the one schema of app/model. */
export const remoteObject = remoteObjectSchema;

const location = obj({ index: int(), length: int() });
const fragment = obj({ text: str({ max: 100_000 }), locations: arr(location, 10_000) });

/**
 * One search match, plus the NAS path of the folder holding it ("/" for the root). `pending`: a
 * change of the user's to this object not yet on the NAS, in words; `here`: where the user put
 * it (its name and folder in the mirror folder) when that is not where the NAS has it yet.
 */
export const searchHit = obj({
  file: remoteObject,
  fragments: arr(fragment, 16),
  path: str({ max: 65_536 }),
  pending: opt(str({ max: 70_000 })),
  here: opt(obj({ name: str({ min: 1, max: 1024 }), path: str({ max: 65_536 }) })),
});
export type SearchHit = Infer<typeof searchHit>;

/** `offlineOnly`: the query used operators (ext:, kind:, in:...) the NAS does not have. */
export const searchResult = obj({
  pageToken: str({ max: 4096 }),
  matches: arr(searchHit, 1000),
  total: opt(int()),
  offlineOnly: opt(bool()),
});
export type SearchResult = Infer<typeof searchResult>;

const crumb = obj({ id, name: str({ max: 1024 }) });
export type Crumb = Infer<typeof crumb>;

export const listResult = obj({
  folder: obj({ id, name: str({ max: 1024 }), path: str({ max: 65_536 }) }),
  crumbs: arr(crumb, 1024),
  files: arr(remoteObject, 1000),
  pageToken: str({ max: 4096 }),
});
export type ListResult = Infer<typeof listResult>;

export const CONNECTIONS = ['online', 'offline', 'auth-error', 'unconfigured'] as const;
export type Connection = (typeof CONNECTIONS)[number];

const errorInfo = obj({ code: str({ max: 64 }), message: str({ max: 4096 }) });

/** A walk's progress (see `appStatus.walk`); `nas-mirror status` reads it from the state folder with this check too. */
export const walkStatus = obj({
  running: bool(),
  folders: int(),
  objects: int(),
  placed: int(),
  rate: int(),
  startedAt: nullable(iso),
  known: nullable(int()),
  settled: bool(),
  recentRate: int(),
});
export type WalkStatus = Infer<typeof walkStatus>;

/** No walk running (and none seen yet). */
export const NO_WALK_STATUS: WalkStatus = {
  running: false,
  folders: 0,
  objects: 0,
  placed: 0,
  rate: 0,
  startedAt: null,
  known: null,
  settled: false,
  recentRate: 0,
};

/** Everything the tray and the window's header need, in one snapshot. */
export const appStatus = obj({
  connection: oneOf(CONNECTIONS),
  endpoint: nullable(str({ max: 2048 })),
  via: nullable(oneOf(['lan', 'proxy', 'url', 'embedded'] as const)),
  paused: bool(),
  mirrorMissing: bool(),
  /**
   * The walk in progress: folders and items seen, placeholders placed, items per second (all
   * along, and `recentRate` over the last 10 s). `known`: the items the walk knows exist so far
   * (the root's children plus every folder's childCount as it is met: a lower bound that grows;
   * null when the NAS does not say); `settled` once it no longer grows fast (it is then the
   * total). main/mirror/walk-total.ts
   */
  walk: walkStatus,
  /** The mirror folder is being compared with what the app knows (after a start): not up to date yet. Absent: false. */
  checking: opt(bool()),
  /**
   * The offline index is catching up with what the mirror holds (after a first walk of many
   * objects): search may not find the newest items yet. Absent: false.
   */
  indexing: opt(bool()),
  /** While `indexing`: how much of what the mirror holds search finds, in whole percents (0-99). */
  indexingPercent: opt(int(0, 100)),
  outbox: int(),
  conflicts: int(),
  heldDeletes: int(),
  /**
   * New folders and files made in the mirror folder: `waiting` to be created on the NAS (not in
   * `outbox`, which counts renames, moves and deletes), `held` waiting for the user's word first
   * (many at once: Conflicts).
   */
  /** New items: to upload, waiting for the user's OK; the bytes of the files going up now (sent of total). */
  uploads: obj({ waiting: int(), held: int(), sent: int(), total: int() }),
  lastCompleteWalk: nullable(iso),
  staleAfterSec: int(1),
  mirrorFolder: nullable(str({ max: 4096 })),
  indexed: int(),
  error: nullable(errorInfo),
});
export type AppStatus = Infer<typeof appStatus>;

/** One decision of the engine, with its reason; `undoable` when an inverse patch exists, `undone` once the user undid it. */
export const activityEntry = obj({
  id,
  at: iso,
  kind: oneOf(ACTIVITY_KINDS),
  path: str({ max: 65_536 }),
  summary: str({ max: 4096 }),
  reason: str({ max: 4096 }),
  undoable: bool(),
  undone: opt(bool()),
});
export type ActivityEntry = Infer<typeof activityEntry>;

/** One version of a file in a content conflict: its size in bytes and when it was last changed. */
const fileVersion = obj({ size: int(), modified: iso });

/**
 * A local intent the NAS refused to take as it was (re-apply or drop it; `intent`: it in
 * words), or a file changed here and on the NAS (kind `content`: both kept; `versions` tells
 * them apart, yours by the name of its conflicted copy; keep mine, the NAS's, or both: see
 * `conflictActions`). `note`: why the last choice could not be carried out.
 */
export const conflictEntry = obj({
  id,
  at: iso,
  kind: oneOf(CONFLICT_KINDS),
  path: str({ max: 65_536 }),
  intent: str({ max: 4096 }),
  remote: str({ max: 4096 }),
  reason: str({ max: 4096 }),
  versions: opt(obj({ yours: obj({ name: str({ min: 1, max: 1024 }), size: int(), modified: iso }), nas: fileVersion })),
  note: opt(str({ max: 4096 })),
});
export type ConflictEntry = Infer<typeof conflictEntry>;

/**
 * A delete held for confirmation: its batch crossed the threshold (`cause` 'threshold'), or
 * the NAS suddenly lists nothing ('nas-looks-empty': approving removes the placeholders here,
 * it deletes nothing on the NAS), or it is gone while new entries of its kind appeared and
 * nothing told whether it was renamed to one of them ('renamed-or-deleted', a disk whose file
 * ids are not valid: `candidates` are the choices). `cause` is optional: older engines omit it.
 */
export const heldDelete = obj({
  id,
  at: iso,
  path: str({ max: 65_536 }),
  folder: bool(),
  objects: int(),
  cause: opt(oneOf(['threshold', 'nas-looks-empty', 'renamed-or-deleted'] as const)),
  reason: str({ max: 4096 }),
  /** 'renamed-or-deleted': the new entries it may have become (the "it was renamed to" choice). */
  candidates: opt(arr(str({ max: 65_536 }), 16)),
});
export type HeldDelete = Infer<typeof heldDelete>;

/**
 * A new file or folder in the mirror folder that waits for the user's word before it is
 * uploaded (many at once: a mass upload). A folder's row covers everything inside it.
 */
export const heldUpload = obj({ id, at: iso, path: str({ max: 65_536 }), folder: bool() });
export type HeldUpload = Infer<typeof heldUpload>;

/** Where the NAS is; `none` until the first start's choice ("Connect your NAS" or "Try the demo"). */
export const SOURCE_KINDS = ['none', 'embedded', 'url', 'device-record'] as const;
/** What a settings patch may choose (`none` only comes back through "Start a new mirror"). */
export const CHOSEN_SOURCES = ['embedded', 'url', 'device-record'] as const;
export const TOKEN_PLACES = ['keychain', 'memory', 'none'] as const;
export const THEMES = ['system', 'light', 'dark'] as const;

/** The settings as the window sees them: never the token, only where it is kept. */
export const settingsView = obj({
  source: oneOf(SOURCE_KINDS),
  /** A base URL, or a device record's file path or URL; "" for the embedded demo. */
  location: str({ max: 4096 }),
  token: oneOf(TOKEN_PLACES),
  /** What is kept there is a sign-in (renewed by itself), not a pasted access token. */
  signedIn: opt(bool()),
  keychainAvailable: bool(),
  mirrorFolder: str({ max: 4096 }),
  syncIntervalSec: int(10, 86_400),
  paused: bool(),
  deleteThresholdCount: int(1, 1_000_000),
  deleteThresholdPercent: int(1, 100),
  startAtLogin: bool(),
  startAtLoginSupported: bool(),
  theme: oneOf(THEMES),
  /** A free folder to offer for a new mirror (first start, "Start a new mirror"). */
  newMirrorFolder: str({ max: 4096 }),
  /** Earlier mirrors put aside by "Start a new mirror": where their state was kept. */
  previousMirrors: arr(obj({ keptIn: str({ max: 4096 }), mirrorFolder: str({ max: 4096 }), nas: str({ max: 4096 }), at: iso }), 100),
});
export type SettingsView = Infer<typeof settingsView>;

/** What the window may change; every field optional. */
export const settingsPatch = obj({
  source: opt(oneOf(CHOSEN_SOURCES)),
  location: opt(str({ max: 4096 })),
  mirrorFolder: opt(str({ min: 1, max: 4096 })),
  syncIntervalSec: opt(int(10, 86_400)),
  paused: opt(bool()),
  deleteThresholdCount: opt(int(1, 1_000_000)),
  deleteThresholdPercent: opt(int(1, 100)),
  startAtLogin: opt(bool()),
  theme: opt(oneOf(THEMES)),
});
export type SettingsPatch = Infer<typeof settingsPatch>;

/** The first start's choice, or a new mirror's: the demo, or a NAS with its address and token. */
export const setUpArgs = obj({
  choice: oneOf(['demo', 'nas'] as const),
  /** A base URL (http...) or a device record (file path or URL); required for `nas`. */
  location: opt(str({ max: 4096 })),
  /** Pasted access token; optional when one is already stored for this NAS (or signed in). */
  token: opt(str({ min: 1, max: 8192, pattern: /^[\x21-\x7e]+$/ })),
  mirrorFolder: opt(str({ min: 1, max: 4096 })),
});
export type SetUpArgs = Infer<typeof setUpArgs>;

/**
 * What "Open" did: opened the file (downloaded first when it was a placeholder), or could not
 * bring its content here (a NAS without the content interface) and says where it lives.
 */
export const openResult = obj({
  opened: bool(),
  /** True when this Open downloaded the file (false or absent: its content was here already). */
  downloaded: opt(bool()),
  /**
   * Set when the content could not come here: its NAS path and size, and why (`reason`).
   * (No web page: the device record names none, see docs/app.md.)
   */
  onNas: opt(obj({ path: str({ max: 65_536 }), size: opt(int()), reason: opt(str({ max: 4096 })) })),
});
export type OpenResult = Infer<typeof openResult>;

/** Outcome of a bulk action: how many succeeded, and why the others did not. */
export const bulkResult = obj({ done: int(), failed: arr(obj({ id, message: str({ max: 4096 }) }), 10_000) });
export type BulkResult = Infer<typeof bulkResult>;

/**
 * What a file or folder is on this device: a `placeholder` (its content on the NAS), `here`
 * (a NAS version downloaded), `edited` (the user's own content, local only), `pinned` (kept on
 * this device: covered by a pin of its own or of a folder above it), or a `folder` not pinned.
 */
export const DEVICE_STATES = ['placeholder', 'here', 'edited', 'pinned', 'folder'] as const;
export type DeviceState = (typeof DEVICE_STATES)[number];

export const deviceStates = obj({ states: arr(obj({ id, state: oneOf(DEVICE_STATES) }), 1000) });
export type DeviceStates = Infer<typeof deviceStates>;

/** What "Free up space" did: files back to placeholders (and their bytes), and the files kept, with why. */
export const freeResult = obj({
  freed: int(),
  bytes: int(),
  kept: arr(obj({ path: str({ max: 65_536 }), reason: str({ max: 4096 }) }), 100_000),
});
export type FreeResultView = Infer<typeof freeResult>;
