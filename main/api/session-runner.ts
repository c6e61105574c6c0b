/**
 * One mirror's Session, one at a time: started (the engine's events forwarded to the window's
 * hub), stopped (the offline index saved), started again, or put aside while an operation
 * runs; and the mirror's status from it. Switches run one after another, never two at once.
 */
import { NO_WALK_STATUS, type AppStatus } from '../../app/contract/shapes.js';
import { staleAfterSec as staleAfter } from '../../app/tray/stale.js';
import type { OpenedIndex } from '../index/open-index.js';
import type { Logger } from '../log/logger.js';
import type { MirrorStore } from '../mirror/store.js';
import type { Settings, SettingsStore } from '../settings/settings-store.js';
import type { EventPayload } from '../../app/contract/methods.js';
import { Coalescer } from './coalesce.js';
import type { EventHub } from './event-hub.js';
import { engineAppStatus } from './handlers.js';
import { openSession, type Session, type SessionDeps } from './session.js';

type ChangedWhat = EventPayload<'changed'>['what'];
/** The window hears "changed" of one kind at most this often (ms). */
const CHANGED_EVERY_MS = 200;

export interface SessionRunnerDeps {
  /** What each session needs; the runner adds `notice` (told to the window, with the status). */
  session: Omit<SessionDeps, 'notice'>;
  settings: SettingsStore;
  store: MirrorStore;
  /** The offline index, saved whenever a session stops. */
  opened: OpenedIndex;
  hub: EventHub;
  log: Logger;
}

export class SessionRunner {
  /** What each session is opened with (the settings use it too: tokens, the keychain). */
  readonly deps: SessionDeps;
  private current: Session | null = null;
  private unsubscribe: (() => void)[] = [];
  private switching: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly r: SessionRunnerDeps) {
    this.deps = {
      ...r.session,
      notice: (message) => {
        r.hub.emit('notice', { level: 'warn', message });
        this.emitStatus();
      },
    };
  }

  /** The session running now, or null while it switches. */
  get session(): Session | null {
    return this.current;
  }

  /** The mirror's status: the engine's when one runs, else what the session and the store say. */
  status(): AppStatus {
    const session = this.current;
    const s = this.r.settings.read();
    const staleAfterSec = staleAfter(s.syncIntervalSec);
    const engine = session?.engine;
    if (engine)
      return {
        ...engineAppStatus(engine, this.r.store, session?.via ?? null, staleAfterSec),
        endpoint: session?.endpoint ?? null,
        ...(this.r.opened.lagging ? { indexing: true, indexingPercent: this.r.opened.progress ?? 0 } : {}),
      };
    return this.idleStatus(session, s, staleAfterSec);
  }

  /** The status with no engine running: why (the session's problem, or connecting), and what the store holds. */
  private idleStatus(session: Session | null, s: Settings, staleAfterSec: number): AppStatus {
    const { store } = this.r;
    const p = session?.problem;
    return {
      connection: p?.connection ?? 'offline',
      endpoint: session?.endpoint ?? null,
      via: session?.via ?? null,
      paused: s.paused,
      mirrorMissing: false,
      walk: NO_WALK_STATUS,
      outbox: 0,
      conflicts: 0,
      heldDeletes: 0,
      uploads: { waiting: 0, held: 0, sent: 0, total: 0 },
      lastCompleteWalk: store.lastWalk()?.completedAt ?? null,
      staleAfterSec,
      mirrorFolder: s.source === 'none' ? null : s.mirrorFolder,
      indexed: store.count(),
      error: p ? { code: p.code, message: p.message } : session ? null : { code: 'Unavailable', message: 'connecting…' },
    };
  }

  /** Tells the window the status (not once the mirror is closed). */
  emitStatus(): void {
    if (!this.closed) this.r.hub.emit('status', this.status());
  }

  /** Opens a session for the saved settings and starts its engine (its failure is a notice). */
  async start(): Promise<void> {
    const { hub, log } = this.r;
    const s = this.r.settings.read();
    this.current = await openSession(this.deps, s);
    const engine = this.current.engine;
    if (engine) {
      // a 10,000-file upload says "changed" per file: the window hears it at most five times a second
      const changed = new Coalescer<ChangedWhat>(CHANGED_EVERY_MS, (what) => hub.emit('changed', { what }));
      this.unsubscribe = [
        () => changed.close(),
        // "search is catching up" comes and goes with the index, not with the engine's status
        this.r.opened.onLagging((lagging) => {
          this.emitStatus();
          // caught up: what the window shows is searched again
          if (!lagging) changed.push('index');
        }),
        // "search is catching up… 40 %": each whole percent
        this.r.opened.onProgress(() => this.emitStatus()),
        engine.events.on('status', () => this.emitStatus()),
        engine.events.on('activity', () => changed.push('activity')),
        engine.events.on('changed', (c) => changed.push(c.what)),
        engine.events.on('notice', (n) => hub.emit('notice', n)),
        // Opens only: a Keep's downloads would tell the window 2 events per file, for nothing it shows
        engine.events.on('download', ({ open, ...d }) => open && hub.emit('download', d)),
      ];
      if (engine.state.paused !== s.paused) await engine.setPaused(s.paused);
      void engine
        .start()
        .catch((e: unknown) => {
          log.error('engine failed to start', { err: e });
          hub.emit('notice', { level: 'error', message: `sync could not start: ${e instanceof Error ? e.message : String(e)}` });
        })
        .finally(() => this.emitStatus());
    }
    this.emitStatus();
  }

  /** Closes the session (its engine stops) and saves the offline index. */
  async stop(): Promise<void> {
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
    const s = this.current;
    this.current = null;
    await s?.close();
    await this.r.opened.save().catch((e: unknown) => this.r.log.warn('saving the offline index failed', { err: e }));
  }

  /** Stops the session and starts a new one (after any switch under way). */
  restart(): Promise<void> {
    return (this.switching = this.switching.then(async () => {
      await this.stop();
      await this.start();
    }));
  }

  /** Runs `fn` with no session (engine stopped), then starts one again whatever happened. */
  withoutSession<T>(fn: () => T | Promise<T>): Promise<T> {
    const run = this.switching.then(async () => {
      await this.stop();
      try {
        return await fn();
      } finally {
        await this.start();
      }
    });
    this.switching = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Waits for a switch under way, stops the session, and tells the window no more status. */
  async close(): Promise<void> {
    await this.switching;
    await this.stop();
    this.closed = true;
  }
}
