import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { METHOD_NAMES, type ContractHandlers } from '../../app/contract/methods.js';
import { EventHub } from '../api/event-hub.js';
import { silentLogger } from '../log/logger.js';
import { ensureRenderer } from './assets.js';
import { startUiServer, type UiServer } from './ui-server.js';

// A recording handler set: this tests the transport's checks, not the engine.
const calls: string[] = [];
const handlers = Object.fromEntries(
  METHOD_NAMES.map((m) => [
    m,
    async () => {
      calls.push(m);
      return m === 'suggest' ? { words: ['holiday'] } : {};
    },
  ]),
) as unknown as ContractHandlers;
const hub = new EventHub();
let ui: UiServer;

beforeAll(async () => {
  ui = await startUiServer({ handlers, events: hub, assetsDir: await ensureRenderer(), log: silentLogger });
}, 60_000);
afterAll(async () => {
  await ui.close();
});

function raw(
  path: string,
  opts: { method?: string; host?: string; body?: string; type?: string } = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: ui.port,
        path,
        method: opts.method ?? 'GET',
        headers: {
          host: opts.host ?? `127.0.0.1:${ui.port}`,
          ...(opts.body !== undefined ? { 'content-type': opts.type ?? 'application/json' } : {}),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const base = (): string => new URL(ui.url).pathname;

describe('browser-mode UI server', () => {
  it('listens on 127.0.0.1 only and serves the window under the secret path, with a strict CSP', async () => {
    expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/[A-Za-z0-9_-]{43}\/$/);
    const page = await raw(base());
    expect(page.status).toBe(200);
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    expect((await raw(`${base()}app.js`)).status).toBe(200);
  });

  it('refuses a wrong or missing secret, a foreign Host header, and unknown files', async () => {
    expect((await raw('/')).status).toBe(404);
    expect((await raw('/ui/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/')).status).toBe(404);
    expect((await raw(base(), { host: 'evil.example:80' })).status).toBe(404);
    expect((await raw(`${base()}../../etc/passwd`)).status).toBe(404);
    expect((await raw(`${base()}index.ts`)).status).toBe(404);
  });

  it('checks every HTTP call like IPC: unknown methods and bad arguments never reach a handler', async () => {
    calls.length = 0;
    const bad = [
      ['api/nope', '{}'],
      ['api/search', '{"q":""}'],
      ['api/search', '{"q":1}'],
      ['api/resolveHeld', '{"ids":["a"],"action":"nuke"}'],
      ['api/setToken', '{"token":"a b"}'],
      ['api/search', 'not json'],
      ['api/__proto__', '{}'],
    ] as const;
    for (const [path, body] of bad) {
      const r = await raw(`${base()}${path}`, { method: 'POST', body });
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(r.body.startsWith('{') ? JSON.parse(r.body).ok : false, path).toBe(false);
    }
    expect((await raw(`${base()}api/status`, { method: 'POST', body: '{}', type: 'text/plain' })).status).toBe(415);
    expect(calls).toEqual([]);
    const ok = await raw(`${base()}api/suggest`, { method: 'POST', body: '{"prefix":"ho"}' });
    expect(JSON.parse(ok.body)).toEqual({ ok: true, result: { words: ['holiday'] } });
    expect(calls).toEqual(['suggest']);
  });

  it('accepts a WebSocket only from its own origin, checks its calls, and pushes events', async () => {
    const wsUrl = ui.url.replace('http:', 'ws:') + 'ws';
    const refused = await new Promise<boolean>((resolve) => {
      const ws = new WebSocket(wsUrl, { origin: 'http://evil.example' });
      ws.on('open', () => {
        ws.close();
        resolve(false);
      });
      ws.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);
    const ws = new WebSocket(wsUrl, { origin: `http://127.0.0.1:${ui.port}` });
    await new Promise((r) => ws.once('open', r));
    const frames: Record<string, unknown>[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString()) as Record<string, unknown>));
    calls.length = 0;
    ws.send(JSON.stringify({ type: 'call', id: 1, method: 'resolveConflicts', args: { ids: 'x', action: 'drop' } }));
    ws.send(JSON.stringify({ type: 'call', id: 2, method: 'suggest', args: { prefix: 'ho' } }));
    ws.send('{"type":"call","id":-5}');
    hub.emit('changed', { what: 'activity' });
    // three replies and the event: wait for them (a deadline only guards against a hang)
    await vi.waitFor(() => expect(frames.length).toBeGreaterThanOrEqual(4), { timeout: 10_000, interval: 20 });
    ws.close();
    expect(frames).toContainEqual({
      type: 'reply',
      id: 1,
      ok: false,
      error: { code: 'BadRequest', message: 'args.ids: expected an array' },
    });
    expect(frames).toContainEqual({ type: 'reply', id: 2, ok: true, result: { words: ['holiday'] } });
    expect(frames).toContainEqual({ type: 'event', event: 'changed', payload: { what: 'activity' } });
    expect(frames.some((f) => f['id'] === -1 && f['ok'] === false)).toBe(true);
    expect(calls).toEqual(['suggest']);
  });
});
