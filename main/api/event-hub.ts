/**
 * The engine's outgoing events to any number of windows (Electron window, browser tabs).
 * Each payload is checked against the contract before it leaves, so a bug shows up here,
 * not as a silently dropped event in the window.
 */
import { EVENTS, type EventName, type EventPayload } from '../../app/contract/methods.js';
import type { Logger } from '../log/logger.js';

export type EventListener = (event: EventName, payload: unknown) => void;

export class EventHub {
  private readonly listeners = new Set<EventListener>();
  constructor(private readonly log?: Logger) {}

  subscribe(l: EventListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    let checked: unknown;
    try {
      checked = EVENTS[event].parse(payload, 'payload');
    } catch (e) {
      this.log?.error('event does not fit the contract', { event, err: e });
      return;
    }
    for (const l of this.listeners) {
      try {
        l(event, checked);
      } catch (e) {
        this.log?.warn('event listener failed', { event, err: e });
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
