#!/usr/bin/env node
// `npm run dist:dir` here, offline: electron-builder's unpacked Linux app with a stub
// `electronDist` (an `electron` executable stub plus resources/), since Electron's binary
// cannot be downloaded on this machine, and no native rebuild (it would download headers).
// On a machine with internet, `npm run dist` builds the real installers instead.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// in the checkout, not in node_modules (which may be shared between checkouts)
const stub = join(ROOT, '.cache', 'nas-mirror-electron-stub');
mkdirSync(join(stub, 'resources'), { recursive: true });
const exe = join(stub, 'electron');
if (!existsSync(exe)) {
  writeFileSync(exe, '#!/bin/sh\necho "electron stub: the real Electron binary is not available on this machine" >&2\nexit 1\n');
  chmodSync(exe, 0o755);
}
writeFileSync(join(stub, 'version'), JSON.parse((await import('node:fs')).readFileSync(join(ROOT, 'node_modules', 'electron', 'package.json'), 'utf8')).version);
const bin = join(ROOT, 'node_modules', '.bin', 'electron-builder');
const r = spawnSync(bin, ['--linux', 'dir', '--config', 'electron-builder.yml', `-c.electronDist=${stub}`, '-c.npmRebuild=false', '--publish', 'never'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ELECTRON_BUILDER_OFFLINE: '1' } });
process.exit(r.status ?? 1);
