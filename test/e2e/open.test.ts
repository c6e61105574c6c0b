/**
 * "Open" in the window, end to end, in Debian's Chromium against browser mode (real service
 * with the demo library's generated content, real engine, real mirror folder): a click on a
 * search result's Open downloads the placeholder, puts the file in its place and opens it
 * (the desktop seam records the path instead of launching an app); a second Open opens at
 * once, with no content read.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, connectedRigForFile, until } from './harness.js';

const t = connectedRigForFile();
const contentReads = (): number => t.rig.svc.requests().filter((r) => r.path.endsWith('/content')).length;

describe('Open in the window (browser mode, Chromium)', () => {
  it('downloads a search result on Open, opens it, and a second Open is instant', async () => {
    const { rig, page } = t;
    await page.fill('#search-input', '.pdf');
    await until(async () => {
      const n = await page.locator('#results li .hit-name').allTextContents();
      return n.length > 0 && n.every((t) => t.endsWith('.pdf'));
    }, 'pdf results');
    const row = page.locator('#results li').first();
    const id = (await row.getAttribute('data-id'))!;
    const name = (await row.locator('.hit-name').textContent())!;
    const nas = rig.svc.admin.get(id)!;
    expect(nas.size).toBeGreaterThan(0);
    const before = rig.app.opened.length;
    const reads = contentReads();
    await row.locator('.act', { hasText: 'Open' }).click();
    await until(() => rig.app.opened.length > before, 'open recorded');
    const opened = rig.app.opened.at(-1)!;
    expect(opened.what).toBe('open');
    expect(opened.path.startsWith(rig.mirror)).toBe(true);
    expect(opened.path.endsWith(name)).toBe(true);
    // the file in place of the placeholder is the NAS's bytes
    const bytes = readFileSync(opened.path);
    expect(bytes.length).toBe(nas.size);
    const res = await fetch(`${rig.svc.baseUrl}/sdk/v2/files/${encodeURIComponent(id)}/content`, {
      headers: { authorization: `Bearer ${rig.token}` },
    });
    const want = Buffer.from(await res.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(createHash('sha256').update(want).digest('hex'));
    expect(contentReads()).toBeGreaterThan(reads);
    await until(async () => (await page.locator('.toast', { hasText: `Downloaded “${name}”` }).count()) > 0, 'the downloaded toast');
    await page.screenshot({ path: join(ARTIFACTS, 'open-downloaded.png') });
    // the next Open finds it here: opened at once, nothing read from the NAS
    const readsNow = contentReads();
    const n = rig.app.opened.length;
    await row.locator('.act', { hasText: 'Open' }).click();
    await until(() => rig.app.opened.length > n, 'second open recorded');
    expect(rig.app.opened.at(-1)!.path).toBe(opened.path);
    expect(contentReads()).toBe(readsNow);
    expect(statSync(opened.path).size).toBe(nas.size);
    // nothing of it reads as the user's content
    const status = await rig.app.core.handlers.status({});
    expect(status.outbox).toBe(0);
  }, 90_000);
});
