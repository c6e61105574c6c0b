/**
 * THE contract between the window (renderer) and the engine (main process or headless
 * engine): every request with its argument and result schemas, and every event with its
 * payload schema. Electron IPC and the browser mode's HTTP/WebSocket both carry exactly
 * these, checked on arrival on both sides. Adding a method here is the only way to add one.
 */
import {
  activityEntry,
  appStatus,
  bulkResult,
  conflictEntry,
  deviceStates,
  freeResult,
  heldDelete,
  heldUpload,
  listResult,
  openResult,
  searchResult,
  settingsPatch,
  settingsView,
  setUpArgs,
} from './shapes.js';
import { organizeArgs, organizeOutcome, organizePlan, storageView } from './organize-shapes.js';
import { arr, bool, int, nullable, obj, oneOf, opt, str, type Infer } from '../util/schema.js';
import { CONFLICT_ACTIONS } from '../model/intent.js';

const id = str({ min: 1, max: 512 });
const ids = arr(id, 10_000);
const none = obj({});

/** How many held uploads the window is sent at most (a copy of a whole disk may hold far more; "all" still covers them). */
export const HELD_UPLOADS_SHOWN = 1000;

/** Requests: `args` is checked where the request arrives, `result` where the answer arrives. */
export const METHODS = {
  status: { args: none, result: appStatus },
  search: {
    args: obj({ q: str({ min: 1, max: 1024 }), limit: opt(int(1, 1000)), pageToken: opt(str({ max: 4096 })) }),
    result: searchResult,
  },
  suggest: {
    args: obj({ prefix: str({ min: 1, max: 256 }), limit: opt(int(1, 50)) }),
    result: obj({ words: arr(str({ max: 1024 }), 50) }),
  },
  didYouMean: { args: obj({ q: str({ min: 1, max: 1024 }) }), result: obj({ suggestion: nullable(str({ max: 1024 })) }) },
  list: { args: obj({ folderId: id, pageToken: opt(str({ max: 4096 })) }), result: listResult },
  open: { args: obj({ id }), result: openResult },
  reveal: { args: obj({ id }), result: none },
  /** Keep on this device: the file, or everything below the folder, downloaded now and kept current; `files`: how many to download. */
  pin: { args: obj({ id }), result: obj({ files: int() }) },
  /** No longer kept current (what is here stays until freed); refused for a file kept through its folder. */
  unpin: { args: obj({ id }), result: none },
  /** Free up space: files still exactly as downloaded become placeholders again; the user's changed files are kept (listed). */
  free: { args: obj({ id }), result: freeResult },
  /** What these files and folders are on this device (ids unknown to the mirror are left out). */
  deviceStates: { args: obj({ ids: arr(id, 1000) }), result: deviceStates },
  /** The NAS content downloaded on this device below a folder (the root when absent): files and bytes. */
  deviceSpace: { args: obj({ folderId: opt(id) }), result: obj({ files: int(), bytes: int() }) },
  activity: { args: obj({ limit: opt(int(1, 1000)) }), result: obj({ entries: arr(activityEntry, 1000) }) },
  undo: { args: obj({ id }), result: none },
  conflicts: { args: none, result: obj({ conflicts: arr(conflictEntry, 100_000), held: arr(heldDelete, 100_000) }) },
  /**
   * The user's choice on conflicts (ids as listed, or ['all']: every conflict the choice fits).
   * A choice that does not fit a conflict's kind (`conflictActions`) fails for it, in words.
   */
  resolveConflicts: { args: obj({ ids, action: oneOf(CONFLICT_ACTIONS) }), result: bulkResult },
  resolveHeld: { args: obj({ ids, action: oneOf(['approve', 'reject'] as const) }), result: bulkResult },
  /** A held "renamed or deleted?": it was renamed to `to` (one of its candidates): sent as that rename. */
  heldWasRenamed: { args: obj({ id, to: str({ min: 1, max: 65_536 }) }), result: bulkResult },
  /**
   * New folders and files held for the user's word before they upload (many at once), oldest
   * first: at most HELD_UPLOADS_SHOWN of them, `total` in all. A folder's row covers everything in it.
   */
  heldUploads: { args: none, result: obj({ held: arr(heldUpload, HELD_UPLOADS_SHOWN), total: int() }) },
  /** The user's word on held uploads (ids as listed, or ['all']): `upload`, or keep them on this computer only (listed local only). */
  resolveUploads: { args: obj({ ids, upload: bool() }), result: bulkResult },
  syncNow: { args: none, result: none },
  setPaused: { args: obj({ paused: bool() }), result: none },
  getSettings: { args: none, result: settingsView },
  updateSettings: { args: obj({ patch: settingsPatch }), result: settingsView },
  setToken: { args: obj({ token: str({ min: 1, max: 8192, pattern: /^[\x21-\x7e]+$/ }) }), result: settingsView },
  clearToken: { args: none, result: settingsView },
  /**
   * Starts signing in to the configured NAS (OAuth 2 with a loopback redirect): answers the
   * NAS's login page URL at once, `opened` when the engine's host already opened it in the
   * system browser (Electron); otherwise the window opens it. The outcome arrives later as a
   * `notice` and a `changed: settings` event; the tokens never come to the window.
   * `location`: the NAS typed in the first start's "Connect your NAS" (not saved yet; then
   * `setUp` without a token uses the sign-in); absent: the NAS in the settings.
   */
  signIn: { args: obj({ location: opt(str({ min: 1, max: 4096 })) }), result: obj({ url: str({ min: 1, max: 8192 }), opened: bool() }) },
  /** First start (or after startNewMirror): mirror the demo, or a NAS checked before anything is saved. */
  setUp: { args: setUpArgs, result: settingsView },
  /** Puts the current mirror aside (its state kept, its folder untouched) and asks again. */
  startNewMirror: { args: none, result: settingsView },
  /** Puts the current mirror aside like startNewMirror, and brings back the one kept in `keptIn` (one of `previousMirrors`). */
  reopenMirror: { args: obj({ keptIn: str({ min: 1, max: 4096 }) }), result: settingsView },
  /** Opens the mirror folder in the file manager. */
  openMirrorFolder: { args: none, result: none },
  /** Moves the mirror folder (renamed on disk, sync paused meanwhile); refused for a non-empty target. */
  moveMirror: { args: obj({ to: str({ min: 1, max: 4096 }) }), result: settingsView },
  organizePreview: { args: organizeArgs, result: organizePlan },
  organizeApply: { args: organizeArgs, result: organizeOutcome },
  storage: { args: obj({ folderId: opt(id) }), result: storageView },
} as const;

/** Events pushed to the window. `changed` says which list to fetch again. */
export const EVENTS = {
  status: appStatus,
  changed: obj({ what: oneOf(['activity', 'conflicts', 'index', 'settings', 'content'] as const) }),
  notice: obj({ level: oneOf(['info', 'warn', 'error'] as const), message: str({ max: 4096 }) }),
  /** A file's download for "Open" (bytes so far of its size), then `done` or `failed` with why (only Opens: not the keeper's downloads). */
  download: obj({
    id,
    path: str({ max: 65_536 }),
    bytes: int(),
    total: int(),
    state: oneOf(['downloading', 'done', 'failed'] as const),
    message: opt(str({ max: 4096 })),
  }),
  /** A move of the mirror folder to another disk, while it copies (`main/mirror-move/`). */
  mirrorMove: obj({
    phase: oneOf(['counting', 'copying', 'verifying', 'switching', 'removing-old', 'done'] as const),
    done: int(),
    total: int(),
    bytes: int(),
    totalBytes: int(),
  }),
} as const;

export type Method = keyof typeof METHODS;
export type Args<M extends Method> = Infer<(typeof METHODS)[M]['args']>;
export type Result<M extends Method> = Infer<(typeof METHODS)[M]['result']>;
export type EventName = keyof typeof EVENTS;
export type EventPayload<E extends EventName> = Infer<(typeof EVENTS)[E]>;

export const METHOD_NAMES = Object.keys(METHODS) as Method[];
export const EVENT_NAMES = Object.keys(EVENTS) as EventName[];

export const isMethod = (m: unknown): m is Method => typeof m === 'string' && Object.prototype.hasOwnProperty.call(METHODS, m);
export const isEventName = (e: unknown): e is EventName => typeof e === 'string' && Object.prototype.hasOwnProperty.call(EVENTS, e);

/** The engine side of the contract: one async function per method. */
export type ContractHandlers = { [M in Method]: (args: Args<M>) => Promise<Result<M>> };

/** The window side: call a method, listen to events. */
export interface ContractClient {
  call<M extends Method>(method: M, args: Args<M>): Promise<Result<M>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}
