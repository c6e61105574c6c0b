/**
 * The engine's typed events, from one `as const`-style map: status snapshots, activity
 * entries, "a list changed" hints and notices for people. Listeners get plain data.
 */
import type { ActivityEntry } from '../../app/contract/shapes.js';
import type { EngineStatus } from './status.js';

/** A download's progress (Open on demand): `downloading` while bytes flow, then `done` or `failed`. */
export interface DownloadProgress {
  id: string;
  /** The file's path in the mirror folder, for people. */
  path: string;
  bytes: number;
  total: number;
  state: 'downloading' | 'done' | 'failed';
  message?: string;
  /**
   * Someone waits on this file (an Open: `Engine.download`), as opposed to the keeper's
   * downloads of kept folders: the window shows only these (a Keep of 10,000 files told it
   * 20,000 events, each parsed and dropped by both windows).
   */
  open?: true;
}

export interface EngineEventMap {
  status: EngineStatus;
  activity: ActivityEntry;
  changed: { what: 'activity' | 'conflicts' | 'index' | 'settings' | 'content' };
  notice: { level: 'info' | 'warn' | 'error'; message: string };
  /** The folder is watched and matches the model (the first round goes on: catch-up walk, replay). */
  ready: { restart: boolean; ms: number };
  download: DownloadProgress;
}

export type EngineEventName = keyof EngineEventMap;

export class EngineEvents {
  private readonly ls = new Map<EngineEventName, Set<(p: never) => void>>();

  /** Subscribes; returns the unsubscribe function. */
  on<E extends EngineEventName>(event: E, listener: (payload: EngineEventMap[E]) => void): () => void {
    let s = this.ls.get(event);
    if (!s) this.ls.set(event, (s = new Set()));
    s.add(listener as (p: never) => void);
    return () => s.delete(listener as (p: never) => void);
  }

  emit<E extends EngineEventName>(event: E, payload: EngineEventMap[E]): void {
    for (const l of this.ls.get(event) ?? []) {
      try {
        (l as (p: EngineEventMap[E]) => void)(payload);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}
