/**
 * The composition root of the reference service: opens the store in a data folder, reconciles
 * its content files, starts the delete and upload-expiry jobs and a node:http server, writes `DIR/device.json`, and stops
 * cleanly (in-flight requests finish, new ones get 503, the database is closed).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from './http/app.js';
import { DeleteJobs } from './jobs/delete-jobs.js';
import { UploadExpiry } from './jobs/upload-expiry.js';
import { ContentStore } from './content/content-store.js';
import { realDisk, type ContentDisk } from './content/disk.js';
import { Uploads } from './content/uploads.js';
import { silentLogger, type Logger } from './log.js';
import { openServiceDb } from './store/schema.js';
import { Store } from './store/store.js';
import { withQuirks, type Quirk, type QuirkControl, type QuirkOptions } from './quirks/quirks.js';
import { lanSwitch, RELAY_DEVICE_ID, startRelay, type Relay } from './quirks/relay.js';

export interface ServiceOptions {
  dataDir: string;
  host?: string;
  port?: number;
  log?: Logger;
  onRequest?: (method: string, path: string) => void;
  /** Lifetime of access tokens issued by sign-in, in seconds (default 24 h). */
  tokenTtlSec?: number;
  /** Behave like a real device (`--quirks`, see quirks/quirks.ts). */
  quirks?: ReadonlySet<Quirk>;
  /** How long a folder deleted with 202 stays listed with `lingering-delete`; periodic outages with `bursts`; the delay of `latency`. */
  quirkOptions?: QuirkOptions;
  /** Where uploaded bytes are written (tests give a disk that fills up). */
  contentDisk?: ContentDisk;
  /** Unfinished uploads untouched this long are removed (default 24 h). */
  uploadTtlMs?: number;
}

export interface RunningService {
  baseUrl: string;
  host: string;
  port: number;
  store: Store;
  jobs: DeleteJobs;
  content: ContentStore;
  uploads: Uploads;
  server: Server;
  /** Controls of the active quirks (none without `quirks`). */
  quirks: QuirkControl | undefined;
  stop(): Promise<void>;
}

/** Opens the store (the caller may prepare it first) and starts listening. */
export async function startService(opts: ServiceOptions, existing?: Store): Promise<RunningService> {
  const log = opts.log ?? silentLogger;
  const store = existing ?? new Store(openServiceDb(opts.dataDir));
  const jobs = new DeleteJobs(store, log);
  const content = new ContentStore(store, log);
  content.recover();
  const uploads = new Uploads(store, content, opts.contentDisk ?? realDisk, log);
  const expiry = new UploadExpiry(uploads, log, opts.uploadTtlMs);
  let stopping = false;
  const plain = createApp({
    store,
    log,
    onAsyncDelete: () => jobs.kick(),
    onRequest: opts.onRequest,
    stopping: () => stopping,
    tokenTtlSec: opts.tokenTtlSec,
    content,
    uploads,
  });
  const quirky = opts.quirks && opts.quirks.size > 0 ? withQuirks(plain, store, opts.quirks, opts.quirkOptions) : undefined;
  const app = quirky?.handler ?? plain;
  // No limit on a whole request (an upload may take minutes); a connection idle for 60 s is closed instead.
  const server = createServer({ keepAliveTimeout: 5000, requestTimeout: 0, headersTimeout: 20_000 }, app);
  server.setTimeout(60_000);
  server.on('clientError', (_e, socket) => {
    if (socket.writable)
      socket.end(
        'HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n{"message":"Bad Request"}\r\n',
      );
    else socket.destroy();
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const baseUrl = `http://${urlHost}:${port}`;
  let control = quirky?.control;
  let relay: Relay | undefined;
  let flapTimer: NodeJS.Timeout | undefined;
  if (opts.quirks?.has('relay') || opts.quirks?.has('lan-flap')) {
    relay = await startRelay(app, host);
    control = { ...control!, relayUrl: relay.baseUrl };
    if (opts.quirks.has('lan-flap')) {
      const lan = lanSwitch(server, host, port);
      control = { ...control, lanDown: lan.down, lanUp: lan.up };
      if (opts.quirkOptions?.periodic) {
        flapTimer = setInterval(() => {
          void lan.down().then(() => setTimeout(() => void lan.up(), 30_000).unref());
        }, 180_000);
        flapTimer.unref();
      }
    }
  }
  writeDeviceRecord(opts.dataDir, baseUrl, relay?.baseUrl);
  jobs.kick();
  expiry.start();
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      stopping = true;
      expiry.stop();
      quirky?.stop();
      clearInterval(flapTimer);
      await relay?.close();
      const closed = new Promise<void>((res) => server.close(() => res()));
      // In-flight requests finish; a connection is closed as soon as it is idle.
      server.closeIdleConnections();
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      const timer = setTimeout(() => server.closeAllConnections(), 5000);
      await closed;
      clearInterval(idle);
      clearTimeout(timer);
      await jobs.stop();
      store.db.close();
    })();
    return stopped;
  };
  return { baseUrl, host, port, store, jobs, content, uploads, server, quirks: control, stop };
}

/** Writes the device information record the client reads its base URL from. */
export function writeDeviceRecord(dataDir: string, baseUrl: string, proxyUrl = baseUrl): void {
  const record = {
    id: RELAY_DEVICE_ID,
    name: 'NAS Mirror reference service',
    network: { internalDNSName: baseUrl, proxyURL: proxyUrl },
  };
  const tmp = join(dataDir, `device.json.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(record, null, 2) + '\n');
  renameSync(tmp, join(dataDir, 'device.json'));
}
