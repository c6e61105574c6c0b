/**
 * The local-folder rig (test/integration/local/harness.ts) with the mirror folder on a real
 * disk: the REAL service on 127.0.0.1, the real engine and its watcher, the state folder in a
 * temp dir and the mirror folder at a path the test chooses (on a loop-mounted file
 * system, test/support/loop-fs.ts). Engines can be made without starting them, so a test
 * can watch the status from the first instant of a start.
 */
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from '../../server/testing.js';
import { ServiceClient } from '../../main/client/service-client.js';
import { Engine, type EngineOptions } from '../../main/engine/engine.js';
import { createLogger, silentLogger, type Logger } from '../../main/log/logger.js';
import { FOLDER_MIME } from '../../app/model/remote-object.js';

export { waitFor } from '../integration/local/harness.js';

export interface DiskRig {
  svc: TestService;
  client: ServiceClient;
  engine: Engine;
  mirror: string;
  state: string;
  /** Requests at the service with this method (path containing `pathPrefix`) since `mark()`. */
  count(method: string, pathPrefix?: string): number;
  /** The changes sent since `mark()`: `PATCH <id>` (a POST to /files/<id>/patch) and `DELETE <id>`, in order. */
  sent(): string[];
  mark(): void;
  /** A new engine on the same state and mirror folders, not started. */
  newEngine(opts?: Partial<EngineOptions>): Engine;
  /** Stops the engine (stopping twice is harmless), makes a new one and starts it. */
  restart(opts?: Partial<EngineOptions>): Promise<void>;
  /** The NAS tree (admin's view through the API): relative path -> 'dir' | 'file'. */
  nasTree(): Promise<Map<string, 'dir' | 'file'>>;
  /** The mirror folder as the disk shows it, `.nas-mirror` left out. */
  diskTree(): Map<string, 'dir' | 'file'>;
  close(): Promise<void>;
}

const logger = (): Logger => (process.env['LOCAL_TEST_LOG'] ? createLogger('engine') : silentLogger);

/** The same timings as the local harness: short hold, no timed re-walks or checks. */
const BASE_OPTS: Partial<EngineOptions> = {
  holdMs: 300,
  rewalkMs: 0,
  rescanMs: 0,
  requestPollMs: 100,
  threshold: { count: 50, percent: 100 },
};

export async function startDiskRig(
  mirror: string,
  seed: (svc: TestService, root: string) => void,
  opts: Partial<EngineOptions> = {},
): Promise<DiskRig> {
  const svc = await startTestService();
  seed(svc, svc.admin.rootId());
  const state = mkdtempSync(join(tmpdir(), 'nas-disk-state-'));
  const client = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token(), retries: 1, backoffBaseMs: 20, timeoutMs: 5000 });
  let markAt = 0;
  const newEngine = (o: Partial<EngineOptions> = {}): Engine =>
    new Engine({ stateDir: state, mirrorDir: mirror, client, log: logger(), ...BASE_OPTS, ...opts, ...o });
  const since = (): readonly { method: string; path: string }[] => svc.requests().slice(markAt);
  const rig: DiskRig = {
    svc,
    client,
    mirror,
    state,
    engine: newEngine(),
    count: (method, prefix = '') => since().filter((r) => r.method === method && r.path.includes(prefix)).length,
    sent: () =>
      since().flatMap((r) => {
        const m = /\/files\/([^/]+)(\/patch)?$/.exec(r.path);
        if (!m) return [];
        if (r.method === 'POST' && m[2]) return [`PATCH ${decodeURIComponent(m[1]!)}`];
        if (r.method === 'DELETE' && !m[2]) return [`DELETE ${decodeURIComponent(m[1]!)}`];
        return [];
      }),
    mark: () => {
      markAt = svc.requests().length;
    },
    newEngine,
    restart: async (o = {}) => {
      await rig.engine.stop();
      rig.engine = newEngine(o);
      await rig.engine.start();
    },
    nasTree: async () => {
      const out = new Map<string, 'dir' | 'file'>();
      const walk = async (id: string, prefix: string): Promise<void> => {
        for await (const p of client.pages(id)) {
          for (const o of p.files) {
            const path = prefix + o.name;
            const dir = o.mimeType === FOLDER_MIME;
            out.set(path, dir ? 'dir' : 'file');
            if (dir) await walk(o.id, `${path}/`);
          }
        }
      };
      await walk(svc.admin.rootId(), '');
      return out;
    },
    diskTree: () => {
      const out = new Map<string, 'dir' | 'file'>();
      const walk = (dir: string, prefix: string): void => {
        for (const n of readdirSync(dir)) {
          if (prefix === '' && n === '.nas-mirror') continue;
          const dirEntry = lstatSync(join(dir, n)).isDirectory();
          out.set(prefix + n, dirEntry ? 'dir' : 'file');
          if (dirEntry) walk(join(dir, n), `${prefix}${n}/`);
        }
      };
      walk(mirror, '');
      return out;
    },
    close: async () => {
      await rig.engine.stop();
      client.close();
      await svc.stop();
      rmSync(state, { recursive: true, force: true });
    },
  };
  await rig.engine.start();
  return rig;
}

/** A tree as sorted `path (kind)` lines, for readable diffs. */
export function lines(t: Map<string, 'dir' | 'file'>): string[] {
  return [...t].map(([p, k]) => `${p}${k === 'dir' ? '/' : ''}`).sort();
}
