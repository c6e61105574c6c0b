/**
 * Issue 25 point 4, second half: a window left open (browser mode) across a stop and a restart
 * of the app. While nothing answers at its address it says so in words and keeps trying; when
 * the app answers there again under a new secret (restarted: this window belongs to its
 * previous run and can never reconnect), it says that, names the way out, and stops trying.
 * Before: "The engine is not reachable; reconnecting…" forever. Chromium against browser mode; that it
 * stops trying is renderer/transport.test.ts's.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ensureRenderer } from '../../main/ui-server/assets.js';
import { startUiServer, type UiServer } from '../../main/ui-server/ui-server.js';
import { silentLogger } from '../../main/log/logger.js';
import { ARTIFACTS, startRig, type Rig } from './harness.js';

const poll = <T>(fn: () => T | Promise<T>, timeout = 20_000) => expect.poll(fn, { timeout, interval: 50 });

let rig: Rig;
let page: Page;
let second: UiServer | undefined;

beforeAll(async () => {
  rig = await startRig({ objects: 50 });
  page = await rig.newPage();
}, 120_000);

afterAll(async () => {
  await second?.close().catch(() => undefined); // closed by the test already when it passed
  await rig?.close();
});

const banner = (p: Page): Promise<string> => p.locator('.banner[role="alert"]').first().innerText();

describe('a window left open across a restart of the app', () => {
  it('says the app is not answering while it is stopped, then that it was restarted, and stops reconnecting', async () => {
    await poll(() => page.locator('.banner[role="alert"]').first().isHidden()).toBe(true);
    const port = rig.app.server.port;
    await rig.app.server.close();
    await poll(() => banner(page)).toMatch(/NAS Mirror is not answering/);
    expect(await banner(page)).not.toMatch(/engine/i);

    // the app again on the same address, with a new secret (what a restart gives)
    second = await startUiServer({
      handlers: rig.app.core.handlers,
      events: rig.app.core.events,
      assetsDir: await ensureRenderer(),
      port,
      log: silentLogger,
    });
    expect(second.url).not.toBe(rig.app.server.url);
    await poll(() => banner(page)).toMatch(/NAS Mirror was restarted: this window belongs to its previous run/);
    expect(await banner(page)).toMatch(/nas-mirror ui/);
    await page.screenshot({ path: join(ARTIFACTS, 'window-restarted.png') });

    // the new run's own window works
    const fresh = await rig.browser.newPage();
    await fresh.goto(second.url);
    await poll(() => fresh.locator('.banner[role="alert"]').first().isHidden()).toBe(true);
    await fresh.close();
  }, 90_000);
});
