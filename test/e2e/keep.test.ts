/**
 * "Keep on this device" and "Free up space" in the window, end to end, in Debian's Chromium
 * against browser mode (real service with the demo library's generated content, real engine,
 * real mirror folder): Keep on a search result marks it "Kept here" and the engine downloads
 * it (Storage counts it on this device); Free up space empties it in place (zero bytes, same
 * inode) and the mark says so.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, connectedRigForFile, sizeOf, until } from './harness.js';

const t = connectedRigForFile();

describe('Keep on this device in the window (browser mode, Chromium)', () => {
  it('Keep marks a search result "Kept here" and downloads it; Free up space makes it a placeholder again', async () => {
    const { rig, page } = t;
    await page.fill('#search-input', '.pdf');
    await until(async () => {
      const n = await page.locator('#results li .hit-name').allTextContents();
      return n.length > 0 && n.every((t) => t.endsWith('.pdf'));
    }, 'pdf results');
    const row = page.locator('#results li').first();
    const id = (await row.getAttribute('data-id'))!;
    const nas = rig.svc.admin.get(id)!;
    expect(nas.size).toBeGreaterThan(0);
    const file = join(rig.mirror, ...(await row.locator('.hit-path').textContent())!.split('/').filter((s) => s !== ''));
    await until(async () => (await row.locator('.device-mark').textContent()) === 'On the NAS', 'the placeholder mark');
    expect(sizeOf(file)).toBe(0);

    await row.locator('.act', { hasText: 'Keep' }).click();
    await until(async () => (await row.locator('.device-mark').textContent()) === 'Kept here', 'the kept mark');
    await until(() => sizeOf(file) === nas.size, 'downloaded by the engine');
    const ino = statSync(file).ino; // the downloaded file: Free empties it in place
    await until(async () => (await page.locator('.toast', { hasText: 'on this device' }).count()) > 0, 'the keep toast');
    await page.screenshot({ path: join(ARTIFACTS, 'keep-kept.png') });
    // Storage says how much is on this device
    await page.click('#tab-storage');
    const space = async (): Promise<string> => (await page.locator('#storage-device').textContent()) ?? '';
    await until(async () => (await space()).includes('in 1 downloaded file,'), 'the space on this device');
    await page.click('#tab-search');

    await row.locator('.act', { hasText: 'Free up space' }).click();
    await until(async () => (await row.locator('.device-mark').textContent()) === 'On the NAS', 'the placeholder mark again');
    expect(sizeOf(file)).toBe(0);
    expect(statSync(file).ino).toBe(ino);
    await until(async () => (await page.locator('.toast', { hasText: 'Freed' }).count()) > 0, 'the freed toast');
    // nothing of it reads as the user's content, nothing went to the NAS
    const status = await rig.app.core.handlers.status({});
    expect(status.outbox).toBe(0);
    expect(rig.svc.admin.get(id)!.eTag).toBe(nas.eTag);
  }, 90_000);
});
