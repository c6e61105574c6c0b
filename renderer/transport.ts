/**
 * The window's end of the contract. Two carriers, one behaviour: the Electron preload
 * (`window.nasMirror`) or a WebSocket to the headless engine (browser mode). Every reply and
 * event is checked against the contract on arrival; anything malformed is dropped, never used.
 */
import { checkEvent, checkReply, type Reply } from '../app/contract/envelope.js';
import type { Args, ContractClient, EventName, EventPayload, Method, Result } from '../app/contract/methods.js';

/** What the Electron preload exposes (see main/shell/preload.ts). */
export interface PreloadBridge {
  call(method: string, args: unknown): Promise<Reply>;
  onEvent(listener: (event: string, payload: unknown) => void): void;
}

declare global {
  interface Window {
    nasMirror?: PreloadBridge;
  }
}

type Listener = (payload: unknown) => void;

class Events {
  private readonly listeners = new Map<string, Set<Listener>>();
  on(event: string, l: Listener): () => void {
    const set = this.listeners.get(event) ?? new Set<Listener>();
    set.add(l);
    this.listeners.set(event, set);
    return () => set.delete(l);
  }
  emit(rawEvent: unknown, rawPayload: unknown): void {
    let checked: { event: EventName; payload: unknown };
    try {
      checked = checkEvent(rawEvent, rawPayload);
    } catch {
      return;
    }
    for (const l of this.listeners.get(checked.event) ?? []) l(checked.payload);
  }
}

/** The client over the Electron preload bridge. */
export function preloadClient(bridge: PreloadBridge): ContractClient {
  const events = new Events();
  bridge.onEvent((e, p) => events.emit(e, p));
  return {
    async call<M extends Method>(method: M, args: Args<M>): Promise<Result<M>> {
      return checkReply(method, await bridge.call(method, args));
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void) {
      return events.on(event, listener as Listener);
    },
  };
}

/** Connection state of the WebSocket carrier, for the "engine not reachable" banner. */
export type LinkListener = (up: boolean) => void;

/** The client over a WebSocket to `url`, reconnecting with backoff. */
export function socketClient(url: string, onLink: LinkListener): ContractClient {
  const events = new Events();
  const pending = new Map<number, { method: Method; resolve: (r: unknown) => void; reject: (e: unknown) => void }>();
  let ws: WebSocket | null = null;
  let open: Promise<WebSocket> | null = null;
  let nextId = 1;
  let delay = 250;

  const connect = (): Promise<WebSocket> => {
    if (open) return open;
    open = new Promise<WebSocket>((resolve, reject) => {
      const sock = new WebSocket(url);
      sock.addEventListener('open', () => {
        ws = sock;
        delay = 250;
        onLink(true);
        resolve(sock);
      });
      sock.addEventListener('message', (m) => onMessage(m.data));
      sock.addEventListener('close', () => {
        const wasOpen = ws === sock;
        ws = null;
        open = null;
        for (const p of pending.values()) p.reject(new Error('the engine went away'));
        pending.clear();
        onLink(false);
        if (!wasOpen) reject(new Error('cannot reach the engine'));
        setTimeout(() => {
          connect().catch(() => undefined);
        }, delay);
        delay = Math.min(delay * 2, 5000);
      });
    });
    return open;
  };

  const onMessage = (data: unknown): void => {
    if (typeof data !== 'string') return;
    let frame: unknown;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof frame !== 'object' || frame === null) return;
    const f = frame as Record<string, unknown>;
    if (f['type'] === 'event') events.emit(f['event'], f['payload']);
    else if (f['type'] === 'reply' && typeof f['id'] === 'number') {
      const p = pending.get(f['id']);
      if (!p) return;
      pending.delete(f['id']);
      try {
        p.resolve(checkReply(p.method, f));
      } catch (e) {
        p.reject(e);
      }
    }
  };

  connect().catch(() => undefined);
  return {
    async call<M extends Method>(method: M, args: Args<M>): Promise<Result<M>> {
      const sock = ws ?? (await connect());
      const id = nextId++;
      return new Promise<Result<M>>((resolve, reject) => {
        pending.set(id, { method, resolve: resolve as (r: unknown) => void, reject });
        sock.send(JSON.stringify({ type: 'call', id, method, args }));
      });
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void) {
      return events.on(event, listener as Listener);
    },
  };
}
