/**
 * Browser mode: serves the window's files and the contract (WebSocket, and plain HTTP POST
 * for scripts) on 127.0.0.1 only. Every path sits under `/ui/<secret>/`, the secret being
 * 32 random bytes per run, so another local user or a web page cannot drive the engine; the
 * Host header must name the loopback address (no DNS rebinding) and a WebSocket's Origin must
 * be this server. Calls go through the same `serve` as Electron IPC: checked the same way.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { checkCallFrame, serve, wireError } from '../../app/contract/envelope.js';
import type { ContractHandlers, EventName } from '../../app/contract/methods.js';
import type { Logger } from '../log/logger.js';
import { ASSET_FILES, loadAssets, type AssetName } from './assets.js';

/** Where the engine's events come from (main/api's EventHub, or the engine process's client). */
export interface EventSource {
  subscribe(listener: (event: EventName, payload: unknown) => void): () => void;
}

export interface UiServerOptions {
  handlers: ContractHandlers;
  events: EventSource;
  /** Folder holding index.html, app.js, style.css. */
  assetsDir: string;
  port?: number;
  log: Logger;
  /** Fixed secret (tests); random otherwise. */
  secret?: string;
}

export interface UiServer {
  /** The URL to open, secret included. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY = 1 << 20;
const HOST = '127.0.0.1';

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a),
    y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export async function startUiServer(opts: UiServerOptions): Promise<UiServer> {
  const secret = opts.secret ?? randomBytes(32).toString('base64url');
  const assets = loadAssets(opts.assetsDir);
  const log = opts.log;
  let port = 0;
  const allowedHosts = (): string[] => [`${HOST}:${port}`, `localhost:${port}`];
  const origin = (): string[] => [`http://${HOST}:${port}`, `http://localhost:${port}`];

  /** The route below `/ui/<secret>/`, or null when the request is not ours. */
  const route = (req: IncomingMessage): string | null => {
    if (!allowedHosts().includes(req.headers.host ?? '')) return null;
    const path = (req.url ?? '').split('?')[0] ?? '';
    const m = /^\/ui\/([A-Za-z0-9_-]{16,128})\/(.*)$/.exec(path);
    if (!m || !sameSecret(m[1]!, secret)) return null;
    return m[2]!;
  };

  const headers = (type: string): Record<string, string> => ({
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws://${HOST}:${port} ws://localhost:${port}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  });

  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer): void => {
    res.writeHead(status, headers(type));
    res.end(body);
  };

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let n = 0;
      req.on('data', (c: Buffer) => {
        n += c.length;
        if (n > MAX_BODY) {
          reject(new Error('body too large'));
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const server = createServer((req, res) => {
    const r = route(req);
    if (r === null) return send(res, 404, 'text/plain; charset=utf-8', 'Not Found');
    if (req.method === 'GET' && (r === '' || r in ASSET_FILES)) {
      const name: AssetName = r === '' ? 'index.html' : (r as AssetName);
      return send(res, 200, ASSET_FILES[name], assets.get(name)!);
    }
    const api = /^api\/([A-Za-z]{1,40})$/.exec(r);
    if (req.method === 'POST' && api) {
      if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
        return send(res, 415, 'application/json', JSON.stringify({ code: 'BadRequest', message: 'send application/json' }));
      readBody(req)
        .then(async (text) => {
          let args: unknown;
          try {
            args = text === '' ? {} : JSON.parse(text);
          } catch {
            return send(res, 400, 'application/json', JSON.stringify({ ok: false, error: { code: 'BadRequest', message: 'bad JSON' } }));
          }
          const reply = await serve(opts.handlers, api[1], args);
          send(res, reply.ok ? 200 : reply.error.code === 'BadRequest' ? 400 : 500, 'application/json', JSON.stringify(reply));
        })
        .catch((e: unknown) => send(res, 400, 'application/json', JSON.stringify({ ok: false, error: wireError(e) })));
      return;
    }
    send(res, 404, 'text/plain; charset=utf-8', 'Not Found');
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY });
  const sockets = new Set<WebSocket>();
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    if (route(req) !== 'ws' || !origin().includes(req.headers.origin ?? '')) {
      socket.write('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (data, isBinary) => {
        if (isBinary) return ws.close(1003, 'text frames only');
        let frame;
        try {
          frame = checkCallFrame(JSON.parse(data.toString()));
        } catch (e) {
          ws.send(JSON.stringify({ type: 'reply', id: -1, ok: false, error: wireError(e) }));
          return;
        }
        const id = frame.id;
        void serve(opts.handlers, frame.method, frame.args).then((reply) => {
          if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'reply', id, ...reply }));
        });
      });
    });
  });

  const unsubscribe = opts.events.subscribe((event, payload) => {
    const text = JSON.stringify({ type: 'event', event, payload });
    for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(text);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, HOST, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://${HOST}:${port}/ui/${secret}/`;
  log.info('ui server listening', { port });

  return {
    url,
    port,
    async close() {
      unsubscribe();
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
