/**
 * Resources owned (issue 22): an engine started and stopped 100 times on the same mirror (a
 * local rename sent each time, so the watcher, the outbox, timers and sockets all run) leaves
 * nothing behind: the process holds the same kinds and numbers of resources (watch handles,
 * sockets, timers, file handles) as after the first stop.
 */
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRig, waitFor, type Rig } from './harness.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** What the process holds now, by kind (`process.getActiveResourcesInfo`). */
function resources(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of process.getActiveResourcesInfo()) out[k] = (out[k] ?? 0) + 1;
  return out;
}

describe('the engine started and stopped 100 times', () => {
  it('leaks no watcher, socket, timer or file handle', async () => {
    let id = '';
    rig = await startRig((svc, root) => {
      const d = svc.admin.createFolder(root, 'Docs');
      id = svc.admin.createFile(d.id, 'n0.txt').id;
      svc.admin.createFile(root, 'top.txt');
    });
    const r = rig;
    await r.engine.stop();
    // closed handles go a moment after close() resolves: compare once they settled (up to 10 s:
    // the service, in this process, closes its side of the rig's own client's idle keep-alive
    // connection after its 5 s keep-alive timeout, counted from that connection's last answer)
    const KINDS = ['FSEventWrap', 'StatWatcher', 'FileHandle', 'TCPSocketWrap', 'Timeout', 'Immediate', 'Worker'];
    const settled = async (limit: Record<string, number>): Promise<Record<string, number>> => {
      const t0 = Date.now();
      let now = resources();
      while (KINDS.some((k) => (now[k] ?? 0) > (limit[k] ?? 0)) && Date.now() - t0 < 10_000) {
        await new Promise((res) => setTimeout(res, 50));
        now = resources();
      }
      return now;
    };
    const before = await settled({});
    for (let i = 1; i <= 100; i++) {
      await r.restart();
      renameSync(join(r.mirror, 'Docs', `n${i - 1}.txt`), join(r.mirror, 'Docs', `n${i}.txt`));
      await waitFor(() => r.svc.admin.get(id)!.name === `n${i}.txt`, `rename ${i} sent`);
      // (the probe sees what a running engine holds: a leak of it would show)
      if (i === 1) expect(resources()['FSEventWrap'] ?? 0).toBeGreaterThan(before['FSEventWrap'] ?? 0);
      await r.engine.stop();
    }
    const after = await settled(before);
    for (const k of KINDS)
      expect(after[k] ?? 0, `${k}: before ${before[k] ?? 0}, after ${after[k] ?? 0} (${JSON.stringify(after)})`).toBeLessThanOrEqual(
        before[k] ?? 0,
      );
  }, 300_000);
});
