/**
 * Issue 11 point 8: a NAS that stops answering shows "offline" within ~2 s of the first
 * failed request, not after the client's retries (with the client's real retry policy:
 * 5 retries, backoff from 200 ms, i.e. at least 3 s before a request gives up). The real
 * service is stopped (its port closed); times are measured on events, never slept.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from '../../../server/testing.js';
import { ServiceClient } from '../../../main/client/service-client.js';
import { Engine } from '../../../main/engine/engine.js';
import { silentLogger } from '../../../main/log/logger.js';
import { waitFor } from './harness.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function setup(): Promise<{ svc: TestService; client: ServiceClient; engine: Engine; mirror: string }> {
  const svc = await startTestService();
  for (let i = 0; i < 3; i++) svc.admin.createFile(svc.admin.rootId(), `f${i}.txt`);
  const base = mkdtempSync(join(tmpdir(), 'nas-offline-'));
  const mirror = join(base, 'mirror');
  // The production retry policy (the client's defaults), not the harness's shortened one.
  const client = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token() });
  const engine = new Engine({
    stateDir: join(base, 'state'),
    mirrorDir: mirror,
    client,
    log: silentLogger,
    holdMs: 300,
    rewalkMs: 0,
    rescanMs: 0,
    requestPollMs: 100,
  });
  let svcStopped = false;
  cleanup = async () => {
    await engine.stop();
    client.close();
    if (!svcStopped) await svc.stop();
    rmSync(base, { recursive: true, force: true });
  };
  await engine.start();
  const stopSvc = svc.stop.bind(svc);
  svc.stop = async (o) => {
    svcStopped = true;
    await stopSvc(o);
  };
  return { svc, client, engine, mirror };
}

/** Watches for the first failed attempt and the first "offline" status after it. */
function stopwatch(client: ServiceClient, engine: Engine): { failedAt: () => number; offlineAt: () => number } {
  let failedAt = 0;
  let offlineAt = 0;
  client.observe((a) => {
    if (a.error && failedAt === 0) failedAt = Date.now();
  });
  engine.events.on('status', (s) => {
    if (s.state === 'offline' && offlineAt === 0) offlineAt = Date.now();
  });
  return { failedAt: () => failedAt, offlineAt: () => offlineAt };
}

describe('a NAS that stops answering', () => {
  it('a local rename meeting a closed port: offline within 2 s of the first failed request, the change waiting', async () => {
    const { svc, client, engine, mirror } = await setup();
    await waitFor(() => engine.status().state === 'synced', 'synced');
    const sw = stopwatch(client, engine);
    await svc.stop();
    renameSync(join(mirror, 'f0.txt'), join(mirror, 'g0.txt'));
    await waitFor(() => sw.failedAt() > 0, 'a failed request');
    await waitFor(() => engine.status().state === 'offline', 'offline', 10_000);
    expect(sw.offlineAt() - sw.failedAt()).toBeLessThan(2000);
    const s = engine.status();
    expect(s.outbox.pending).toBe(1);
    expect(s.error?.code).toBe('NetworkError');
  });

  it('a walk meeting a closed port: offline within 2 s of the first failed request, while the walk still retries', async () => {
    const { svc, client, engine } = await setup();
    const sw = stopwatch(client, engine);
    await svc.stop();
    const walk = engine.walkOnce();
    await waitFor(() => sw.failedAt() > 0, 'a failed request');
    await waitFor(() => engine.status().state === 'offline', 'offline', 10_000);
    expect(sw.offlineAt() - sw.failedAt()).toBeLessThan(2000);
    expect(engine.status().walk.running).toBe(true); // said while the client still retries
    expect(await walk).toBe(false);
    expect(engine.status().state).toBe('offline');
  });
});
