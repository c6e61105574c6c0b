/**
 * The window's end of the contract. Two carriers, one behaviour: the Electron preload
 * (`window.nasMirror`) or a WebSocket to the headless engine (browser mode). Every reply and
 * event is checked against the contract on arrival; anything malformed is dropped, never used.
 */
import { checkEvent, checkReply, type Reply } from '../app/contract/envelope.js';
import type { Args, ContractClient, EventName, EventPayload, Method, Result } from '../app/contract/methods.js';
import { ignore } from '../app/util/ignore.js';

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

/**
 * The WebSocket carrier's link, for the banner: `up`; `down` (nothing answers at the window's
 * address: the app is stopped, or restarting); `replaced` (the app answers there, but under
 * another secret: it was restarted and this window belongs to its previous run; it can never
 * reconnect, so it stops trying).
 */
export type Link = 'up' | 'down' | 'replaced';
export type LinkListener = (link: Link) => void;

/** Whether the page's own address still answers as this window's (a restarted app has a new secret). */
async function probePage(): Promise<Link> {
  try {
    const res = await fetch(new URL('./', location.href), { cache: 'no-store' });
    return res.ok ? 'down' : 'replaced';
  } catch {
    return 'down'; // nothing answers: not running (or not yet)
  }
}

/** The client over a WebSocket to `url`, reconnecting with backoff while the app may come back. */
export function socketClient(url: string, onLink: LinkListener, probe: () => Promise<Link> = probePage): ContractClient {
  const events = new Events();
  const pending = new Map<number, { method: Method; resolve: (r: unknown) => void; reject: (e: unknown) => void }>();
  let ws: WebSocket | null = null;
  let open: Promise<WebSocket> | null = null;
  let nextId = 1;
  let delay = 250;
  let replaced = false;

  /** After a close: says why, and tries again unless the app now answers under another secret. */
  const retry = async (): Promise<void> => {
    const link = await probe();
    onLink(link);
    if (link === 'replaced') {
      replaced = true;
      return;
    }
    setTimeout(() => {
      connect().catch(ignore('a failed attempt closes, and that close retries'));
    }, delay);
    delay = Math.min(delay * 2, 5000);
  };

  const connect = (): Promise<WebSocket> => {
    if (replaced) return Promise.reject(new Error('NAS Mirror was restarted: this window cannot reconnect'));
    if (open) return open;
    open = new Promise<WebSocket>((resolve, reject) => {
      const sock = new WebSocket(url);
      sock.addEventListener('open', () => {
        ws = sock;
        delay = 250;
        onLink('up');
        resolve(sock);
      });
      sock.addEventListener('message', (m) => onMessage(m.data));
      sock.addEventListener('close', () => {
        const wasOpen = ws === sock;
        ws = null;
        open = null;
        for (const p of pending.values()) p.reject(new Error('NAS Mirror stopped answering'));
        pending.clear();
        if (!wasOpen) reject(new Error('cannot reach NAS Mirror'));
        void retry();
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

  connect().catch(ignore('its close says why and retries'));
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
