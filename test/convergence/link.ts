/**
 * The engine's only way to the NAS: an HTTP proxy of the test's own in front of the
 * reference service. It records every write the engine sends (method, object, body, the
 * service's answer), so "each change applied exactly once" is counted per object; it can
 * refuse connections (the NAS unplugged: `down()`, `up()` on the same port) and follows the
 * service to a new port when the service is restarted (`retarget`). Requests the test makes
 * as "another user" go to the service directly and are never seen here.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface WriteRecord {
  /** Index in the log (0-based). */
  n: number;
  at: number;
  method: string;
  kind: 'patch' | 'delete';
  id: string;
  /** The patch's body (name and parentID as sent), or undefined for a delete. */
  body: { name?: string; parentID?: string } | undefined;
  /** The service's status; 0 when the service was not reachable (the request never reached it). */
  status: number;
}

const WRITE = /\/v2\/files\/([^/]+?)(\/patch)?$/;

export class NasLink {
  readonly writes: WriteRecord[] = [];
  /** Requests of any kind forwarded (reads included). */
  forwarded = 0;
  private server: http.Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  private port = 0;

  private constructor(private target: URL) {}

  static async start(targetBaseUrl: string): Promise<NasLink> {
    const link = new NasLink(new URL(targetBaseUrl));
    await link.up();
    return link;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get isUp(): boolean {
    return this.server !== undefined;
  }

  /** The service moved (restarted on another port). */
  retarget(baseUrl: string): void {
    this.target = new URL(baseUrl);
    this.agent.destroy();
  }

  /** Listens (again, on the same port once it has one). */
  async up(): Promise<void> {
    if (this.server) return;
    const server = http.createServer((req, res) => this.handle(req, res));
    server.keepAliveTimeout = 5000;
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    for (let attempt = 0; ; attempt++) {
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(this.port, '127.0.0.1', () => {
            server.off('error', reject);
            resolve();
          });
        });
        break;
      } catch (e) {
        // the port was just released by our own close: the kernel may need a moment
        if (attempt >= 50 || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** The NAS disappears from the network: connections are refused, open ones are cut. */
  async down(): Promise<void> {
    const s = this.server;
    if (!s) return;
    this.server = undefined;
    const closed = new Promise<void>((r) => s.close(() => r()));
    for (const sock of this.sockets) sock.destroy();
    this.sockets.clear();
    await closed;
  }

  async close(): Promise<void> {
    await this.down();
    this.agent.destroy();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => undefined);
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const m = WRITE.exec(path);
      const method = req.method ?? 'GET';
      let rec: WriteRecord | undefined;
      if (m && (method === 'DELETE' || (method === 'POST' && m[2]) || (method === 'PATCH' && !m[2]))) {
        let parsed: { name?: string; parentID?: string } | undefined;
        if (method !== 'DELETE') {
          try {
            const v = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
            parsed = {};
            if (typeof v['name'] === 'string') parsed.name = v['name'];
            if (typeof v['parentID'] === 'string') parsed.parentID = v['parentID'];
          } catch {
            parsed = {};
          }
        }
        rec = {
          n: this.writes.length,
          at: Date.now(),
          method,
          kind: method === 'DELETE' ? 'delete' : 'patch',
          id: decodeURIComponent(m[1]!),
          body: parsed,
          status: 0,
        };
        this.writes.push(rec);
      }
      this.forwarded++;
      const t = this.target;
      const headers: http.OutgoingHttpHeaders = { ...req.headers, host: t.host };
      const out = http.request({ host: t.hostname, port: t.port, method, path: req.url, headers, agent: this.agent }, (up) => {
        if (rec) rec.status = up.statusCode ?? 0;
        const h: http.OutgoingHttpHeaders = {};
        for (const [k, v] of Object.entries(up.headers))
          if (v !== undefined && !['connection', 'keep-alive', 'transfer-encoding'].includes(k)) h[k] = v;
        res.writeHead(up.statusCode ?? 502, h);
        up.pipe(res);
        up.on('error', () => res.destroy());
      });
      // the service is down (restarting): to the engine, the NAS does not answer
      out.on('error', () => {
        req.socket.destroy();
      });
      out.end(body);
    });
  }
}
