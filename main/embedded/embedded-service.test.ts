import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../log/logger.js';
import { PROJECT_ROOT } from '../ui-server/assets.js';
import { startEmbeddedService } from './embedded-service.js';

const dir = mkdtempSync(join(tmpdir(), 'nm-embedded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('startEmbeddedService', () => {
  it('runs the reference service as a child with the demo library and a working token', async () => {
    const svc = await startEmbeddedService({
      dataDir: dir,
      service: { command: process.execPath, args: [join(PROJECT_ROOT, 'bin', 'nas-service.js')] },
      log: silentLogger,
      demoObjects: 50,
    });
    try {
      expect(svc.created).toBe(true);
      expect(svc.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${svc.baseUrl}/sdk/v2/filesSearch/parents?ids=root`, { headers: { authorization: `Bearer ${svc.token}` } });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { files: unknown[] };
      expect(page.files.length).toBeGreaterThan(0);
      const bad = await fetch(`${svc.baseUrl}/sdk/v2/filesSearch/parents?ids=root`, { headers: { authorization: 'Bearer nope' } });
      expect(bad.status).toBe(401);
    } finally {
      await svc.stop();
    }
    const again = await startEmbeddedService({
      dataDir: dir,
      service: { command: process.execPath, args: [join(PROJECT_ROOT, 'bin', 'nas-service.js')] },
      log: silentLogger,
      demoObjects: 50,
    });
    expect(again.created).toBe(false);
    await again.stop();
  }, 60_000);
});
