/**
 * An engine wired like the app: the REAL service, a real mirror folder and state db, and the
 * offline index sharing the engine's store (so Organize plans from what the engine mirrors).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceClient } from '../../../main/client/service-client.js';
import { Engine } from '../../../main/engine/engine.js';
import type { OfflineIndex } from '../../../main/index/offline-index.js';
import { openOfflineIndex } from '../../../main/index/open-index.js';
import { silentLogger } from '../../../main/log/logger.js';
import { ChangeApplier } from '../../../main/mirror/apply.js';
import { MirrorStore } from '../../../main/mirror/store.js';
import { openStateDb } from '../../../main/state/db.js';
import { startTestService, type TestService } from '../../../server/testing.js';

export interface OrganizeRig {
  svc: TestService;
  engine: Engine;
  index: OfflineIndex;
  mirror: string;
  state: string;
  close(): Promise<void>;
}

export async function startOrganizeRig(seed: (svc: TestService, root: string) => void): Promise<OrganizeRig> {
  const svc = await startTestService();
  seed(svc, svc.admin.rootId());
  const base = mkdtempSync(join(tmpdir(), 'nas-organize-'));
  const mirror = join(base, 'mirror');
  const state = join(base, 'state');
  const db = openStateDb(state);
  const store = new MirrorStore(db);
  const { index } = await openOfflineIndex(store, state);
  const applier = new ChangeApplier(store);
  applier.onChanges((c) => index.applyChanges(c));
  const client = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token(), retries: 1, backoffBaseMs: 20, timeoutMs: 5000 });
  const engine = new Engine({
    stateDir: state,
    mirrorDir: mirror,
    client,
    log: silentLogger,
    db,
    store,
    applier,
    holdMs: 300,
    rewalkMs: 0,
    rescanMs: 0,
    requestPollMs: 100,
    threshold: { count: 50, percent: 100 },
  });
  await engine.start();
  return {
    svc,
    engine,
    index,
    mirror,
    state,
    close: async () => {
      await engine.stop();
      db.close();
      client.close();
      await svc.stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
}
