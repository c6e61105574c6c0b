/**
 * The app on the embedded demo NAS, started twice on the same data folder (what `npm start`
 * does every day): the second start is the demo again. Regression: the first start saved no
 * settings, so the second took its mirror for a command line's state folder and came up
 * "Not set up" with the demo NAS running unused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCore } from '../../main/api/core.js';
import type { Core } from '../../main/api/core-types.js';
import { silentLogger } from '../../main/log/logger.js';
import { noLoginItem } from '../../main/settings/autostart.js';
import { until } from './harness.js';

const dataDir = mkdtempSync(join(tmpdir(), 'nm-demo-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const start = (): Promise<Core> =>
  startCore({
    dataDir,
    firstRun: 'demo',
    demoObjects: 200,
    log: silentLogger,
    noKeychain: true,
    loginItem: noLoginItem,
    desktop: { open: async () => undefined, reveal: async () => undefined },
  });

describe('the demo NAS across restarts', () => {
  it('a second start on the same data folder is online on the demo, not "not set up"', async () => {
    for (const round of [1, 2]) {
      const core = await start();
      try {
        await until(
          () => core.status().connection === 'online' && core.status().lastCompleteWalk !== null,
          `round ${round}: online with a complete walk (status ${JSON.stringify(core.status())})`,
          60_000,
        );
        expect(core.status().via).toBe('embedded');
        expect(core.status().indexed).toBeGreaterThan(100);
      } finally {
        await core.close();
      }
    }
  }, 150_000);
});
