/**
 * Issue 25 point 1, the window: the NAS got a new address (the router gave it another port).
 * In Settings the user enters the new address of the same NAS and saves: it is taken (never
 * "belongs to another NAS"), the badge is Online there, the sign-in is kept (no sign-in asked),
 * and Activity has exactly one line saying the NAS is at a new address. Debian's Chromium,
 * browser mode; the new address is a TCP forwarder on another port to the same real service.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, connectedRigForFile, forwarder, until } from './harness.js';

const t = connectedRigForFile();
const poll = <T>(fn: () => T | Promise<T>, o: { timeout?: number } = {}) => expect.poll(fn, { timeout: 20_000, interval: 50, ...o });

describe('the same NAS at a new address, in Settings (issue 25 point 1)', () => {
  it('is taken: Saved, Online at the new address, the sign-in kept, one line in Activity', async () => {
    const { rig, page } = t;
    const fwd = await forwarder(rig.svc.baseUrl);
    try {
      await poll(() => page.locator('#conn-badge').textContent()).toBe('Online');
      await page.click('#tab-settings');
      await poll(() => page.inputValue('#set-location')).toBe(rig.svc.baseUrl);
      await page.fill('#set-location', fwd.url);
      await page.click('#save-settings');
      await poll(() => page.locator('#settings-saved').textContent()).toBe('Saved.');
      const said = async (): Promise<string> => page.evaluate(() => document.body.innerText);
      expect(await said()).not.toMatch(/belongs to another NAS|new mirror is needed/i);
      await until(async () => (await rig.app.core.handlers.status({})).endpoint === fwd.url, 'the session at the new address', 30_000);
      await poll(() => page.locator('#conn-badge').textContent(), { timeout: 30_000 }).toBe('Online');
      expect(await page.inputValue('#set-location')).toBe(fwd.url);
      // the account kept: the sign-in (here a token in memory) still there, nothing asks to sign in
      await poll(() => page.locator('#token-state').textContent()).toContain('memory only');
      expect(await page.locator('#state-line').textContent()).not.toMatch(/sign in|signed in|not set up/i);
      expect(await said()).not.toMatch(/belongs to another NAS/i);
      await page.evaluate(() => document.querySelectorAll('.toast').forEach((x) => x.remove()));
      await page.locator('#set-location').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(ARTIFACTS, 'nas-new-address-settings.png') });
      // one line in Activity
      await page.click('#tab-activity');
      const lines = page.locator('#activity-list li .summary', { hasText: /new address|is now at/ });
      await poll(() => lines.allTextContents()).toEqual([`The NAS is now at ${fwd.url}`]);
      await page.screenshot({ path: join(ARTIFACTS, 'nas-new-address-activity.png') });
    } finally {
      await fwd.stop();
    }
  }, 90_000);
});
