/**
 * The `relay` and `lan-flap` quirks: a second address for the same service, like a
 * vendor's relay whose base URL carries a path (`http://127.0.0.1:P/relay/<deviceId>`,
 * written as `proxyURL` in device.json), and a LAN address that can die and come back on
 * the same port (`lanDown()`/`lanUp()`, or from the command line every few minutes).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Handler } from '../http/app.js';

export const RELAY_DEVICE_ID = 'nas-mirror-reference-service';

export interface Relay {
  /** The relay's base URL (with its path). */
  baseUrl: string;
  close(): Promise<void>;
}

/** Serves `handler` under `/relay/<deviceId>` on another port of `host`. */
export async function startRelay(handler: Handler, host: string): Promise<Relay> {
  const prefix = `/relay/${RELAY_DEVICE_ID}`;
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url !== prefix && !url.startsWith(prefix + '/') && !url.startsWith(prefix + '?')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('unknown device');
      return;
    }
    req.url = url.slice(prefix.length) || '/';
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const h = host.includes(':') ? `[${host}]` : host;
  return {
    baseUrl: `http://${h}:${port}${prefix}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Takes the LAN listener down (connections refused) and brings it back on the same port. */
export function lanSwitch(server: Server, host: string, port: number): { down(): Promise<void>; up(): Promise<void>; isUp(): boolean } {
  let up = true;
  return {
    isUp: () => up,
    down: async () => {
      if (!up) return;
      up = false;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    up: async () => {
      if (up) return;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      up = true;
    },
  };
}
