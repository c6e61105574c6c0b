/**
 * The engine side of the window contract for the app: one MirrorCore at a time (state
 * database, settings, offline index, session) behind stable handlers and one event hub, so
 * "Start a new mirror" can put the current mirror aside (state kept in previous/, mirror
 * folder untouched) and open a fresh one, or "Reopen" one put aside earlier, without the
 * window reconnecting. The keychain and
 * in-memory tokens outlive a swap.
 */
import { mkdirSync } from 'node:fs';
import { METHOD_NAMES, type ContractHandlers, type Method } from '../../app/contract/methods.js';
import { NO_WALK_STATUS, type AppStatus } from '../../app/contract/shapes.js';
import { AppError } from '../../app/errors.js';
import { MemoryKeychain, openKeychain } from '../keychain/keychain.js';
import type { Settings } from '../settings/settings-store.js';
import type { Core, CoreOptions } from './core-types.js';
import { EventHub } from './event-hub.js';
import { openMirrorCore, type MirrorCore, type MirrorCoreDeps } from './mirror-core.js';
import { dropEmptyState, previousMirror, putMirrorAside, restoreMirror } from './previous-mirrors.js';
import type { SessionDeps } from './session.js';
import { ignore } from '../../app/util/ignore.js';

export async function startCore(opts: CoreOptions & { demoObjects?: number; engine?: SessionDeps['engine'] }): Promise<Core> {
  mkdirSync(opts.dataDir, { recursive: true });
  const keychain = opts.keychain ?? (opts.noKeychain ? new MemoryKeychain('the keychain is turned off') : await openKeychain());
  const hub = new EventHub(opts.log.child('events'));
  const memoryTokens = new Map<string, string>();
  let current: MirrorCore | null = await openMirrorCore({ opts, hub, keychain, memoryTokens });
  let swapping: Promise<unknown> = Promise.resolve();

  const live = async (): Promise<MirrorCore> => {
    await swapping;
    if (!current) throw new AppError('Unavailable', 'the app is closing');
    return current;
  };

  /**
   * Puts the current mirror aside (a state that holds none is dropped) and opens a fresh one
   * that asks again ("Start a new mirror"), or the mirror kept in `reopen` ("Reopen").
   */
  const swapMirror = async (reopen?: string): Promise<Awaited<ReturnType<ContractHandlers['startNewMirror']>>> => {
    const old = await live();
    const s = old.settings();
    if (s.source === 'none' && reopen === undefined) return old.handlers.getSettings({});
    const back = reopen === undefined ? undefined : previousMirror(opts.dataDir, reopen); // checked before anything moves
    const run = (async () => {
      current = null;
      await old.close();
      let carry: MirrorCoreDeps['carry'];
      try {
        if (s.source === 'none') dropEmptyState(opts.dataDir);
        else
          putMirrorAside(opts.dataDir, {
            mirrorFolder: s.mirrorFolder,
            nas: s.source === 'embedded' ? 'the built-in demo NAS' : s.location,
          });
        opts.log.info('mirror put aside', { mirrorFolder: s.mirrorFolder, reopening: back?.keptIn });
        if (back) restoreMirror(opts.dataDir, back);
        else carry = carriedSettings(s);
      } finally {
        // a fresh state, the one brought back (or, if the files could not move, the same one again): never no core
        current = await openMirrorCore({ opts, hub, keychain, memoryTokens, ...(carry ? { carry } : {}) });
      }
    })();
    swapping = run.catch(ignore('awaited just below: the caller gets the failure; others only wait for the swap to end'));
    await run;
    hub.emit('changed', { what: 'settings' });
    hub.emit('changed', { what: 'index' });
    hub.emit('changed', { what: 'activity' });
    hub.emit('changed', { what: 'conflicts' });
    return (await live()).handlers.getSettings({});
  };
  const special: Partial<Record<Method, (args: never) => Promise<unknown>>> = {
    startNewMirror: () => swapMirror(),
    reopenMirror: ({ keptIn }: { keptIn: string }) => swapMirror(keptIn),
  };

  const handlers = Object.fromEntries(
    METHOD_NAMES.map((m: Method) => [
      m,
      special[m] ?? (async (args: never) => ((await live()).handlers[m] as (a: never) => Promise<unknown>)(args)),
    ]),
  ) as unknown as ContractHandlers;

  return {
    handlers,
    events: hub,
    status: () => current?.status() ?? switchingStatus(),
    async close() {
      await swapping;
      const c = current;
      current = null;
      await c?.close();
    },
  };
}

/** What a fresh mirror keeps of the one put aside: theme, timing, delete limits, start at login. */
function carriedSettings(s: Settings): MirrorCoreDeps['carry'] {
  return {
    theme: s.theme,
    syncIntervalSec: s.syncIntervalSec,
    deleteThresholdCount: s.deleteThresholdCount,
    deleteThresholdPercent: s.deleteThresholdPercent,
    startAtLogin: s.startAtLogin,
  };
}

/** The status while one mirror is put aside and the next one opens. */
function switchingStatus(): AppStatus {
  return {
    connection: 'offline',
    endpoint: null,
    via: null,
    paused: false,
    mirrorMissing: false,
    walk: NO_WALK_STATUS,
    outbox: 0,
    conflicts: 0,
    heldDeletes: 0,
    uploads: { waiting: 0, held: 0, sent: 0, total: 0 },
    lastCompleteWalk: null,
    staleAfterSec: 600,
    mirrorFolder: null,
    indexed: 0,
    error: { code: 'MirrorSwitching', message: 'starting a new mirror…' },
  };
}
