/**
 * The engine's status snapshot (plain data): connection, pause and mirror health, walk
 * progress, outbox, conflicts, held deletes, local-only items, last complete walk, watcher.
 * `readStatus` builds the same from the state db alone, for `nas-mirror status`.
 */
import { walkStatus } from '../../app/contract/shapes.js';
import type { Db } from '../state/db.js';
import type { Core } from './core.js';
import { initialState, NO_WALK, shownError, statusWord, type EngineState, type Problem, type WalkView } from './engine-state.js';
import { LocalStore } from '../local/local-store.js';
import { OutboxStore } from '../outbox/outbox-store.js';
import { CreatesStore } from '../local/creates-store.js';
import { MirrorStore } from '../mirror/store.js';
import { checkRoot } from './mirror-root.js';
import { enginePid } from './instance-lock.js';

export interface EngineStatus {
  state: 'synced' | 'syncing' | 'paused' | 'offline' | 'auth-error' | 'mirror-missing' | 'needs-attention' | 'stopped';
  connection: 'online' | 'offline' | 'auth-error';
  endpoint: string | null;
  paused: boolean;
  mirrorMissing: string | null;
  mirrorFolder: string | null;
  /** The walk in progress: folders and objects seen, placeholders placed, objects per second, the items known to exist. */
  walk: WalkView;
  /** The mirror folder is being compared with the model (since the start, or its disk changed): not "synced" yet. */
  checking: boolean;
  lastCompleteWalk: string | null;
  objects: number;
  outbox: { pending: number; done: number; conflict: number };
  conflicts: number;
  heldDeletes: number;
  heldObjects: number;
  localOnly: number;
  filledPlaceholders: number;
  /** New folders and files: to create on the NAS (counted in the changes to send), and waiting for the user's word (a mass upload). */
  /**
   * New folders and files: to create on the NAS (counted in the changes to send), waiting for
   * the user's word (a mass upload), and the bytes of the files going up now (sent of total).
   */
  uploads: { waiting: number; held: number; sent: number; total: number };
  watcher: { polling: boolean; selfTest: { at: string; ok: boolean } | null; notice: string | null };
  error: { code: string; message: string } | null;
}

/** The bytes of the files going up now: sent of total. */
function bytesInFlight(going: Iterable<{ sent: number; size: number }>): { sent: number; total: number } {
  let sent = 0;
  let total = 0;
  for (const g of going) {
    sent += g.sent;
    total += g.size;
  }
  return { sent, total };
}

/** What the status reads of the engine's context. */
export type StatusPort = Pick<Core, 'outbox' | 'creates' | 'local' | 'model' | 'store' | 'root'>;

/** The running engine's status: its state machine's views (engine-state.ts) and the stores' counts. */
export function buildStatus(
  core: StatusPort,
  s: EngineState,
  watcher: { polling: boolean; selfTest: { at: string; ok: boolean } | null },
  endpoint: string | null,
  going: Iterable<{ sent: number; size: number }> = [],
  /** Uploads' own problem (the NAS is full), shown when nothing above it is. */
  uploadProblem?: Problem,
): EngineStatus {
  const counts = core.outbox.counts();
  const held = core.local.held();
  const conflicts = core.local.conflicts().length;
  const filled = core.model.filledCount;
  const up = core.creates.counts();
  const pending = counts.pending + counts.sending;
  // new entries not on the NAS yet are changes to send too: not "synced" meanwhile
  const state = statusWord(s, { outboxPending: pending + up.open, conflicts, heldDeletes: held.length + up.held });
  return {
    state,
    connection: s.connection,
    endpoint,
    paused: s.paused,
    mirrorMissing: s.mirrorMissing ?? null,
    mirrorFolder: core.root,
    walk: s.walk,
    checking: !s.localChecked,
    lastCompleteWalk: core.store.lastWalk()?.completedAt ?? null,
    objects: core.model.objectCount(),
    outbox: { pending, done: counts.done, conflict: counts.conflict },
    conflicts,
    heldDeletes: held.length,
    heldObjects: held.reduce((n, h) => n + h.objects, 0),
    localOnly: core.local.localOnlyCount() + filled,
    filledPlaceholders: filled,
    uploads: { waiting: up.open, held: up.held, ...bytesInFlight(going) },
    watcher: { polling: s.watcherPolling || watcher.polling, selfTest: watcher.selfTest, notice: s.watcherNotice ?? null },
    error: shownError(s) ?? uploadProblem ?? null,
  };
}

/** Status from the state db alone (the engine may not be running). */
export function readStatus(
  db: Db,
  stateDir: string,
): Omit<EngineStatus, 'connection' | 'endpoint' | 'watcher' | 'error'> & {
  engineRunning: number | null;
  pendingRequests: number;
  connectionProblem: string | null;
  notAnswering: boolean;
  /** The running engine's offline index is catching up: how much search finds (whole percents); null when it is not. */
  indexingPercent: number | null;
} {
  const local = new LocalStore(db);
  const outbox = new OutboxStore(db);
  const store = new MirrorStore(db);
  const up = new CreatesStore(db).counts();
  const counts = outbox.counts();
  const held = local.held();
  const conflicts = local.conflicts().length;
  const row = local.entryCounts();
  const paused = local.meta('paused') === '1';
  const pending = counts.pending + counts.sending;
  const mirrorDir = local.meta('mirrorDir');
  const rootId = store.root()?.id ?? '';
  const top = local.placedChildren(rootId);
  const health = mirrorDir === undefined ? undefined : checkRoot(mirrorDir, top);
  const mirrorMissing = health && !health.ok ? health.reason : null;
  const engineRunning = enginePid(stateDir);
  // a running engine that has not compared the folder with the model yet is not synced
  const checking = engineRunning !== null && local.meta('localCheck') === 'pending';
  // what the running engine last saw of the NAS (main/engine/engine.ts announce)
  let link: { state: 'offline' | 'auth-error'; message: string; code?: string } | undefined;
  try {
    link = engineRunning ? (JSON.parse(local.meta('connection') ?? 'null') ?? undefined) : undefined;
  } catch {
    link = undefined;
  }
  const walk = engineRunning ? keptWalk(local.meta('walk')) : NO_WALK;
  // written by the engine's process while its index catches up (api/compose.ts)
  const indexing = engineRunning ? Number(local.meta('indexing') ?? NaN) : NaN;
  return {
    state: statusWord(
      // the running engine's walk makes it "syncing", as in the window
      { ...initialState(paused, !checking), walk, mirrorMissing: mirrorMissing ?? undefined, connection: link?.state ?? 'online' },
      { outboxPending: pending + up.open, conflicts, heldDeletes: held.length + up.held },
    ),
    connectionProblem: link?.message ?? null,
    // the NAS takes connections and replies nothing (its requests time out): said as such, as the window does
    notAnswering: link?.state === 'offline' && link.code === 'Timeout',
    paused,
    mirrorMissing,
    mirrorFolder: mirrorDir ?? null,
    walk,
    checking,
    lastCompleteWalk: store.lastWalk()?.completedAt ?? null,
    objects: Math.max(0, row.entries - 1),
    outbox: { pending, done: counts.done, conflict: counts.conflict },
    conflicts,
    heldDeletes: held.length,
    heldObjects: held.reduce((n, h) => n + h.objects, 0),
    localOnly: local.localOnlyCount() + row.filled,
    filledPlaceholders: row.filled,
    uploads: { waiting: up.open, held: up.held, sent: 0, total: 0 },
    engineRunning,
    pendingRequests: local.pendingRequests(),
    indexingPercent: Number.isInteger(indexing) ? indexing : null,
  };
}

/** The running engine's walk as kept in the state db (state-keeper.ts), checked with the contract's shape; none if absent or unreadable. */
function keptWalk(text: string | undefined): WalkView {
  if (text === undefined) return NO_WALK;
  try {
    const w: unknown = JSON.parse(text);
    return walkStatus.test(w) ? w : NO_WALK;
  } catch {
    return NO_WALK;
  }
}
