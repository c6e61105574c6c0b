/**
 * The first mirror says its total and the time left (issue 25 point 12), in Debian's Chromium
 * against browser mode. The real service holds a demo library of 5,000 objects and answers
 * slowly (its `latency` quirk), so the first walk lasts seconds: the header says the items the
 * walk knows exist ("of at least"), then, before the walk ends, the NAS's whole count with the
 * percentage and the time left, and the progress bar shows the same percentage. A device that
 * omits childCount keeps the old words and never shows a total. Screenshot (1280x800) in
 * test-artifacts/e2e/first-mirror-total.png.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { ARTIFACTS, startRig, until, type Rig } from './harness.js';

interface Seen {
  line: string;
  bar: { hidden: boolean; known: boolean; now: string | null };
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Connects the app to its service and records the header at every 100 ms until the first walk is over; `onSeen` may act on a sample. */
async function watchFirstMirror(r: Rig, onSeen: (s: Seen, page: Page) => Promise<void>): Promise<Seen[]> {
  const h = r.app.core.handlers;
  await h.updateSettings({ patch: { location: r.svc.baseUrl } });
  await h.setToken({ token: r.token });
  const page = await r.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const seen: Seen[] = [];
  await until(
    async () => {
      const s: Seen = await page.evaluate(() => {
        const bar = document.getElementById('walk-progress')!;
        return {
          line: document.getElementById('state-line')?.textContent ?? '',
          bar: { hidden: bar.hidden, known: bar.classList.contains('known'), now: bar.getAttribute('aria-valuenow') },
        };
      });
      if (s.line.startsWith('Reading the NAS')) {
        seen.push(s);
        await onSeen(s, page);
      }
      const st = await h.status({});
      return st.lastCompleteWalk !== null && !st.walk.running;
    },
    'the first walk to end',
    90_000,
  );
  return seen;
}

describe('the first mirror in the window', () => {
  it('says the items known so far, then the total, the percentage and the time left before it ends; the bar follows', async () => {
    rig = await startRig({ objects: 5000, quirks: 'latency', latencyMs: 500 });
    let shot = false;
    const seen = await watchFirstMirror(rig, async (s, page) => {
      if (shot || !/ of 5,000 items \(/.test(s.line)) return;
      shot = true;
      await page.screenshot({ path: join(ARTIFACTS, 'first-mirror-total.png'), fullPage: false });
    });
    const lines = seen.map((s) => s.line).join('\n');
    expect(
      seen.some((s) => /^Reading the NAS: [\d,]+ of at least [\d,]+ items$/.test(s.line)),
      lines,
    ).toBe(true);
    const total = seen.filter((s) => / of 5,000 items \(/.test(s.line));
    expect(total.length, lines).toBeGreaterThan(0);
    for (const s of total) {
      const m = /^Reading the NAS: ([\d,]+) of 5,000 items \((\d+) %\)( · (less than a minute|about \d+ min) left)?$/.exec(s.line);
      expect(m, s.line).not.toBeNull();
      expect(Number(m![1]!.replace(/,/g, ''))).toBeLessThan(5000);
      // the bar shows the same figure
      expect(s.bar).toEqual({ hidden: false, known: true, now: m![2] });
    }
    // while it still grows: no figure on the bar, and never a total other than the NAS's
    for (const s of seen) if (/of at least/.test(s.line)) expect(s.bar.known).toBe(false);
    for (const s of seen) if (/ of [\d,]+ items \(/.test(s.line)) expect(s.line).toContain(' of 5,000 items (');
  }, 150_000);

  it("a device that omits childCount keeps today's words: what was seen so far, never a total", async () => {
    rig = await startRig({ objects: 1500, quirks: 'no-child-count,latency', latencyMs: 300 });
    const seen = await watchFirstMirror(rig, () => Promise.resolve());
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) {
      expect(s.line).not.toMatch(/ of /);
      expect(s.line).toMatch(/^Reading the NAS: (starting…|[\d,]+ folders?, [\d,]+ items?.* so far)$/);
      expect(s.bar.known).toBe(false);
    }
  }, 150_000);
});
