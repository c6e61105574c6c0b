/**
 * The WebSocket carrier's reconnecting (browser mode): while nothing answers at the window's
 * address it keeps trying, with backoff; once the app answers there under another secret (it
 * was restarted: this window can never reconnect) it says so and stops. A stand-in for the
 * browser's WebSocket that fails every connection, fake timers, the probe's answer given.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { socketClient, type Link } from './transport.js';

/** A WebSocket that never connects: each one closes on the next tick, as a refused one does. */
class RefusedSocket extends EventTarget {
  static made = 0;
  constructor(readonly url: string) {
    super();
    RefusedSocket.made++;
    setTimeout(() => this.dispatchEvent(new Event('close')), 0);
  }
  send(): void {
    throw new Error('not open');
  }
}

beforeEach(() => {
  RefusedSocket.made = 0;
  vi.useFakeTimers();
  vi.stubGlobal('WebSocket', RefusedSocket);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('socketClient reconnecting', () => {
  it('keeps trying while nothing answers (down), with backoff up to 5 s', async () => {
    const links: Link[] = [];
    socketClient(
      'ws://127.0.0.1:1/ui/x/ws',
      (l) => links.push(l),
      async () => 'down',
    );
    await vi.advanceTimersByTimeAsync(60_000);
    // 0.25 + 0.5 + 1 + 2 + 4 s, then every 5 s: about 16 attempts in a minute
    expect(RefusedSocket.made).toBeGreaterThan(10);
    expect(RefusedSocket.made).toBeLessThan(25);
    expect(new Set(links)).toEqual(new Set(['down']));
  });

  it('stops once the app answers under another secret (replaced), and a call fails at once in words', async () => {
    const links: Link[] = [];
    const client = socketClient(
      'ws://127.0.0.1:1/ui/x/ws',
      (l) => links.push(l),
      async () => 'replaced',
    );
    await vi.advanceTimersByTimeAsync(60_000);
    expect(RefusedSocket.made).toBe(1);
    expect(links).toEqual(['replaced']);
    await expect(client.call('status', {})).rejects.toThrow(/NAS Mirror was restarted/);
    expect(RefusedSocket.made).toBe(1);
  });
});
