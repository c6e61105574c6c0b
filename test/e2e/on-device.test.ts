/**
 * The search filter "on this device" end to end, in Debian's Chromium against browser mode
 * (real service with the demo library's content, real engine, real mirror folder): a file kept
 * on this device is exactly what `on:device` finds, `on:nas` finds every other match (the
 * placeholders, as the engine's states say), "On this device only" and the empty search's
 * "Show what is on this device" add it in one click, a freed file leaves that answer at once,
 * and the command line answers `on:` from the state folder the same way.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { ARTIFACTS, connectedRigForFile, sizeOf, until } from './harness.js';

const t = connectedRigForFile();
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 50 });
const shownIds = async (): Promise<string[]> =>
  (await t.page.locator('#results li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id') ?? ''))).sort();

describe('search "on this device" in the window (browser mode, Chromium)', () => {
  it('finds exactly the kept file with on:device, every other match with on:nas, in one click too; the CLI the same', async () => {
    const { rig, page } = t;
    const h = rig.app.core.handlers;
    const all = (await h.search({ q: '.pdf', limit: 1000 })).matches.map((m) => m.file.id);
    expect(all.length).toBeGreaterThan(1);
    expect(all.length).toBeLessThan(50); // one page in the window
    await page.fill('#search-input', '.pdf');
    await poll(shownIds).toEqual([...all].sort());
    const row = page.locator('#results li').first();
    const id = (await row.getAttribute('data-id'))!;
    const file = join(rig.mirror, ...(await row.locator('.hit-path').textContent())!.split('/').filter((s) => s !== ''));
    await until(async () => (await row.locator('.device-mark').textContent()) === 'On the NAS', 'the placeholder mark');
    // nothing is on this device yet
    await page.fill('#search-input', '.pdf on:device');
    await poll(() => page.locator('#result-count').textContent()).toBe('0 results');
    expect(await page.locator('#filter-chips .chip').allTextContents()).toEqual(['on: this device×']);

    // keep one: on:device finds it alone, on:nas every other match
    await page.fill('#search-input', '.pdf');
    await poll(shownIds).toEqual([...all].sort());
    await page.locator(`#results li[data-id="${id}"] .act`, { hasText: 'Keep' }).click();
    await until(() => sizeOf(file) === rig.svc.admin.get(id)!.size, 'downloaded by the engine');
    await page.fill('#search-input', '.pdf on:device');
    await poll(shownIds).toEqual([id]);
    await poll(() => page.locator('#offline-only').isVisible()).toBe(true);
    await poll(() => page.locator(`#results li[data-id="${id}"] .device-mark`).textContent()).toBe('Kept here');
    await page.screenshot({ path: join(ARTIFACTS, 'search-on-device.png') });
    await page.fill('#search-input', '.pdf on:nas');
    const others = all.filter((x) => x !== id).sort();
    await poll(shownIds).toEqual(others);
    // exactly what the engine's states say: the placeholders among the plain answer
    const states = rig.app.core.handlers.deviceStates({ ids: all });
    expect(
      (await states).states
        .filter((s) => s.state === 'placeholder')
        .map((s) => s.id)
        .sort(),
    ).toEqual(others);
    expect(await page.locator('#filter-chips .chip').allTextContents()).toEqual(['on: NAS only×']);
    await page.fill('#search-input', '.pdf on:kept');
    await poll(shownIds).toEqual([id]);

    // one click: "On this device only" on a plain search, and from the empty search's hint
    await page.fill('#search-input', '.pdf');
    await poll(shownIds).toEqual([...all].sort());
    await page.screenshot({ path: join(ARTIFACTS, 'search-only-on-device.png') });
    await page.click('#only-on-device');
    await poll(() => page.inputValue('#search-input')).toBe('.pdf on:device');
    await poll(shownIds).toEqual([id]);
    expect(await page.locator('#only-on-device').isHidden()).toBe(true); // it says where already
    await page.fill('#search-input', '');
    await poll(() => page.locator('#search-on-device').isVisible()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'search-hint-on-device.png') });
    await page.click('#search-on-device');
    await poll(() => page.inputValue('#search-input')).toBe('on:device');
    await poll(shownIds).toEqual([id]);

    // freed: it leaves the answer at once (the window searches again when what is here changes)
    await page.fill('#search-input', '.pdf on:device');
    await poll(shownIds).toEqual([id]);
    await page.locator(`#results li[data-id="${id}"] .act`, { hasText: 'Free up space' }).click();
    await poll(() => page.locator('#result-count').textContent()).toBe('0 results');
    expect(sizeOf(file)).toBe(0);

    // kept again, then the command line answers from the state folder (the engine stopped first)
    await h.pin({ id });
    await until(() => sizeOf(file) === rig.svc.admin.get(id)!.size, 'downloaded again');
    await rig.app.close();
    const cli = async (q: string): Promise<string[]> => {
      const r = await runCli(['search', q, '--state', rig.dataDir, '--json', '--limit', '1000']);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const out = JSON.parse(r.out) as { offlineOnly?: boolean; matches: { file: { id: string } }[] };
      expect(out.offlineOnly).toBe(true);
      return out.matches.map((m) => m.file.id).sort();
    };
    expect(await cli('.pdf on:device')).toEqual([id]);
    expect(await cli('.pdf on:this-device')).toEqual([id]);
    expect(await cli('.pdf on:placeholder')).toEqual(others);
    const table = await runCli(['search', '.pdf on:kept', '--state', rig.dataDir]);
    expect(table.out).toContain('offline-only (the NAS has no operators): on: kept');
  }, 120_000);
});
