/**
 * The contract's handlers over an offline index, a (possibly absent) running Engine and a
 * settings provider. Shared by the app's core (settings in the state db, token in the
 * keychain) and by `nas-mirror run --ui` (settings from the command line). Search, browse and
 * completion never need the engine; actions on the mirror do and say so when it is absent.
 */
import { HELD_UPLOADS_SHOWN, type ContractHandlers } from '../../app/contract/methods.js';
import type { AppStatus, OpenResult, SettingsPatch, SettingsView, SetUpArgs } from '../../app/contract/shapes.js';
import { AppError } from '../../app/errors.js';
import type { Engine } from '../engine/engine.js';
import type { OfflineIndex } from '../index/offline-index.js';
import { absOf } from '../local/placeholders.js';
import type { Logger } from '../log/logger.js';
import type { MirrorStore } from '../mirror/store.js';
import type { DesktopPort } from './ports.js';
import { organizeHandlers } from './organize-handlers.js';
import { browse, searchWithPaths, type PendingOf } from './queries.js';

/** Where settings come from and go to. */
export interface SettingsProvider {
  view(): Promise<SettingsView>;
  update(patch: SettingsPatch): Promise<SettingsView>;
  setToken(token: string): Promise<SettingsView>;
  clearToken(): Promise<SettingsView>;
  /** Starts the browser sign-in (to `location`, or the configured NAS); the login page URL and whether it was opened already. */
  signIn(location?: string): Promise<{ url: string; opened: boolean }>;
  setPaused(paused: boolean): Promise<void>;
  /** First start / new mirror (the app only; `run --ui` takes its NAS from the command line). */
  setUp?(args: SetUpArgs): Promise<SettingsView>;
  startNewMirror?(): Promise<SettingsView>;
  moveMirror?(to: string): Promise<SettingsView>;
}

export interface HandlerDeps {
  index: () => OfflineIndex;
  store: MirrorStore;
  engine: () => Engine | null;
  /** Why no engine runs, for the error a mirror action gets. */
  whyNoEngine: () => string;
  status: () => AppStatus;
  desktop: DesktopPort;
  settings: SettingsProvider;
  log: Logger;
}

/** The status snapshot of a running engine, in the contract's shape. */
export function engineAppStatus(engine: Engine, store: MirrorStore, via: AppStatus['via'], staleAfterSec: number): AppStatus {
  const e = engine.status();
  return {
    connection: e.connection,
    endpoint: e.endpoint,
    via,
    paused: e.paused,
    mirrorMissing: e.mirrorMissing !== null,
    walk: e.walk,
    checking: e.checking,
    outbox: e.outbox.pending,
    conflicts: e.conflicts,
    heldDeletes: e.heldDeletes,
    uploads: { waiting: e.uploads.waiting, held: e.uploads.held, sent: e.uploads.sent, total: e.uploads.total },
    lastCompleteWalk: e.lastCompleteWalk,
    staleAfterSec,
    mirrorFolder: e.mirrorFolder,
    indexed: store.count(),
    error: e.error,
  };
}

export function createHandlers(d: HandlerDeps): ContractHandlers {
  const engineOrThrow = (): Engine => {
    const e = d.engine();
    if (!e) throw new AppError('Unavailable', d.whyNoEngine());
    return e;
  };
  const localPath = (id: string): string => {
    const e = engineOrThrow();
    const p = absOf(e.core.root, e.core.model, id);
    if (!p) throw new AppError('NotFound', 'this object has no placeholder on disk yet');
    return p;
  };
  return {
    status: async () => d.status(),
    search: async ({ q, limit, pageToken }) =>
      searchWithPaths(d.index(), d.store, q, limit, pageToken, pendingOf(d.engine()), () => engineOrThrow().deviceView()),
    suggest: async ({ prefix, limit }) => {
      // after the turn that answers what was asked before it: the window asks a search and its
      // completions back to back, and the first completions after a start load the saved word
      // list, synchronously (~0.1 s at a million names, ~1.2 s before s35); run at once, that load went before the
      // search's answer (bench:ui, s34: a first keystroke of 1.8 s at 1M)
      await new Promise<void>((resolve) => setImmediate(resolve));
      return { words: d.index().suggest(prefix, limit ?? 8) };
    },
    didYouMean: async ({ q }) => ({ suggestion: d.index().didYouMean(q) ?? null }),
    list: async ({ folderId, pageToken }) => browse(d.index(), d.store, folderId, pageToken),
    open: async ({ id }) => openOrExplain(engineOrThrow(), d, id),
    reveal: async ({ id }) => {
      await d.desktop.reveal(localPath(id));
      return {};
    },
    pin: async ({ id }) => engineOrThrow().pin(id),
    unpin: async ({ id }) => {
      await engineOrThrow().unpin(id);
      return {};
    },
    free: async ({ id }) => engineOrThrow().free(id),
    deviceSpace: async ({ folderId }) => {
      const e = d.engine();
      const under = folderId === undefined || folderId === 'root' ? undefined : folderId;
      return e ? e.deviceSpace(under) : { files: 0, bytes: 0 };
    },
    deviceStates: async ({ ids }) => ({ states: [...(d.engine()?.deviceStates(ids) ?? new Map())].map(([id, state]) => ({ id, state })) }),
    activity: async ({ limit }) => ({ entries: d.engine()?.actions.activity(limit ?? 200) ?? [] }),
    undo: async ({ id }) => {
      await engineOrThrow().actions.undo(id);
      return {};
    },
    conflicts: async () => d.engine()?.actions.conflicts() ?? { conflicts: [], held: [] },
    resolveConflicts: async ({ ids, action }) => engineOrThrow().actions.resolveConflicts(ids, action),
    resolveHeld: async ({ ids, action }) => engineOrThrow().actions.resolveHeld(ids, action),
    heldWasRenamed: async ({ id, to }) => engineOrThrow().actions.heldWasRenamed(id, to),
    heldUploads: async () => {
      const held = d.engine()?.actions.heldUploads() ?? [];
      return { held: held.slice(0, HELD_UPLOADS_SHOWN), total: held.length };
    },
    resolveUploads: async ({ ids, upload }) => engineOrThrow().actions.resolveUploads(ids, upload),
    syncNow: async () => {
      // answers at once; progress arrives as status events
      void engineOrThrow()
        .syncNow()
        .catch((err: unknown) => d.log.warn('sync now failed', { err }));
      return {};
    },
    openMirrorFolder: async () => {
      const dir = d.engine()?.core.root ?? d.status().mirrorFolder;
      if (!dir) throw new AppError('Unavailable', 'there is no mirror folder yet: connect your NAS or try the demo first');
      await d.desktop.open(dir);
      return {};
    },
    ...settingsHandlers(d.settings),
    ...organizeHandlers(d.index, engineOrThrow),
  };
}

/** The contract's methods on the settings and the mirror's set-up, answered by the provider. */
type SettingsMethods =
  | 'setPaused'
  | 'getSettings'
  | 'updateSettings'
  | 'setToken'
  | 'clearToken'
  | 'signIn'
  | 'setUp'
  | 'startNewMirror'
  | 'reopenMirror'
  | 'moveMirror';

/** The handlers of the settings methods; those only the app has refuse in "nas-mirror run". */
function settingsHandlers(settings: SettingsProvider): Pick<ContractHandlers, SettingsMethods> {
  return {
    setPaused: async ({ paused }) => {
      await settings.setPaused(paused);
      return {};
    },
    getSettings: async () => settings.view(),
    updateSettings: async ({ patch }) => settings.update(patch),
    setToken: async ({ token }) => settings.setToken(token),
    clearToken: async () => settings.clearToken(),
    signIn: async ({ location }) => settings.signIn(location),
    setUp: async (args) => (settings.setUp ?? appOnly)(args),
    startNewMirror: async () => (settings.startNewMirror ?? appOnly)(),
    reopenMirror: async () => appOnly(), // the app's core answers it (core.ts); "nas-mirror run" has no mirrors put aside
    moveMirror: async ({ to }) => (settings.moveMirror ?? appOnly)(to),
  };
}

/** The answer to a method only the app has, in "nas-mirror run". */
function appOnly(): never {
  throw new AppError('BadRequest', 'in "nas-mirror run" the NAS and the mirror folder come from the command line');
}

/**
 * "Open": the file's content is brought here when it is a placeholder (downloaded, checked,
 * put in place of the placeholder: `engine/downloads.ts`; a second Open finds it here), then
 * it opens in the system's default app. A NAS without the content interface cannot send it:
 * the window is told where the file lives, and why.
 */
async function openOrExplain(engine: Engine, d: HandlerDeps, id: string): Promise<OpenResult> {
  let got;
  try {
    got = await engine.download(id);
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'NoContentInterface') throw e;
    const names = d.store.pathOf(id);
    const size = d.store.get(id)?.size;
    const name = engine.core.model.get(id)?.rname ?? id;
    return {
      opened: false,
      onNas: { path: names ? `/${names.join('/')}` : `/${name}`, ...(size !== undefined ? { size } : {}), reason: e.message },
    };
  }
  await d.desktop.open(got.path);
  return { opened: true, ...(got.downloaded ? { downloaded: true } : {}) };
}

/**
 * The user's change to an object not yet on the NAS: where it is in the mirror folder now
 * (`here`: the result shows it under the name the user gave it) and what waits, in words
 * ("Renamed here from “a.txt”: waits to be sent to the NAS"). A search answers with the NAS's
 * names; a result the user changed says so. One index lookup per result shown.
 */
function pendingOf(engine: Engine | null): PendingOf {
  if (!engine) return () => undefined;
  const { outbox, model } = engine.core;
  const folder = (id: string): string => `/${model.pathOf(id) ?? ''}`;
  return (id) => {
    const last = outbox.unsettledFor(id).at(-1)?.intent;
    if (!last) return undefined;
    const say = (words: string): string => `${words[0]!.toUpperCase()}${words.slice(1)}: waits to be sent to the NAS`;
    if (last.op === 'delete') return { pending: say('deleted here') };
    const e = model.get(id);
    if (e && e.state === 'ok' && (e.lname !== e.rname || e.lparent !== e.rparent)) {
      const words = [
        e.lname !== e.rname ? `renamed here from “${e.rname}”` : '',
        e.lparent !== e.rparent ? `moved here from ${model.pathOf(e.rparent) || 'the top folder'}` : '',
      ].filter(Boolean);
      return { pending: say(words.join(' and ')), here: { name: e.lname, path: folder(e.lparent) } };
    }
    const words = [
      last.name !== undefined ? `renamed here to “${last.name}”` : '',
      last.parentID !== undefined ? `moved here into ${model.pathOf(last.parentID) || 'the top folder'}` : '',
    ].filter(Boolean);
    return words.length > 0 ? { pending: say(words.join(' and ')) } : undefined;
  };
}
