/**
 * The window while content moves (issue 23: "the window's event loop under 50 ms meanwhile"):
 * the app as browser mode runs it (the engine in its own process, forked as `nas-mirror ui`
 * forks it, at its lower CPU priority; the UI server in this process, as the desktop app's
 * main process holds it; the reference service in its own), a window in Debian's Chromium on
 * Browse of the folder being moved, while the app (1) opens the big file, (2) keeps the small
 * files' folder on this device, (3) uploads a folder of new small files dropped into its
 * mirror folder. Measured per phase: the window's event loop (a 10 ms timer's lateness, and
 * Chromium's long tasks), this process's event loop (`monitorEventLoopDelay`: the UI server's,
 * which relays every call and event between the window and the engine), and search as the
 * user types it meanwhile (keystroke to results on screen, the 60 ms as-you-type pause
 * included). Used by bench/content.ts.
 */
import { cpSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { CDPSession, Page } from 'playwright-core';
import type { Core } from '../main/api/core-types.js';
import { DEFAULT_SETTINGS, SettingsStore } from '../main/settings/settings-store.js';
import { openStateDb } from '../main/state/db.js';
import { ensureRenderer } from '../main/ui-server/assets.js';
import { startUiServer, type UiServer } from '../main/ui-server/ui-server.js';
import { silentLogger } from '../main/log/logger.js';
import { launchChromium } from '../test/e2e/harness.js';
import { hostEngine } from '../main/host/engine-client.js';
import { forkEngine } from '../main/host/node-port.js';
import { MemoryKeychain } from '../main/keychain/keychain.js';
import { noLoginItem } from '../main/settings/autostart.js';
import { listAll, profiled, type Nas } from './content-probe.js';

export interface WindowPhase {
  phase: 'open big' | 'keep small' | 'upload small';
  sec: number;
  /** The window's 10 ms timer: how late it fired (ms), p99 and max. */
  windowLagMs: { p99: number; max: number };
  /** Chromium's long tasks (over 50 ms) in the window meanwhile: how many, the longest (ms). */
  longTasks: { count: number; maxMs: number };
  /** The UI server's process's event loop delay (ms), p99 and max (the engine runs in its own). */
  appLoopMs: { p99: number; max: number };
  /** Keystroke to results on screen while it ran (ms): how many typed, p50, max. */
  searchMs: { n: number; p50: number; max: number };
}

const r1 = (x: number): number => Math.round(x * 10) / 10;
const pct = (xs: readonly number[], p: number): number => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** Starts the probes in the page: a 10 ms timer's lateness and the long tasks, from now. */
/**
 * The probe in the page, as text (tsx would wrap the functions of a callback in a helper
 * the page does not have): a 10 ms timer's lateness and the long tasks, from now.
 */
const PROBE = `(() => {
  window.__probe?.stop();
  const late = [], long = [];
  let last = performance.now();
  const t = setInterval(() => { const now = performance.now(); late.push(Math.max(0, now - last - 10)); last = now; }, 10);
  const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) long.push(e.duration); });
  obs.observe({ type: 'longtask', buffered: false });
  window.__probe = { late, long, stop: () => { clearInterval(t); obs.disconnect(); } };
})()`;

async function startProbe(page: Page): Promise<void> {
  await page.evaluate(PROBE);
}

async function stopProbe(page: Page): Promise<{ late: number[]; long: number[] }> {
  return page.evaluate('(() => { window.__probe.stop(); return { late: window.__probe.late, long: window.__probe.long }; })()');
}

/** One query typed in the search field: keystroke to the results' line replaced (ms). */
async function typed(page: Page, q: string): Promise<number> {
  await page.fill('#search-input', q.slice(0, -1));
  return page.evaluate(`(async () => {
    const input = document.getElementById('search-input');
    const meta = document.getElementById('search-meta');
    const done = new Promise((resolve) => {
      const obs = new MutationObserver(() => { obs.disconnect(); resolve(); });
      obs.observe(meta, { childList: true });
    });
    const t = performance.now();
    input.value += ${JSON.stringify(q.slice(-1))};
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
    return performance.now() - t;
  })()`);
}

/** Waits until `selector`'s text is `text` (polled from here: the window's CSP allows no evaluated predicate). */
async function textIs(page: Page, selector: string, text: string, timeoutMs = 30_000): Promise<void> {
  const t0 = performance.now();
  while ((await page.locator(selector).first().textContent()) !== text) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`${selector} never said ${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Browse opened at a folder of the NAS's top, by name (the rows the phase moves). */
async function browseTo(page: Page, name: string): Promise<void> {
  await page.click('#tab-browse');
  const home = page.locator('#view-browse .crumbs button', { hasText: 'NAS' });
  if (await home.count()) await home.click();
  await page.locator('#browse-rows button.name', { hasText: name }).first().click();
  await textIs(page, '#view-browse .crumb.current', name);
}

/** The two windows of a phase: one on Browse of the folder that moves, one where the user types a search. */
interface Windows {
  browse: Page;
  search: Page;
}

/** A CPU profile of a window's renderer (CONTENT_PROFILE): started, then `stop` writes it as DIR/NAME.cpuprofile. */
async function pageProfile(page: Page, dir: string | undefined, name: string): Promise<{ stop: () => Promise<void> }> {
  if (!dir) return { stop: async () => {} };
  const cdp: CDPSession = await page.context().newCDPSession(page);
  if (process.env['CONTENT_TRACE'] && name.endsWith(`-${process.env['CONTENT_TRACE']}`)) return traced(cdp, dir, name);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await cdp.send('Profiler.stop');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
      await cdp.detach();
    },
  };
}

/** CONTENT_TRACE=browse|search beside CONTENT_PROFILE: a Chromium trace of that window (layout, style, paint, scripts) instead, NAME.trace.json. */
async function traced(cdp: CDPSession, dir: string, name: string): Promise<{ stop: () => Promise<void> }> {
  await cdp.send('Tracing.start', {
    transferMode: 'ReturnAsStream',
    traceConfig: {
      includedCategories: [
        'devtools.timeline',
        'disabled-by-default-devtools.timeline',
        'disabled-by-default-devtools.timeline.invalidationTracking',
        'v8',
        'blink',
        'toplevel',
      ],
    },
  });
  return {
    stop: async () => {
      const done = new Promise<string>((resolve) => cdp.once('Tracing.tracingComplete', (e) => resolve(e.stream ?? '')));
      await cdp.send('Tracing.end');
      const stream = await done;
      let text = '';
      for (;;) {
        const r = await cdp.send('IO.read', { handle: stream });
        text += r.base64Encoded ? Buffer.from(r.data, 'base64').toString() : r.data;
        if (r.eof) break;
      }
      await cdp.send('IO.close', { handle: stream });
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}.trace.json`), text);
      await cdp.detach();
    },
  };
}

/**
 * One phase, measured (CONTENT_PROFILE=DIR: a CPU profile of this process per phase,
 * window-<phase>.cpuprofile, and of each window's renderer, window-<phase>-browse|search.cpuprofile).
 */
async function phase(
  w: Windows,
  name: WindowPhase['phase'],
  run: () => Promise<void>,
  done: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<WindowPhase> {
  const dir = process.env['CONTENT_PROFILE'];
  const file = `window-${name.replace(' ', '-')}`;
  return profiled(dir, file, async () => {
    const pages = [await pageProfile(w.browse, dir, `${file}-browse`), await pageProfile(w.search, dir, `${file}-search`)];
    const loop = monitorEventLoopDelay({ resolution: 10 });
    await startProbe(w.browse);
    await startProbe(w.search);
    loop.enable();
    const t0 = performance.now();
    await run();
    // search as the user types it while the phase runs
    const searchTimes: number[] = [];
    const queries = ['small', 'photo', 'bin', 'file 12', 'zzq'];
    let i = 0;
    while (!(await done())) {
      if (performance.now() - t0 > timeoutMs) throw new Error(`${name}: not done in ${timeoutMs / 1000} s`);
      if (i % 4 === 0) searchTimes.push(await typed(w.search, queries[(i / 4) % queries.length]!));
      i++;
      await new Promise((r) => setTimeout(r, 100));
    }
    const sec = (performance.now() - t0) / 1000;
    loop.disable();
    const [a, b] = [await stopProbe(w.browse), await stopProbe(w.search)];
    for (const p of pages) await p.stop();
    const late = [...a.late, ...b.late];
    const long = [...a.long, ...b.long];
    return {
      phase: name,
      sec: r1(sec),
      windowLagMs: { p99: r1(pct(late, 99)), max: r1(Math.max(0, ...late)) },
      longTasks: { count: long.length, maxMs: r1(Math.max(0, ...long)) },
      appLoopMs: { p99: r1(loop.percentile(99) / 1e6), max: r1(loop.max / 1e6) },
      searchMs: { n: searchTimes.length, p50: r1(pct(searchTimes, 50)), max: r1(Math.max(0, ...searchTimes)) },
    };
  });
}

/** Sizes of the files of `dir` (none: an empty map). */
const sizesIn = (dir: string): Map<string, number> => {
  const out = new Map<string, number>();
  try {
    for (const n of readdirSync(dir)) out.set(n, statSync(join(dir, n)).size);
  } catch {
    /* not there yet */
  }
  return out;
};

/**
 * The three phases against the NAS at `nas` (its big.bin and small/ as bench/content.ts
 * imported them; `smallSrc` the same small files on disk, copied again for the upload).
 */
export async function measureWindow(opts: {
  base: string;
  nas: Nas;
  smallSrc: string;
  sizes: ReadonlyMap<string, number>;
  budgetMs: number;
  say: (msg: string) => void;
}): Promise<WindowPhase[]> {
  const { base, nas, say } = opts;
  const dataDir = join(base, 'window-app');
  const mirror = join(dataDir, 'mirror');
  mkdirSync(dataDir, { recursive: true });
  const db = openStateDb(dataDir);
  // the mass-upload guard above this drop (else it waits for the user's word)
  new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: mirror }).update({
    source: 'url',
    location: nas.baseUrl,
    mirrorFolder: mirror,
    deleteThresholdCount: Math.min(1_000_000, 2 * opts.sizes.size + 100),
  });
  db.close();
  let core: Core | undefined;
  let server: UiServer | undefined;
  const browser = await launchChromium(join(base, 'window-chromium'));
  try {
    // as the app runs it: the engine in its own process (at its lower priority, engine-env.ts),
    // the UI server in this one (the desktop app's main process)
    core = await hostEngine({
      spawn: forkEngine(),
      start: { dataDir, logLevel: 'none' },
      keychain: new MemoryKeychain(),
      loginItem: noLoginItem,
      log: silentLogger,
      desktop: { open: async () => undefined, reveal: async () => undefined },
    });
    const c = core;
    await c.handlers.setToken({ token: nas.token });
    const t0 = performance.now();
    while ((await c.handlers.status({})).lastCompleteWalk === null) {
      if (performance.now() - t0 > opts.budgetMs) throw new Error('the window app: no first walk');
      await new Promise((r) => setTimeout(r, 100));
    }
    server = await startUiServer({ handlers: c.handlers, events: c.events, assetsDir: await ensureRenderer(), log: silentLogger });
    const opened = async (): Promise<Page> => {
      const p = await browser.newPage();
      await p.setViewportSize({ width: 1280, height: 800 });
      await p.goto(server!.url);
      await textIs(p, '#conn-badge', 'Online');
      return p;
    };
    const w: Windows = { browse: await opened(), search: await opened() };
    const page = w.browse;
    const top = await c.handlers.list({ folderId: 'root' });
    const idOf = (n: string): string => {
      const f = top.files.find((x) => x.name === n);
      if (!f) throw new Error(`the window app: no ${n} at the NAS's top`);
      return f.id;
    };
    const out: WindowPhase[] = [];
    say('window: open of the big file…');
    await page.click('#tab-browse');
    let done1 = false;
    out.push(
      await phase(
        w,
        'open big',
        async () => {
          void c.handlers.open({ id: idOf('big.bin') }).then(() => {
            done1 = true;
          });
        },
        () => done1,
        opts.budgetMs,
      ),
    );
    say('window: keep of the small folder…');
    await browseTo(page, 'small');
    // done by the app's own word: its count of the files here below the folder (what Storage
    // shows), asked only after the app said content changed and at most twice a second (the
    // probe must cost this process little: it shares the loop it measures); the files checked
    // on disk after
    let contentMoved = false;
    let here = 0;
    let askedAt = 0;
    const off = c.events.subscribe((event, payload) => {
      if (event === 'changed' && (payload as { what?: string }).what === 'content') contentMoved = true;
    });
    const allHere = async (): Promise<boolean> => {
      if (contentMoved && performance.now() - askedAt >= 500) {
        contentMoved = false;
        askedAt = performance.now();
        here = (await c.handlers.deviceSpace({ folderId: idOf('small') })).files;
      }
      return here >= opts.sizes.size;
    };
    try {
      out.push(
        await phase(
          w,
          'keep small',
          async () => {
            await c.handlers.pin({ id: idOf('small') });
          },
          allHere,
          opts.budgetMs,
        ),
      );
    } finally {
      off();
    }
    const have = sizesIn(join(mirror, 'small'));
    for (const [n, size] of opts.sizes) if (have.get(n) !== size) throw new Error(`keep: ${n} is not here at its size`);
    say('window: upload of a dropped folder of small files…');
    const stage = join(dataDir, 'stage-dropped');
    cpSync(opts.smallSrc, stage, { recursive: true });
    // done when the app has nothing left to send (after it noticed the drop); the NAS checked after
    let noticed = false;
    out.push(
      await phase(
        w,
        'upload small',
        async () => {
          renameSync(stage, join(mirror, 'dropped'));
        },
        () => {
          const u = c.status().uploads;
          if (u.waiting > 0) noticed = true;
          return noticed && u.waiting === 0 && u.held === 0;
        },
        opts.budgetMs,
      ),
    );
    const dropped = (await c.handlers.list({ folderId: 'root' })).files.find((x) => x.name === 'dropped');
    const listed = dropped ? await listAll(nas, dropped.id) : [];
    if (listed.length !== opts.sizes.size || !listed.every((o) => !o.resumable && o.size === opts.sizes.get(o.name)))
      throw new Error(`upload: the NAS holds ${listed.length} of the ${opts.sizes.size} files, or not all finished`);
    return out;
  } finally {
    await browser.close().catch(() => undefined);
    await server?.close().catch(() => undefined);
    await core?.close().catch(() => undefined);
  }
}

/** The phases as a table (the targets: the window's loop under 50 ms). */
export function renderWindowTable(ps: readonly WindowPhase[]): string {
  const lines = [
    '',
    'The window while content moves (target: its event loop under 50 ms)',
    '| phase | s | window timer late p99 / max (ms) | window long tasks (n, max ms) | UI process loop p99 / max (ms) | search typed: n, p50 / max (ms) |',
    '|---|---|---|---|---|---|',
  ];
  for (const p of ps)
    lines.push(
      `| ${p.phase} | ${p.sec} | ${p.windowLagMs.p99} / ${p.windowLagMs.max}${p.windowLagMs.max < 50 ? ' ✓' : ' ✗'} | ${p.longTasks.count}, ${p.longTasks.maxMs} | ${p.appLoopMs.p99} / ${p.appLoopMs.max} | ${p.searchMs.n}, ${p.searchMs.p50} / ${p.searchMs.max} |`,
    );
  return lines.join('\n');
}
