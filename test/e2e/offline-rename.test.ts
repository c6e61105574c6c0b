/**
 * Issue 25 point 10, the window: a rename made while the NAS cannot be reached (its address
 * answers nothing: the badge says Offline, sync is not paused) shows in search results under
 * its NEW name, marked as waiting to be sent; once the NAS is back it is sent and the mark
 * goes. Debian's Chromium, browser mode, the real service reached through a forwarder the test
 * closes (the NAS unreachable) and opens again.
 */
import { readdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, forwarder, startRig, until, type Forwarder, type Rig } from './harness.js';

let rig: Rig;
let fwd: Forwarder;
let page: Page;
const status = () => rig.app.core.handlers.status({});
const poll = <T>(fn: () => T | Promise<T>, o: { timeout?: number } = {}) => expect.poll(fn, { timeout: 20_000, interval: 50, ...o });

beforeAll(async () => {
  rig = await startRig();
  fwd = await forwarder(rig.svc.baseUrl);
  await rig.app.core.handlers.updateSettings({ patch: { location: fwd.url } });
  await rig.app.core.handlers.setToken({ token: rig.token });
  await until(async () => (await status()).lastCompleteWalk !== null, 'first walk', 60_000);
  page = await rig.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
}, 120_000);
afterAll(async () => {
  await fwd?.stop();
  await rig?.close();
});

/** A file placeholder in a top-level folder: its folder, name and NAS id. */
async function someFile(): Promise<{ dir: string; name: string; id: string }> {
  const h = rig.app.core.handlers;
  const root = (await h.list({ folderId: 'root' })).folder.id;
  for (const dir of readdirSync(rig.mirror).sort()) {
    if (dir.startsWith('.') || !statSync(join(rig.mirror, dir)).isDirectory()) continue;
    const name = readdirSync(join(rig.mirror, dir))
      .sort()
      .find((f) => statSync(join(rig.mirror, dir, f)).isFile());
    if (!name) continue;
    const folder = (await h.list({ folderId: root })).files.find((f) => f.name === dir)!;
    const id = (await h.list({ folderId: folder.id })).files.find((f) => f.name === name)!.id;
    return { dir, name, id };
  }
  throw new Error('no file in the mirror');
}

describe('an offline rename in search results (issue 25 point 10)', () => {
  it('shows the new name, marked as waiting to be sent, while the NAS is unreachable; sent and unmarked once it is back', async () => {
    await poll(() => page.locator('#conn-badge').textContent()).toBe('Online');
    const { dir, name, id } = await someFile();
    // the NAS unreachable: nothing answers at its address any more
    await fwd.stop();
    await page.click('#sync-now');
    await poll(() => page.locator('#conn-badge').textContent(), { timeout: 30_000 }).toBe('Offline');
    const to = `Offline ${name}`;
    renameSync(join(rig.mirror, dir, name), join(rig.mirror, dir, to));
    await until(async () => (await status()).outbox === 1, 'the rename queued');
    expect((await status()).paused).toBe(false);
    expect(rig.svc.admin.get(id)?.name).toBe(name);

    await page.click('#tab-search');
    await page.fill('#search-input', name.replace(/\.[^.]*$/, ''));
    const row = page.locator(`#results li[data-id="${id}"]`);
    await poll(() => row.count()).toBe(1);
    await poll(() => row.locator('.hit-name').textContent()).toBe(to);
    expect(await row.locator('.hit-name').getAttribute('title')).toBe(to);
    expect(await row.locator('.hit-path').textContent()).toBe(`/${dir}/${to}`);
    await poll(() => row.locator('.hit-pending').textContent()).toBe(`Renamed here from “${name}”: waits to be sent to the NAS`);
    expect(await page.locator('#conn-badge').textContent()).toBe('Offline');
    // the walk asked for waits on the NAS: no progress bar "Reading the NAS" beside "Offline"
    expect(await page.locator('#walk-progress').isVisible()).toBe(false);
    await page.evaluate(() => document.querySelectorAll('.toast').forEach((t) => t.remove()));
    await page.screenshot({ path: join(ARTIFACTS, 'offline-rename.png') });

    // the NAS back: the rename goes, the mark goes
    await fwd.start();
    await page.click('#sync-now').catch(() => undefined);
    await until(() => rig.svc.admin.get(id)?.name === to, 'sent once the NAS is back', 60_000);
    await poll(() => page.locator('#conn-badge').textContent(), { timeout: 30_000 }).toBe('Online');
    await page.fill('#search-input', to.replace(/\.[^.]*$/, ''));
    await poll(() => row.locator('.hit-name').textContent()).toBe(to);
    await poll(() => row.locator('.hit-pending').count()).toBe(0);
  }, 120_000);
});
