/**
 * Issue 25 point 3: a NAS that hangs (its process stopped with SIGSTOP: the kernel still
 * accepts connections, nothing answers) is said as "not answering" within the request
 * timeout, in the same words in the badge, the tray, the header and the state db that
 * `nas-mirror status` reads; the change waits and goes once the NAS answers again (SIGCONT).
 * The real service runs in its own process, so it can really be stopped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServiceProcess, type ServiceProcess } from '../../../server/testing.js';
import { ServiceClient } from '../../../main/client/service-client.js';
import { Engine } from '../../../main/engine/engine.js';
import { engineAppStatus } from '../../../main/api/handlers.js';
import { silentLogger } from '../../../main/log/logger.js';
import { connectionWord, trayView } from '../../../app/tray/tray-state.js';
import { statusWords } from '../../../renderer/status-words.js';
import { waitFor } from './harness.js';

const TIMEOUT_MS = 1500;
const cli = (args: string[]) => spawnSync(process.execPath, ['bin/nas-service.js', ...args], { encoding: 'utf8' });

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function setup(): Promise<{ proc: ServiceProcess; engine: Engine; mirror: string; state: string }> {
  const base = mkdtempSync(join(tmpdir(), 'nas-hung-'));
  const data = join(base, 'nas');
  expect(cli(['demo', '--data', data, '--objects', '20', '--seed', '3']).status).toBe(0);
  const token = cli(['token', 'demo', '--scope', 'nas_read_write', '--data', data]).stdout.trim();
  const proc = await spawnServiceProcess(data);
  const mirror = join(base, 'mirror');
  // the production retry policy, with a short request timeout (the app's is 30 s)
  const client = new ServiceClient({ baseUrl: proc.baseUrl, token, timeoutMs: TIMEOUT_MS });
  const state = join(base, 'state');
  const engine = new Engine({
    stateDir: state,
    mirrorDir: mirror,
    client,
    log: silentLogger,
    holdMs: 300,
    rewalkMs: 0,
    rescanMs: 0,
    requestPollMs: 100,
  });
  cleanup = async () => {
    proc.child.kill('SIGCONT');
    await engine.stop();
    client.close();
    await proc.stop();
    rmSync(base, { recursive: true, force: true });
  };
  await engine.start();
  return { proc, engine, mirror, state };
}

describe('a NAS that hangs (SIGSTOP)', () => {
  it('is "not answering" within the request timeout, in one word everywhere; the change goes after SIGCONT', async () => {
    const { proc, engine, mirror, state } = await setup();
    await waitFor(() => engine.status().state === 'synced', 'synced', 30_000);
    const first = engine.core.store.children(engine.core.store.root()!.id)[0]!;
    proc.child.kill('SIGSTOP');
    const hungAt = Date.now();
    renameSync(join(mirror, first.name), join(mirror, `renamed ${first.name}`));
    await waitFor(() => engine.status().state === 'offline', 'offline', 10_000);
    // the first attempt's timeout says it, not the end of the client's retries
    expect(Date.now() - hungAt).toBeLessThan(TIMEOUT_MS + 2000);
    const e = engine.status();
    expect(e.error?.code).toBe('Timeout');
    expect(e.error?.message).toMatch(/not answering/);
    expect(e.outbox.pending).toBe(1);
    // the words: badge, tray, header (the window's status from this engine), and the state db for `nas-mirror status`
    const app = engineAppStatus(engine, engine.core.store, 'url', 3600);
    expect(connectionWord(app)).toBe('Not answering');
    expect(trayView(app, Date.now()).tooltip).toBe('NAS Mirror: NAS not answering, retrying, 1 change waiting');
    expect(statusWords(app).line).toMatch(/^The NAS is not answering: retrying\. 1 change waits here and will be sent when it is back\.$/);
    const cliStatus = spawnSync(process.execPath, ['bin/nas-mirror.js', 'status', '--state', state], { encoding: 'utf8' });
    expect(cliStatus.stdout).toMatch(
      /^state: +not answering -- the NAS is not answering \(no reply within the request timeout\); retrying$/m,
    );
    proc.child.kill('SIGCONT');
    await waitFor(
      () => engine.status().connection === 'online' && engine.status().outbox.pending === 0,
      'the change sent after SIGCONT',
      30_000,
    );
    expect(engine.core.local.meta('connection')).toBeUndefined();
  }, 60_000);
});
