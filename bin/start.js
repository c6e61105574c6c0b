#!/usr/bin/env node
// `npm start`: the desktop app. With Electron's binary present, bundles the app (esbuild)
// and opens the window. Without it (an offline machine: the binary is fetched on first
// run), says so and runs the same engine headless in browser mode, printing the UI's URL.
// Either way, a fresh data folder first asks: connect your NAS, or try the demo.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const retryElectron = process.argv.includes('--retry-electron');
const args = process.argv.slice(2).filter((a) => a !== '--retry-electron');

// A failed download of Electron's binary is remembered (in the app's data folder, as
// main/settings/app-dirs.ts places it) and not tried again at every start: only when
// `npm start -- --retry-electron` asks, or the electron version changes.
function dataDir() {
  if (process.env.NAS_MIRROR_HOME) return resolve(process.env.NAS_MIRROR_HOME);
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'nas-mirror');
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'nas-mirror');
  return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'nas-mirror');
}
const FAILED = join(dataDir(), 'electron-download-failed.json');

function electronBinary() {
  const require = createRequire(import.meta.url);
  let pkgDir;
  try {
    pkgDir = dirname(require.resolve('electron/package.json'));
  } catch {
    return { reason: 'the electron package is not installed' };
  }
  // Already downloaded?
  const pathFile = join(pkgDir, 'path.txt');
  if (existsSync(pathFile)) {
    const p = join(pkgDir, 'dist', readFileSync(pathFile, 'utf8').trim());
    if (existsSync(p)) return { path: p };
  }
  if (process.env.NAS_MIRROR_NO_ELECTRON_DOWNLOAD)
    return { reason: "Electron's binary is not downloaded and NAS_MIRROR_NO_ELECTRON_DOWNLOAD is set" };
  const version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
  if (!retryElectron) {
    try {
      const before = JSON.parse(readFileSync(FAILED, 'utf8'));
      if (before.version === version)
        return {
          reason: `downloading its binary failed on ${before.at.slice(0, 10)} (${before.why}); "npm start -- --retry-electron" tries again`,
        };
    } catch {
      /* never failed, or another version: try */
    }
  }
  // electron >= 42 downloads its binary on first require, printing the downloader's stack
  // trace when offline; run its installer here instead, keeping only its first error line.
  process.stderr.write("Downloading Electron's binary (first start only)…\n");
  const r = spawnSync(process.execPath, [join(pkgDir, 'install.js')], {
    cwd: pkgDir,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (existsSync(pathFile)) {
    const p = join(pkgDir, 'dist', readFileSync(pathFile, 'utf8').trim());
    if (existsSync(p)) {
      rmSync(FAILED, { force: true });
      return { path: p };
    }
  }
  const why =
    (r.stderr ?? '')
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '' && !l.startsWith('at ')) ?? `exit ${r.status}`;
  try {
    mkdirSync(dirname(FAILED), { recursive: true });
    writeFileSync(FAILED, JSON.stringify({ version, at: new Date().toISOString(), why }));
  } catch {
    /* remembering is a courtesy */
  }
  return { reason: `its binary is not installed and could not be downloaded: ${why} (offline?)` };
}

/**
 * The native modules built for Electron's ABI, apart from node_modules (which stays built for
 * Node, for the command lines and tests): copied to a cache folder once per Electron version
 * and rebuilt there with @electron/rebuild (prebuilt binaries when published, else a source
 * build). The bundles load natives from NAS_MIRROR_NATIVE_DIR when it is set.
 */
async function electronNatives() {
  const require = createRequire(import.meta.url);
  const version = JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version;
  const dir = join(ROOT, 'node_modules', '.cache', 'nas-mirror-electron-natives', version);
  const mods = ['better-sqlite3', 'keytar'];
  if (!existsSync(join(dir, 'ready'))) {
    process.stderr.write(`Building the native modules for Electron ${version} (first start only)…\n`);
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    const deps = {};
    for (const m of mods) {
      cpSync(join(ROOT, 'node_modules', m), join(dir, 'node_modules', m), { recursive: true, dereference: true });
      deps[m] = JSON.parse(readFileSync(join(ROOT, 'node_modules', m, 'package.json'), 'utf8')).version;
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'nas-mirror-electron-natives', private: true, dependencies: deps }));
    const { rebuild } = await import('@electron/rebuild');
    await rebuild({ buildPath: dir, electronVersion: version, onlyModules: mods, force: true });
    writeFileSync(join(dir, 'ready'), `${new Date().toISOString()}\n`);
  }
  return join(dir, 'node_modules');
}

const electron = args.includes('--headless') ? { reason: '--headless was given' } : electronBinary();
const { buildApp, buildRenderer } = await import('../build/bundle.mjs');
if (electron.path) {
  await buildRenderer();
  await buildApp();
  const nativeDir = await electronNatives();
  const child = spawn(electron.path, [ROOT, ...args], { stdio: 'inherit', env: { ...process.env, NAS_MIRROR_NATIVE_DIR: nativeDir } });
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
} else {
  process.stderr.write(
    `Electron is not available here (${electron.reason}).\nRunning the same engine headless; the window opens in your browser instead.\n`,
  );
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../main/cli/main.ts');
  const rest = args.filter((a) => a !== '--headless');
  process.exitCode = await main(['ui', ...rest], {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
  });
}
