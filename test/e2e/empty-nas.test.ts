/**
 * A NAS that suddenly looks empty, in the window (issue 10, point 6), in Debian's Chromium
 * against browser mode: the real service with the demo library is emptied under the running
 * app. The window says so in plain words (header line and its own panel in Conflicts, not an
 * ordinary held delete), nothing is removed until the user decides; "Keep" keeps every
 * placeholder (asked again at the next check), "Remove the placeholders here" (confirmed)
 * removes them at the next check and deletes nothing on the NAS. Screenshot in test-artifacts/e2e/.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../main/client/service-client.js';
import { ARTIFACTS, startRig, until, type Rig } from './harness.js';

const poll = <T>(fn: () => T | Promise<T>, o: { timeout?: number } = {}) => expect.poll(fn, { timeout: 30_000, interval: 50, ...o });

let rig: Rig;
let page: Page;
const entries = (): string[] => readdirSync(rig.mirror).filter((n) => n !== '.nas-mirror');

beforeAll(async () => {
  rig = await startRig({ objects: 200 });
  const h = rig.app.core.handlers;
  await h.updateSettings({ patch: { location: rig.svc.baseUrl } });
  await h.setToken({ token: rig.token });
  await until(async () => (await h.status({})).lastCompleteWalk !== null, 'first walk', 90_000);
  await until(() => entries().length > 0, 'placeholders placed', 60_000);
  page = await rig.newPage();
}, 150_000);
afterAll(async () => {
  await rig?.close();
});

describe('a NAS that suddenly looks empty', () => {
  it('is said in plain words with what the user can do; keep keeps, remove removes here only', async () => {
    const h = rig.app.core.handlers;
    const before = entries().sort();
    // the NAS is emptied under the app (every top-level object deleted on the service)
    const client = new ServiceClient({ baseUrl: rig.svc.baseUrl, token: rig.token });
    const top: string[] = [];
    for await (const p of client.pages(rig.svc.admin.rootId())) for (const o of p.files) top.push(o.id);
    for (const id of top) await client.delete(id);
    client.close();
    await rig.svc.admin.drainDeletes();
    await h.syncNow({});
    await until(async () => (await h.status({})).heldDeletes === 1, 'the empty NAS is held');
    await poll(() => page.locator('#state-line').textContent()).toContain('Your NAS now looks empty');
    await page.getByRole('tab', { name: /^Conflicts/ }).click();
    const panel = page.locator('#empty-nas');
    await poll(() => panel.isVisible()).toBe(true);
    const text = (await panel.textContent()) ?? '';
    expect(text).toContain('The NAS lists nothing any more');
    expect(text).toContain('Nothing has been removed here, and nothing is deleted on the NAS');
    expect(text).toMatch(/another account|not mounted/);
    // not shown as an ordinary held delete
    await poll(() => page.locator('#held-table').isVisible()).toBe(false);
    expect(await page.locator('#held .empty').textContent()).toBe('No deletes are waiting.');
    await page.evaluate(() => document.querySelectorAll('.toast').forEach((t) => t.remove()));
    await page.screenshot({ path: join(ARTIFACTS, 'empty-nas.png'), fullPage: false });
    expect(entries().sort()).toEqual(before);

    // Keep: nothing removed; the next check asks again
    await page.click('#empty-nas-keep');
    await poll(() => panel.isVisible()).toBe(false);
    expect(entries().sort()).toEqual(before);
    await h.syncNow({});
    await until(async () => (await h.status({})).heldDeletes === 1, 'asked again at the next check');
    await poll(() => panel.isVisible()).toBe(true);
    expect(entries().sort()).toEqual(before);

    // Remove (confirmed): the next check removes the placeholders here, nothing on the NAS
    const requests = rig.svc.requests().length;
    await page.click('#empty-nas-remove');
    await poll(() => page.locator('#held-confirm').isVisible()).toBe(true);
    expect(await page.locator('#held-confirm-body').textContent()).toContain('Nothing is deleted on the NAS');
    await page.click('#held-confirm-yes');
    await poll(() => panel.isVisible()).toBe(false);
    await h.syncNow({});
    await until(() => entries().length === 0, 'placeholders removed after the confirmation', 60_000);
    expect(
      rig.svc
        .requests()
        .slice(requests)
        .filter((r) => r.method === 'DELETE'),
    ).toHaveLength(0);
    await poll(() => page.locator('#state-line').textContent()).not.toContain('looks empty');
  }, 180_000);
});
