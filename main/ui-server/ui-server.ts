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
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
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

/** What the server's handlers share: the contract, the secret, the window's files and the port once listening. */
interface UiContext {
  handlers: ContractHandlers;
  secret: string;
  assets: Map<AssetName, Buffer>;
  /** 0 until the server listens. */
  port: number;
}

export async function startUiServer(opts: UiServerOptions): Promise<UiServer> {
  const ctx: UiContext = {
    handlers: opts.handlers,
    secret: opts.secret ?? randomBytes(32).toString('base64url'),
    assets: loadAssets(opts.assetsDir),
    port: 0,
  };
  const log = opts.log;
  const server = createServer((req, res) => serveHttp(ctx, req, res));
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY });
  const sockets = new Set<WebSocket>();
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    if (route(ctx, req) !== 'ws' || !origins(ctx.port).includes(req.headers.origin ?? '')) {
      socket.write('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (data, isBinary) => answerFrame(ctx.handlers, ws, data, isBinary));
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
  const port = (ctx.port = (server.address() as AddressInfo).port);
  const url = `http://${HOST}:${port}/ui/${ctx.secret}/`;
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

/** The Host headers a request may name: the loopback address at our port. */
const allowedHosts = (port: number): string[] => [`${HOST}:${port}`, `localhost:${port}`];
/** The Origins a WebSocket may come from: this server. */
const origins = (port: number): string[] => [`http://${HOST}:${port}`, `http://localhost:${port}`];

/** The route below `/ui/<secret>/`, or null when the request is not ours. */
function route(ctx: UiContext, req: IncomingMessage): string | null {
  if (!allowedHosts(ctx.port).includes(req.headers.host ?? '')) return null;
  const path = (req.url ?? '').split('?')[0] ?? '';
  const m = /^\/ui\/([A-Za-z0-9_-]{16,128})\/(.*)$/.exec(path);
  if (!m || !sameSecret(m[1]!, ctx.secret)) return null;
  return m[2]!;
}

/** The headers of every answer: no caching, no framing, nothing loaded from elsewhere. */
function headers(type: string, port: number): Record<string, string> {
  return {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'content-security-policy':
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; ` +
      `connect-src 'self' ws://${HOST}:${port} ws://localhost:${port}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  };
}

/** Sends a whole answer. */
function send(ctx: UiContext, res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, headers(type, ctx.port));
  res.end(body);
}

/** Reads a request's body, refused past MAX_BODY. */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
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
}

/** An HTTP request: the window's files (GET), a contract call (POST `api/<method>`), else 404. */
function serveHttp(ctx: UiContext, req: IncomingMessage, res: ServerResponse): void {
  const r = route(ctx, req);
  if (r === null) return send(ctx, res, 404, 'text/plain; charset=utf-8', 'Not Found');
  if (req.method === 'GET' && (r === '' || r in ASSET_FILES)) {
    const name: AssetName = r === '' ? 'index.html' : (r as AssetName);
    return send(ctx, res, 200, ASSET_FILES[name], ctx.assets.get(name)!);
  }
  const api = /^api\/([A-Za-z]{1,40})$/.exec(r);
  if (req.method === 'POST' && api) {
    if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
      return send(ctx, res, 415, 'application/json', JSON.stringify({ code: 'BadRequest', message: 'send application/json' }));
    answerPost(ctx, req, res, api[1]!);
    return;
  }
  send(ctx, res, 404, 'text/plain; charset=utf-8', 'Not Found');
}

/** A contract call over plain HTTP POST: its JSON body is the arguments, the reply the answer (400 or 500 for an error). */
function answerPost(ctx: UiContext, req: IncomingMessage, res: ServerResponse, method: string): void {
  readBody(req)
    .then(async (text) => {
      let args: unknown;
      try {
        args = text === '' ? {} : JSON.parse(text);
      } catch {
        return send(ctx, res, 400, 'application/json', JSON.stringify({ ok: false, error: { code: 'BadRequest', message: 'bad JSON' } }));
      }
      const reply = await serve(ctx.handlers, method, args);
      send(ctx, res, reply.ok ? 200 : reply.error.code === 'BadRequest' ? 400 : 500, 'application/json', JSON.stringify(reply));
    })
    .catch((e: unknown) => send(ctx, res, 400, 'application/json', JSON.stringify({ ok: false, error: wireError(e) })));
}

/** A call frame on a WebSocket: checked, served, its reply sent back while the socket is open. */
function answerFrame(handlers: ContractHandlers, ws: WebSocket, data: RawData, isBinary: boolean): void {
  if (isBinary) return ws.close(1003, 'text frames only');
  let frame;
  try {
    frame = checkCallFrame(JSON.parse(data.toString()));
  } catch (e) {
    ws.send(JSON.stringify({ type: 'reply', id: -1, ok: false, error: wireError(e) }));
    return;
  }
  const id = frame.id;
  void serve(handlers, frame.method, frame.args).then((reply) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'reply', id, ...reply }));
  });
}
