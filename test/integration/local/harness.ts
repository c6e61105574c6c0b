/**
 * Test harness for the local folder: the REAL service on 127.0.0.1 (server/testing.ts),
 * a real temp mirror folder watched by the real watcher (fs.watch), and the engine. `waitFor` polls
 * a condition with a generous timeout: no fixed sleeps as assertions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from '../../../server/testing.js';
import { ServiceClient } from '../../../main/client/service-client.js';
import type { Transport } from '../../../main/client/transport.js';
import { Engine, type EngineOptions } from '../../../main/engine/engine.js';
import { createLogger, silentLogger, type Logger } from '../../../main/log/logger.js';
import type { RemoteObject } from '../../../app/model/remote-object.js';
import { waitFor } from '../../support/wait.js';

export interface Rig {
  svc: TestService;
  client: ServiceClient;
  engine: Engine;
  mirror: string;
  state: string;
  /** The NAS (admin view): children of a folder by name. */
  nasChildren(parentId: string): Promise<Map<string, RemoteObject>>;
  /** Requests at the service with this method since `mark()`. */
  count(method: string, pathPrefix?: string): number;
  mark(): void;
  restart(opts?: Partial<EngineOptions>): Promise<void>;
  close(): Promise<void>;
}

export { waitFor };

/** The NAS's content of file `id`, read from the service itself (not through the engine). */
export async function nasContent(svc: Pick<TestService, 'baseUrl' | 'token'>, id: string): Promise<Buffer> {
  const res = await fetch(`${svc.baseUrl}/sdk/v2/files/${encodeURIComponent(id)}/content`, {
    headers: { authorization: `Bearer ${svc.token()}` },
  });
  if (res.status !== 200) throw new Error(`the content of ${id}: HTTP ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

const logger = (): Logger => (process.env['LOCAL_TEST_LOG'] ? createLogger('engine') : silentLogger);

/** Starts a service, lets `seed` build the NAS tree, then an engine that mirrors it. */
export async function startRig(
  seed: (svc: TestService, root: string) => void,
  opts: Partial<EngineOptions> = {},
  svcIn?: TestService,
  transport?: Transport,
): Promise<Rig> {
  const svc = svcIn ?? (await startTestService());
  seed(svc, svc.admin.rootId());
  const base = mkdtempSync(join(tmpdir(), 'nas-local-'));
  const mirror = join(base, 'mirror');
  const state = join(base, 'state');
  const client = new ServiceClient({
    baseUrl: svc.baseUrl,
    token: svc.token(),
    retries: 1,
    backoffBaseMs: 20,
    timeoutMs: 5000,
    ...(transport ? { transport } : {}),
  });
  let markAt = 0;
  const mk = (o: Partial<EngineOptions>): Engine =>
    new Engine({
      stateDir: state,
      mirrorDir: mirror,
      client,
      log: logger(),
      holdMs: 300,
      rewalkMs: 0,
      rescanMs: 0,
      requestPollMs: 100,
      threshold: { count: 50, percent: 100 },
      ...opts,
      ...o,
    });
  const rig: Rig = {
    svc,
    client,
    mirror,
    state,
    engine: mk({}),
    nasChildren: async (parentId) => {
      const out = new Map<string, RemoteObject>();
      for await (const p of client.pages(parentId)) for (const o of p.files) out.set(o.name, o);
      return out;
    },
    count: (method, prefix = '') =>
      svc
        .requests()
        .slice(markAt)
        .filter((r) => r.method === method && r.path.includes(prefix)).length,
    mark: () => {
      markAt = svc.requests().length;
    },
    restart: async (o = {}) => {
      await rig.engine.stop();
      rig.engine = mk(o);
      await rig.engine.start();
    },
    close: async () => {
      await rig.engine.stop();
      client.close();
      if (!svcIn) await svc.stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
  await rig.engine.start();
  return rig;
}
