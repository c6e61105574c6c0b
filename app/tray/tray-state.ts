/**
 * The tray's state machine, pure: from the engine's status snapshot and the clock to one of
 * six honest states, and from one state to the next, the notifications to show. The tray
 * never says "synced" while something is wrong: problems that need the user outrank a
 * pause, a pause outranks being offline, offline outranks work in progress, and "synced"
 * is only said when the last complete walk is recent.
 */
import { formatSize, plural } from '../util/human.js';
import type { AppStatus } from '../contract/shapes.js';
import { walkIsStale } from './stale.js';
import { walkWords } from './walk-words.js';

export const TRAY_STATES = ['attention', 'paused', 'offline', 'syncing', 'stale', 'synced'] as const;
export type TrayState = (typeof TRAY_STATES)[number];

/** What the tray shows: the icon's state, a one-line tooltip, the menu's status line. */
export interface TrayView {
  state: TrayState;
  tooltip: string;
  /** Objects seen so far in a running walk, for "syncing" (null otherwise). */
  progress: { folders: number; objects: number } | null;
  /** Whether the menu offers "Resume" (true) or "Pause" (false). */
  paused: boolean;
}

export type NotificationKind = 'conflicts' | 'held-deletes' | 'held-uploads' | 'auth-error' | 'mirror-missing';

export interface TrayNotification {
  kind: NotificationKind;
  title: string;
  body: string;
}

/** No NAS configured at all (the first start), as against a NAS configured without a sign-in. */
const notSetUp = (s: AppStatus): boolean => s.connection === 'unconfigured' && s.error?.code !== 'Unauthorized';

/** The link is up but the NAS says nothing: its requests time out (a hung or stopped NAS). */
export const notAnswering = (s: AppStatus): boolean => s.connection === 'offline' && s.error?.code === 'Timeout';

/**
 * The connection in one or two words (the window's badge): the same word as the tray's and
 * the header line's ("Not signed in" when only the sign-in is missing, "Not answering" when
 * requests time out), never "Not set up" for a NAS that is configured.
 */
export function connectionWord(s: AppStatus): string {
  if (s.connection === 'unconfigured') return notSetUp(s) ? 'Not set up' : 'Not signed in';
  if (notAnswering(s)) return 'Not answering';
  return s.connection === 'online' ? 'Online' : s.connection === 'offline' ? 'Offline' : 'Sign-in failed';
}

/** Everything that waits for the user in Conflicts: conflicts, held deletes, held uploads (the menu's and the window's count). */
export function toResolve(s: AppStatus): number {
  return s.conflicts + s.heldDeletes + s.uploads.held;
}

/**
 * What is still to go to the NAS, split: new folders and files to create there (`uploads`)
 * and the other changes (renames, moves, deletes: the outbox).
 */
export function toSend(s: AppStatus): { changes: number; uploads: number } {
  return { changes: s.outbox, uploads: s.uploads.waiting };
}

/** What is still to send, in the tray's few words ("2 changes to send, 3 new items to upload"). */
/** Changes and new items still to go to the NAS, in all. */
export const toSendCount = (s: AppStatus): number => s.outbox + s.uploads.waiting;

/** The bytes of the files going up now, in words ("120 MB of 1.1 GB"), or '' when none goes up. */
export function bytesGoing(s: AppStatus): string {
  return s.uploads.total > 0 ? `${formatSize(s.uploads.sent)} of ${formatSize(s.uploads.total)}` : '';
}

function sendText(s: AppStatus, changes: string, uploads: string): string {
  const t = toSend(s);
  const bytes = bytesGoing(s);
  return [
    t.changes > 0 ? `${plural(t.changes, 'change', 'changes')} ${changes}` : '',
    t.uploads > 0 ? `${plural(t.uploads, 'new item', 'new items')} ${uploads}${bytes ? `: ${bytes} sent` : ''}` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/** Why the user is needed, or null. */
function attentionReason(s: AppStatus): string | null {
  if (s.connection === 'auth-error') return 'the NAS no longer accepts the sign-in';
  if (s.mirrorMissing) return 'the mirror folder is missing; sync is paused';
  if (s.connection === 'unconfigured') return notSetUp(s) ? 'not set up yet' : 'not signed in to this NAS yet';
  const parts: string[] = [];
  if (s.conflicts > 0) parts.push(plural(s.conflicts, 'conflict', 'conflicts'));
  if (s.heldDeletes > 0) parts.push(plural(s.heldDeletes, 'held delete', 'held deletes'));
  if (s.uploads.held > 0) parts.push(`${plural(s.uploads.held, 'new item waits', 'new items wait')} for your OK`);
  return parts.length > 0 ? parts.join(', ') : null;
}

/** True when the last complete walk is missing or older than `staleAfterSec`. */
export function isStale(s: AppStatus, nowMs: number): boolean {
  return walkIsStale(s.lastCompleteWalk, s.staleAfterSec, nowMs);
}

/** The tray's view of a status snapshot at time `nowMs`. */
export function trayView(s: AppStatus, nowMs: number): TrayView {
  const base = { paused: s.paused, progress: null };
  const attention = attentionReason(s);
  if (attention !== null) return { ...base, state: 'attention', tooltip: `NAS Mirror: needs attention (${attention})` };
  if (s.paused) return { ...base, state: 'paused', tooltip: 'NAS Mirror: paused' };
  if (s.connection === 'offline') {
    const queued = toSendCount(s) > 0 ? `, ${sendText(s, 'waiting', 'to upload')}` : '';
    return { ...base, state: 'offline', tooltip: `NAS Mirror: ${notAnswering(s) ? 'NAS not answering, retrying' : 'offline'}${queued}` };
  }
  if (s.walk.running || toSendCount(s) > 0 || s.checking === true) {
    // a walk in the header's words (walk-words.ts): "reading the NAS: 12,340 of 100,000 items (12 %) · about 2 min left"
    const what = s.walk.running
      ? `, reading the NAS: ${walkWords(s).text}`
      : ` (${toSendCount(s) > 0 ? sendText(s, 'to send', 'to upload') : 'checking the mirror folder'})`;
    return {
      ...base,
      state: 'syncing',
      tooltip: `NAS Mirror: syncing${what}`,
      progress: s.walk.running ? { folders: s.walk.folders, objects: s.walk.objects } : null,
    };
  }
  if (isStale(s, nowMs)) {
    const when = s.lastCompleteWalk === null ? 'never completed' : `last complete walk ${s.lastCompleteWalk}`;
    return { ...base, state: 'stale', tooltip: `NAS Mirror: out of date (${when})` };
  }
  return { ...base, state: 'synced', tooltip: `NAS Mirror: up to date (${plural(s.indexed, 'object', 'objects')})` };
}

/**
 * The notifications owed when the status goes from `prev` to `next`: a new conflict, held
 * delete or held upload (the count went up), an auth error or a missing mirror that just
 * appeared. Nothing is repeated while a condition lasts.
 */
export function notificationsFor(prev: AppStatus | null, next: AppStatus): TrayNotification[] {
  const out: TrayNotification[] = [];
  const before = {
    conflicts: prev?.conflicts ?? 0,
    held: prev?.heldDeletes ?? 0,
    heldUploads: prev?.uploads.held ?? 0,
    auth: prev?.connection === 'auth-error',
    missing: prev?.mirrorMissing ?? false,
  };
  if (next.connection === 'auth-error' && !before.auth) {
    // The plain reason (e.g. "the refresh token is unknown or was revoked") comes from the engine.
    const why = next.error?.message ? ` (${next.error.message})` : '';
    out.push({
      kind: 'auth-error',
      title: 'NAS Mirror needs you to sign in again',
      body: `The NAS no longer accepts the sign-in${why}. Open Settings and choose Sign in; changes wait until then.`,
    });
  }
  if (next.mirrorMissing && !before.missing) {
    out.push({
      kind: 'mirror-missing',
      title: 'Mirror folder missing',
      body: 'Sync is paused until the mirror folder is back; nothing was deleted.',
    });
  }
  if (next.conflicts > before.conflicts) {
    const n = next.conflicts - before.conflicts;
    out.push({
      kind: 'conflicts',
      title: plural(n, 'new conflict', 'new conflicts'),
      body: 'The NAS changed what you changed here. Open Conflicts to keep yours or the NAS version.',
    });
  }
  if (next.heldDeletes > before.held) {
    const n = next.heldDeletes - before.held;
    out.push({
      kind: 'held-deletes',
      title: plural(n, 'delete held', 'deletes held'),
      body: 'A large delete waits for you in Conflicts. Nothing was deleted on the NAS yet.',
    });
  }
  if (next.uploads.held > before.heldUploads) {
    const n = next.uploads.held - before.heldUploads;
    out.push({
      kind: 'held-uploads',
      title: `${plural(n, 'new item waits', 'new items wait')} for your OK`,
      body:
        'Many new files at once: they wait for you in Conflicts (Upload, or keep them on this computer only). ' +
        'Nothing was uploaded yet.',
    });
  }
  return out;
}

/** The tray menu, in order; `id`s are what the shell dispatches on. */
export type TrayMenuItem =
  | { id: 'status'; label: string; enabled: false }
  | {
      id: 'open' | 'search' | 'open-mirror' | 'sync-now' | 'pause' | 'resume' | 'activity' | 'conflicts' | 'quit';
      label: string;
      enabled: boolean;
    }
  | { id: 'separator' };

/** The whole menu lives in the context menu (Linux AppIndicator ignores clicks). */
export function trayMenu(view: TrayView, s: AppStatus): TrayMenuItem[] {
  const items: TrayMenuItem[] = [
    { id: 'status', label: view.tooltip.replace(/^NAS Mirror: /, ''), enabled: false },
    { id: 'separator' },
    { id: 'open', label: 'Open NAS Mirror', enabled: true },
    { id: 'search', label: 'Search…', enabled: true },
    { id: 'open-mirror', label: 'Open mirror folder', enabled: s.mirrorFolder !== null },
    { id: 'sync-now', label: 'Sync now', enabled: !s.paused && s.connection !== 'unconfigured' },
    view.paused ? { id: 'resume', label: 'Resume sync', enabled: true } : { id: 'pause', label: 'Pause sync', enabled: true },
    { id: 'activity', label: 'Recent activity', enabled: true },
  ];
  if (toResolve(s) > 0) items.push({ id: 'conflicts', label: `Resolve ${plural(toResolve(s), 'item', 'items')}…`, enabled: true });
  items.push({ id: 'separator' }, { id: 'quit', label: 'Quit NAS Mirror', enabled: true });
  return items;
}
