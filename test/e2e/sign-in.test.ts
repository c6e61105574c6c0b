/**
 * "Sign in" in Settings, end to end in Chromium against browser mode: the button opens the
 * NAS's login page (the page opens it: there is no Electron shell here), the user signs in
 * there, the browser comes back to the engine's loopback address, and the app goes online
 * with no token ever typed or shown.
 */
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, startRig, until, type Rig } from './harness.js';

const poll = <T>(fn: () => T | Promise<T>, o: { timeout?: number } = {}) => expect.poll(fn, { timeout: 20_000, interval: 50, ...o });

let rig: Rig;
let page: Page;
const TTL = 2;
beforeAll(async () => {
  // Access tokens of 2 s: the app must keep renewing them by itself.
  rig = await startRig({ objects: 50, tokenTtlSec: TTL });
  await rig.svc.admin.setPassword('demo', 'open sesame');
  for (let i = 0; i < 30; i++) rig.svc.admin.createFile('root', `own-${i}.txt`);
  page = await rig.newPage();
}, 120_000);
afterAll(async () => {
  await rig?.close();
});

describe('Sign in from the window', () => {
  it('opens the NAS login page, and after signing in there the app syncs', async () => {
    await page.getByRole('tab', { name: /^Settings/ }).click();
    await page.fill('#set-location', rig.svc.baseUrl);
    await page.click('#save-settings');
    await poll(() => page.locator('#settings-saved').textContent()).toBe('Saved.');
    const popup = page.context().waitForEvent('page');
    await page.click('#sign-in');
    const login = await popup;
    await login.waitForLoadState();
    expect(login.url()).toContain(`${rig.svc.baseUrl}/oauth/authorize?`);
    await poll(() => page.locator('#sign-in-state').textContent()).toContain('Sign in on the NAS');
    await page.screenshot({ path: join(ARTIFACTS, 'settings-sign-in.png') });
    await login.fill('#username', 'demo');
    await login.fill('#password', 'open sesame');
    await login.screenshot({ path: join(ARTIFACTS, 'nas-login-page.png') });
    await login.click('button[value=allow]');
    await poll(() => login.locator('h1').textContent()).toBe('Signed in');
    expect(login.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    await until(async () => (await rig.app.core.handlers.status({})).lastCompleteWalk !== null, 'first walk after sign-in', 60_000);
    await poll(() => page.locator('#conn-badge').textContent(), { timeout: 30_000 }).toBe('Online');
    // No keychain in this rig: the sign-in is kept in memory, and the window never sees a token.
    const settings = await rig.app.core.handlers.getSettings({});
    expect(settings.token).toBe('memory');
    expect(await page.content()).not.toMatch(/ns[tr]_[A-Za-z0-9_-]{20,}/);
    expect(settings.signedIn).toBe(true);
    await poll(() => page.locator('#token-state').textContent()).toContain('Signed in for this session only');
    await page.screenshot({ path: join(ARTIFACTS, 'settings-signed-in.png') });
  }, 120_000);

  it('keeps syncing local renames over several token lifetimes with no user action', async () => {
    const t0 = Date.now();
    let n = 0;
    const nasHas = async (name: string): Promise<boolean> =>
      (
        await fetch(`${rig.svc.baseUrl}/sdk/v2/filesSearch/parentAndName?parentID=root&name=${encodeURIComponent(name)}`, {
          headers: { authorization: `Bearer ${rig.token}` },
        })
      ).status === 200;
    const names = Array.from({ length: 30 }, (_, i) => `own-${i}.txt`);
    while (Date.now() - t0 < 3 * TTL * 1000 + 500) {
      const k = n % names.length;
      const name = `own-${k}-renamed-${n}.txt`;
      renameSync(join(rig.mirror, names[k]!), join(rig.mirror, name));
      names[k] = name;
      await until(() => nasHas(name), `rename ${n} on the NAS`);
      n++;
    }
    const st = await rig.app.core.handlers.status({});
    expect(n).toBeGreaterThan(2);
    expect(st.connection).toBe('online');
    expect(st.conflicts).toBe(0);
    expect(st.outbox).toBe(0);
    expect((await rig.app.core.handlers.getSettings({})).signedIn).toBe(true);
    // the app renewed its access token itself, several times (each renewal rotates the refresh token)
    expect(
      rig.svc.service.store.db.prepare('SELECT COUNT(*) FROM refresh_tokens WHERE used IS NOT NULL').pluck().get(),
    ).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('"Sign out" forgets the sign-in and revokes it on the NAS', async () => {
    const rows = (): number => rig.svc.service.store.db.prepare('SELECT COUNT(*) FROM refresh_tokens').pluck().get() as number;
    expect(rows()).toBeGreaterThan(0);
    await poll(() => page.locator('#forget-token').textContent()).toBe('Sign out');
    await page.click('#forget-token');
    await poll(() => page.locator('#token-state').textContent()).toContain('No token stored');
    expect(rows()).toBe(0);
    expect((await rig.app.core.handlers.status({})).connection).toBe('unconfigured');
  }, 60_000);
});
