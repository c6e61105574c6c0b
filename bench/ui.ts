/**
 * `npm run bench:ui`: the window's search as the user feels it, on a demo library of
 * BENCH_OBJECTS objects (default 100,000; seed 1) served by the real service and mirrored by
 * the real engine. Measures (1) a search call through the browser-mode contract (WebSocket,
 * checked on both ends) from Node, and (2) in Debian's Chromium, from the keystroke that
 * completes a query to its results on screen (60 ms of it is the as-you-type debounce).
 * Also the app's start: first walk (watched by the window) and restart to ready (index loaded).
 * Writes bench/results/ui.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startCore } from '../main/api/core.js';
import { silentLogger } from '../main/log/logger.js';
import { noLoginItem } from '../main/settings/autostart.js';
import { DEFAULT_SETTINGS, SettingsStore } from '../main/settings/settings-store.js';
import { openStateDb } from '../main/state/db.js';
import { ensureRenderer } from '../main/ui-server/assets.js';
import { startUiServer } from '../main/ui-server/ui-server.js';
import { startTestService } from '../server/testing.js';
import { launchChromium } from '../test/e2e/harness.js';

const OBJECTS = Number(process.env['BENCH_OBJECTS'] ?? 100_000);
const QUERIES = ['a', 'ho', 'img', 'holiday', '2019', 'new york', 'budget 2010', 'zzzq', 'canon', 'ski'];
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const round = (x: number): number => Math.round(x * 10) / 10;

async function main(): Promise<void> {
  const svc = await startTestService({ demo: { objects: OBJECTS, seed: 1 } });
  const dataDir = mkdtempSync(join(tmpdir(), 'nm-bench-ui-'));
  const profile = mkdtempSync(join(tmpdir(), 'nm-bench-chromium-'));
  const db = openStateDb(dataDir);
  new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: join(dataDir, 'mirror') }).update({ source: 'url', location: svc.baseUrl });
  db.close();
  const mk = () =>
    startCore({
      dataDir,
      log: silentLogger,
      noKeychain: true,
      loginItem: noLoginItem,
      desktop: { open: async () => undefined, reveal: async () => undefined },
    });
  let t0 = performance.now();
  let core = await mk();
  // the window watches the first walk (a screenshot of its progress goes to test-artifacts/e2e/walking.png)
  const watchServer = await startUiServer({
    handlers: core.handlers,
    events: core.events,
    assetsDir: await ensureRenderer(),
    log: silentLogger,
  });
  const watcher = await launchChromium(profile);
  const watchPage = await watcher.newPage();
  await watchPage.goto(watchServer.url);
  await core.handlers.setToken({ token: svc.token() });
  let shot = false;
  while ((await core.handlers.status({})).lastCompleteWalk === null) {
    await new Promise((r) => setTimeout(r, 100));
    if (!shot && (await watchPage.locator('#walk-progress:not([hidden])').count()) > 0 && performance.now() - t0 > 3000) {
      mkdirSync(join(process.cwd(), 'test-artifacts', 'e2e'), { recursive: true });
      await watchPage.screenshot({ path: join(process.cwd(), 'test-artifacts', 'e2e', 'walking.png') });
      shot = true;
    }
  }
  const firstWalkS = (performance.now() - t0) / 1000;
  await watcher.close();
  await watchServer.close();
  await core.close();
  t0 = performance.now();
  core = await mk(); // restart: the saved index is loaded, no rebuild
  const restartMs = performance.now() - t0;
  const server = await startUiServer({
    handlers: core.handlers,
    events: core.events,
    assetsDir: await ensureRenderer(),
    log: silentLogger,
  });

  // (1) contract round trips over the WebSocket
  const ws = new WebSocket(server.url.replace('http:', 'ws:') + 'ws', { origin: `http://127.0.0.1:${server.port}` });
  await new Promise((r) => ws.once('open', r));
  let id = 0;
  const call = (method: string, args: unknown): Promise<void> =>
    new Promise((resolve) => {
      const my = ++id;
      const on = (d: WebSocket.RawData): void => {
        const f = JSON.parse(d.toString()) as { id?: number };
        if (f.id === my) {
          ws.off('message', on);
          resolve();
        }
      };
      ws.on('message', on);
      ws.send(JSON.stringify({ type: 'call', id: my, method, args }));
    });
  const wsTimes: number[] = [];
  for (let rep = 0; rep < 5; rep++)
    for (const q of QUERIES) {
      const t = performance.now();
      await call('search', { q, limit: 50 });
      wsTimes.push(performance.now() - t);
    }
  ws.close();

  // (2) keystroke to results on screen, in Chromium
  const browser = await launchChromium(profile);
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForSelector('#search-input');
  const screenTimes: number[] = [];
  for (let rep = 0; rep < 3; rep++) {
    for (const q of QUERIES) {
      await page.fill('#search-input', '');
      await page.waitForFunction(() => document.querySelectorAll('#results li').length === 0);
      await page.fill('#search-input', q.slice(0, -1));
      await page.waitForTimeout(300); // let the previous query's answer land
      const ms = await page.evaluate(async (last) => {
        const input = document.getElementById('search-input') as HTMLInputElement;
        // the view replaces #search-meta's children when the results are rendered
        const meta = document.getElementById('search-meta')!;
        const done = new Promise<void>((resolve) => {
          const obs = new MutationObserver(() => {
            obs.disconnect();
            resolve();
          });
          obs.observe(meta, { childList: true });
        });
        const t = performance.now();
        input.value += last;
        input.dispatchEvent(new Event('input'));
        await done;
        return performance.now() - t;
      }, q.slice(-1));
      screenTimes.push(ms);
    }
  }
  await browser.close();
  await server.close();
  await core.close();
  await svc.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });

  const result = {
    objects: OBJECTS,
    date: new Date().toISOString(),
    firstWalkSeconds: round(firstWalkS),
    restartToReadyMs: round(restartMs),
    searchOverWebSocketMs: {
      n: wsTimes.length,
      p50: round(pct(wsTimes, 50)),
      p95: round(pct(wsTimes, 95)),
      max: round(Math.max(...wsTimes)),
    },
    keystrokeToResultsMs: {
      n: screenTimes.length,
      p50: round(pct(screenTimes, 50)),
      p95: round(pct(screenTimes, 95)),
      max: round(Math.max(...screenTimes)),
      includesDebounceMs: 60,
    },
    queries: QUERIES,
  };
  console.log(JSON.stringify(result, null, 2));
  writeFileSync(join(process.cwd(), 'bench', 'results', 'ui.json'), JSON.stringify(result, null, 2) + '\n');
}

await main();
