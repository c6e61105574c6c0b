// Electron smoke test for the release workflow (.github/workflows/release.yml), run on real
// Linux/Windows/macOS runners where Electron exists (it cannot be downloaded here):
// launch the PACKAGED app (found under the electron-builder output folder) with Playwright's
// Electron support on a fresh data folder (so it starts the embedded demo NAS), wait for the
// window, search the demo library in it, then quit through the app and check a clean exit.
// Usage: node test/electron-smoke/smoke.mjs --packaged release   (or no argument: `electron .`)
import { _electron as electron } from 'playwright-core';
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

async function main() {
  const at = process.argv.indexOf('--packaged');
  const home = mkdtempSync(join(tmpdir(), 'nm-smoke-'));
  const env = { ...process.env, NAS_MIRROR_HOME: home };
  const app = at >= 0
    ? await electron.launch({ executablePath: findPackaged(resolve(process.argv[at + 1] ?? 'release')), env, timeout: 120_000 })
    : await electron.launch({ args: ['.'], env, timeout: 120_000 });
  let code = 1;
  try {
    const win = await app.firstWindow({ timeout: 120_000 });
    await win.waitForSelector('#search-input', { timeout: 60_000 });
    // the embedded demo NAS is walked on first start; search until it answers
    const deadline = Date.now() + 120_000;
    let n = 0;
    while (Date.now() < deadline) {
      await win.fill('#search-input', 'IMG');
      await win.waitForTimeout(500);
      n = await win.locator('#results li').count();
      if (n > 0) break;
    }
    if (n === 0) throw new Error('the demo search gave no result in the packaged app');
    const exited = new Promise((done) => app.process().once('exit', (c) => done(c ?? 0)));
    await app.evaluate(({ app: a }) => a.quit());
    code = await exited;
    console.log(`smoke: window opened, ${n} results for "IMG", quit with exit code ${code}`);
  } finally {
    await app.close().catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  }
  process.exitCode = code === 0 ? 0 : 1;
}

if (process.argv[1] && /smoke\.mjs$/.test(process.argv[1])) await main();
