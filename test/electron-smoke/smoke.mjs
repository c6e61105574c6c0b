// Electron smoke test for the release workflow (.github/workflows/release.yml), run on real
// Linux/Windows/macOS runners where Electron exists (it cannot be downloaded here):
// launch the PACKAGED app (found under the electron-builder output folder) with Playwright's
// Electron support on a fresh data folder, take the demo NAS the first start offers, wait
// for the window, search the demo library in it, then quit through the app and check a
// clean exit. `--headless` runs the same window steps against browser mode (`npm start --
// --headless` in Chromium, stopped with SIGINT): that is what runs on this machine
// (test/release-workflow.test.ts), so the script's steps are checked even where Electron is not.
// Usage: node test/electron-smoke/smoke.mjs --packaged release | --headless   (or no argument: `electron .`)
import { _electron as electron, chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The packaged executable electron-builder left in `dir` for this OS. */
export function findPackaged(dir, platform = process.platform) {
  const subs = existsSync(dir) ? readdirSync(dir) : [];
  for (const s of subs) {
    if (platform === 'linux' && /^linux(-\w+)?-unpacked$/.test(s)) return join(dir, s, 'nas-mirror');
    if (platform === 'win32' && /^win(-\w+)?-unpacked$/.test(s)) return join(dir, s, 'NAS Mirror.exe');
    if (platform === 'darwin' && /^mac(-\w+)?$/.test(s)) return join(dir, s, 'NAS Mirror.app', 'Contents', 'MacOS', 'NAS Mirror');
  }
  throw new Error(`no packaged app for ${platform} in ${dir} (found: ${subs.join(', ') || 'nothing'})`);
}

/**
 * The window's part of the smoke test, the same in Electron and in a browser: a fresh data
 * folder asks first ("Try the demo"), then the demo library is searched until it answers.
 * Returns the number of results for "IMG".
 */
export async function exercise(win) {
  await win.locator('#setup-demo:visible, #search-input:visible').first().waitFor({ timeout: 120_000 });
  if (await win.locator('#setup-demo').isVisible()) await win.click('#setup-demo');
  // the demo NAS starts as a child (its own start may take up to a minute on a loaded machine)
  await win.waitForSelector('#search-input', { state: 'visible', timeout: 120_000 }).catch(async (e) => {
    // say what the welcome said (an error next to the button, or still busy), not only "hidden"
    const said = await win
      .locator('#setup-busy')
      .innerText({ timeout: 1_000 })
      .catch(() => '?');
    throw new Error(
      `the window stayed on the welcome after "Try the demo" (it says: ${JSON.stringify(said)}): ${e instanceof Error ? e.message : String(e)}`,
    );
  });
  // the embedded demo NAS is walked on first start; search until it answers
  const deadline = Date.now() + 120_000;
  let n = 0;
  while (Date.now() < deadline) {
    await win.fill('#search-input', 'IMG', { timeout: 30_000 }).catch(async (e) => {
      // say where the window was (set-up mode, which view, the header's words), not only "not visible"
      const where = await win
        .evaluate(() => ({ ...document.body.dataset, hash: location.hash, header: document.querySelector('header')?.textContent }))
        .catch(() => '?');
      throw new Error(
        `the search field went away while the demo was searched (${JSON.stringify(where)}): ${e instanceof Error ? e.message : String(e)}`,
      );
    });
    await win
      .locator('#results li')
      .first()
      .waitFor({ timeout: 2_000 })
      .catch(() => undefined);
    n = await win.locator('#results li').count();
    if (n > 0) break;
  }
  if (n === 0) throw new Error('the demo search gave no result');
  return n;
}

/** Browser mode: `bin/start.js --headless` on a fresh data folder, its window in Chromium, then SIGINT. */
async function headless(home) {
  const child = spawn(process.execPath, ['bin/start.js', '--headless'], {
    env: { ...process.env, NAS_MIRROR_HOME: home, NAS_MIRROR_NO_ELECTRON_DOWNLOAD: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((done) => child.once('exit', (c, signal) => done(c ?? (signal ? 1 : 0))));
  let out = '';
  const url = await new Promise((found, fail) => {
    child.stdout.on('data', (d) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/ui\/\S+\/)/.exec(out);
      if (m) found(m[1]);
    });
    child.once('exit', () => fail(new Error(`browser mode exited before printing its URL: ${out}`)));
  });
  let n = 0;
  try {
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      await page.goto(url);
      n = await exercise(page).catch(async (e) => {
        if (process.env.SMOKE_SHOT) await page.screenshot({ path: process.env.SMOKE_SHOT }).catch(() => undefined);
        throw e;
      });
    } finally {
      await browser.close();
    }
  } finally {
    child.kill('SIGINT');
    await exited; // its data folder is removed only once it has stopped writing
  }
  return { n, code: await exited };
}

async function main() {
  const at = process.argv.indexOf('--packaged');
  const home = mkdtempSync(join(tmpdir(), 'nm-smoke-'));
  let code = 1;
  try {
    if (process.argv.includes('--headless')) {
      const r = await headless(home);
      code = r.code;
      console.log(`smoke (browser mode): window opened, ${r.n} results for "IMG", stopped with exit code ${code}`);
    } else {
      code = await inElectron(at >= 0 ? findPackaged(resolve(process.argv[at + 1] ?? 'release')) : undefined, home);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  process.exitCode = code === 0 ? 0 : 1;
}

/** The packaged app (or `electron .`) with Playwright's Electron support; its exit code. */
async function inElectron(executablePath, home) {
  const env = { ...process.env, NAS_MIRROR_HOME: home };
  const app = executablePath
    ? await electron.launch({ executablePath, env, timeout: 120_000 })
    : await electron.launch({ args: ['.'], env, timeout: 120_000 });
  try {
    const win = await app.firstWindow({ timeout: 120_000 });
    const n = await exercise(win);
    const exited = new Promise((done) => app.process().once('exit', (c) => done(c ?? 0)));
    await app.evaluate(({ app: a }) => a.quit());
    const code = await exited;
    console.log(`smoke: window opened, ${n} results for "IMG", quit with exit code ${code}`);
    return code;
  } finally {
    await app.close().catch(() => undefined);
  }
}

if (process.argv[1] && /smoke\.mjs$/.test(process.argv[1])) await main();
