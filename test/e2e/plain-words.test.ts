/**
 * Issue 25 point 6, the window: no protocol word in anything a user reads (Debian's Chromium,
 * browser mode, real service, real engine, real mirror folder). After an Organize batch is
 * applied and after its Undo, and on a file changed here and on the NAS, the visible text of
 * the Organize view, of Activity and Conflicts, the header, every toast and every notification
 * is checked for `If-Match`, `eTag`, `412`, `inode`, `inverse patch`, `re-based`. The technical
 * reason stays one click away: a closed "Details" is not read, and opened it shows the reason.
 * Toasts and notifications are recorded as they appear (a toast goes after a few seconds).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../main/client/service-client.js';
import { ARTIFACTS, startRig, until, type Rig } from './harness.js';

const JARGON = /If-Match|eTag|\b412\b|inode|inverse patch|re-based/i;
const FOLDER = 'Plain notes';
const FILE = 'plan.txt';

let rig: Rig;
let page: Page;
let client: ServiceClient;
let fileId = '';
let folderId = '';
const status = () => rig.app.core.handlers.status({});
const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });

/** What the user reads now: the header and the shown view (innerText: a closed Details is not rendered), the toasts and notifications so far. */
async function readable(): Promise<{ where: string; text: string }[]> {
  return page.evaluate(() => {
    const w = window as unknown as { seen: { toasts: string[]; notes: string[] } };
    const visible = (sel: string): string => (document.querySelector(sel) as HTMLElement | null)?.innerText ?? '';
    return [
      { where: 'header', text: visible('header') },
      { where: 'view', text: visible(`#view-${document.body.dataset['view']}`) },
      ...w.seen.toasts.map((text) => ({ where: 'toast', text })),
      ...w.seen.notes.map((text) => ({ where: 'notification', text })),
    ];
  });
}
async function expectPlain(when: string): Promise<void> {
  const read = await readable();
  expect(read.filter((r) => r.where === 'view')[0]!.text.length, when).toBeGreaterThan(0);
  expect(
    read.filter((r) => JARGON.test(r.text)),
    when,
  ).toEqual([]);
}

beforeAll(async () => {
  rig = await startRig({ objects: 400 });
  folderId = rig.svc.admin.createFolder(rig.svc.admin.rootId(), FOLDER).id;
  fileId = rig.svc.admin.createFile(folderId, FILE, { content: Buffer.from('plan v1\n') }).id;
  await rig.app.core.handlers.updateSettings({ patch: { location: rig.svc.baseUrl } });
  await rig.app.core.handlers.setToken({ token: rig.token });
  await until(async () => (await status()).lastCompleteWalk !== null, 'first walk', 60_000);
  client = new ServiceClient({ baseUrl: rig.svc.baseUrl, token: rig.token, retries: 1, timeoutMs: 5000 });
  page = await rig.browser.newPage();
  // every toast and notification as it appears (browser mode notifies through the Notifications API)
  await page.addInitScript(() => {
    const w = window as unknown as { seen: { toasts: string[]; notes: string[] }; Notification: unknown };
    w.seen = { toasts: [], notes: [] };
    w.Notification = class {
      static permission = 'granted';
      static requestPermission = async () => 'granted';
      onclick: unknown = null;
      constructor(title: string, o: { body?: string } = {}) {
        w.seen.notes.push(`${title}\n${o.body ?? ''}`);
      }
    };
    new MutationObserver((records) => {
      for (const r of records)
        for (const n of Array.from(r.addedNodes))
          if (n instanceof HTMLElement && n.classList.contains('toast')) w.seen.toasts.push(n.innerText || (n.textContent ?? ''));
    }).observe(document, { childList: true, subtree: true });
  });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(rig.app.server.url);
}, 120_000);
afterAll(async () => {
  client?.close();
  await rig?.close();
});

describe('no protocol words in the window (issue 25 point 6)', () => {
  it('an Organize batch applied and undone: the Organize view, Activity, header, toasts say it in words; Details keeps the reason', async () => {
    const q = `in:"${FOLDER}"`;
    await page.click('#tab-organize');
    await page.fill('#organize-q', q);
    await page.fill('#organize-rename', '{name} sorted.{ext}');
    await page.fill('#organize-move', '');
    await page.click('#organize-preview');
    await until(async () => (await page.locator('#organize-counts').textContent()) === '1 selected: 1 will change', 'the preview');
    await expectPlain('the Organize preview');
    await page.click('#organize-apply');
    await until(() => rig.svc.admin.get(fileId)?.name === 'plan sorted.txt', 'renamed on the NAS', 60_000);
    await until(async () => (await page.locator('#organize-done').count()) === 1, 'the done words');
    await expectPlain('after Organize apply');
    // (the toasts are recorded: the apply's is there)
    expect((await readable()).filter((r) => r.where === 'toast').map((r) => r.text)).toContainEqual(
      expect.stringMatching(/^Queued 1 change as one batch/),
    );
    await shot('plain-words-organize-applied');

    await page.click('#tab-activity');
    const batch = page.locator('li.kind-organized');
    await until(async () => (await batch.locator('button.undo').count()) === 1, 'the batch undoable');
    await expectPlain('Activity after apply');
    await batch.locator('button.undo').click();
    await until(() => rig.svc.admin.get(fileId)?.name === FILE, 'undone on the NAS', 60_000);
    const undo = page.locator('li.kind-undo');
    await until(async () => (await undo.count()) === 1, 'the undo line');
    await until(async () => (await status()).outbox === 0, 'the undo sent');
    await expectPlain('Activity after undo');
    await page.click('#tab-organize');
    await expectPlain('Organize after undo');
    // the technical reason is one click away, under Details
    await page.click('#tab-activity');
    await undo.locator('details summary').click();
    expect(await undo.locator('details').innerText()).toMatch(JARGON);
    await shot('plain-words-undo-details');
  }, 120_000);

  it('a file changed here and on the NAS: Conflicts, header, toasts and notifications in words; Details keeps the reason', async () => {
    await page.click('#tab-search');
    await page.fill('#search-input', 'plan');
    const row = page.locator('#results li', { hasText: FILE }).first();
    await until(async () => (await row.count()) > 0, 'the file found');
    await row.locator('.act', { hasText: 'Keep' }).click();
    const onDisk = join(rig.mirror, FOLDER, FILE);
    const text = (): string | null => {
      try {
        return readFileSync(onDisk, 'utf8');
      } catch {
        return null;
      }
    };
    await until(() => text() === 'plan v1\n', 'kept here');
    await until(async () => (await status()).outbox === 0, 'settled');
    writeFileSync(onDisk, 'plan v2, edited here\n');
    await client.startVersion(fileId, { ifMatch: rig.svc.admin.get(fileId)!.eTag });
    await client.putContent(fileId, 0, Buffer.from('plan v2 from the NAS\n'), true);
    await until(async () => (await status()).conflicts === 1, 'the conflict listed', 60_000);
    await until(async () => (await page.locator('#conflict-count').textContent()) === '1', 'the count');
    await page.click('#tab-conflicts');
    const conflict = page.locator('#conflicts tbody tr');
    await until(async () => (await conflict.count()) === 1, 'the row');
    await until(async () => (await readable()).some((r) => r.where === 'notification' && /new conflict/.test(r.text)), 'the notification');
    await expectPlain('Conflicts with a content conflict');
    // (your version, kept as a conflicted copy, is on the NAS too before the choice)
    const onNas = async (): Promise<number> => {
      let n = 0;
      for await (const p of client.pages(folderId)) n += p.files.length;
      return n;
    };
    await until(async () => (await onNas()) === 2 && (await status()).uploads.waiting === 0, 'the copy uploaded', 30_000);
    // Keep mine after the NAS changed it again: the row stays and says why, in words
    await client.startVersion(fileId, { ifMatch: rig.svc.admin.get(fileId)!.eTag });
    await client.putContent(fileId, 0, Buffer.from('plan v3 from the NAS\n'), true);
    await conflict.locator('[data-row-action="keep-mine"]').click();
    await until(async () => (await conflict.locator('.conflict-note').count()) === 1, 'the note on the row', 30_000);
    const note = "the NAS's version changed again since this was listed: it is shown as it is now; choose again";
    expect(await conflict.locator('.conflict-note').textContent()).toBe(`Not done: ${note}`);
    // the toast as the row says it (not "Kept your version: 0; 1 could not be: …")
    expect((await readable()).filter((r) => r.where === 'toast').map((r) => r.text)).toContain(`Not done: ${note}`);
    await expectPlain('a choice the NAS refused');
    await shot('plain-words-conflict');
    await conflict.locator('details summary').first().click();
    expect(await conflict.locator('details').first().innerText()).toMatch(/changed this file while you changed it here/);
    await page.click('#tab-activity');
    await until(
      async () => (await page.locator('#activity-list li', { hasText: `The NAS changed “${FILE}” too` }).count()) > 0,
      'the conflict in Activity',
    );
    await expectPlain('Activity after the conflict');
  }, 120_000);
});
