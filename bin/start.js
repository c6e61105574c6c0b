#!/usr/bin/env node
// `npm start`: the desktop app. With Electron's binary present, bundles the app (esbuild)
// and opens the window. Without it (an offline machine: the binary is fetched on first
// run), says so and runs the same engine headless in browser mode, printing the UI's URL.
// Either way, with nothing configured it starts the embedded demo NAS and mirrors it.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

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
  if (process.env.NAS_MIRROR_NO_ELECTRON_DOWNLOAD) return { reason: "Electron's binary is not downloaded and NAS_MIRROR_NO_ELECTRON_DOWNLOAD is set" };
  // electron >= 42 downloads its binary on first require; offline, that fails.
  try {
    const p = require('electron');
    if (typeof p === 'string' && existsSync(p)) return { path: p };
    return { reason: `electron resolved to ${String(p)}, which does not exist` };
  } catch {
    return { reason: "its binary is not installed and could not be downloaded (offline?)" };
  }
}

const electron = args.includes('--headless') ? { reason: '--headless was given' } : electronBinary();
const { buildApp, buildRenderer } = await import('../build/bundle.mjs');
if (electron.path) {
  await buildRenderer();
  await buildApp();
  const child = spawn(electron.path, [ROOT, ...args], { stdio: 'inherit' });
  child.on('exit', (code, signal) => { process.exitCode = code ?? (signal ? 1 : 0); });
} else {
  process.stderr.write(`Electron is not available here (${electron.reason}).\nRunning the same engine headless; the window opens in your browser instead.\n`);
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../main/cli/main.ts');
  const rest = args.filter((a) => a !== '--headless');
  process.exitCode = await main(['ui', ...rest], { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
}
