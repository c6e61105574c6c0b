/**
 * `npm run dist:dir` here (stub electronDist, no native rebuild) produces an unpacked Linux
 * app whose app.asar holds the bundled main process, preload, window and embedded service,
 * and the production dependencies (natives unpacked), and nothing from test/, bench/,
 * sources or the dev toolchain.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { extractFile, listPackage } from '@electron/asar';
import { describe, expect, it } from 'vitest';
import { FOLDER_MIME } from '../../app/model/remote-object.js';
import { workerScript } from '../../main/index/build.js';
import { loadIndex } from '../../main/index/persist.js';
import { MirrorStore } from '../../main/mirror/store.js';
import { openStateDb } from '../../main/state/db.js';

const ROOT = process.cwd();
const OUT = join(ROOT, 'release', 'linux-unpacked');

describe('npm run dist:dir', () => {
  it('packs main, preload, renderer and the production dependencies, and nothing else', async () => {
    const r = spawnSync('npm', ['run', 'dist:dir'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const asarPath = join(OUT, 'resources', 'app.asar');
    const files = listPackage(asarPath, { isPack: false }).map((f) => f.replaceAll('\\', '/'));
    for (const f of [
      '/package.json',
      '/dist/main/shell/main.cjs',
      '/dist/main/shell/preload.cjs',
      '/dist/main/host/engine-entry.cjs',
      '/dist/main/index/build-worker.cjs',
      '/dist/renderer/index.html',
      '/dist/renderer/app.js',
      '/dist/renderer/style.css',
      '/dist/server/nas-service.mjs',
      '/dist/main/cli/nas-mirror.mjs',
      '/dist/icons/tray/attention.png',
    ]) {
      expect(files, f).toContain(f);
    }
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
    const devOnly = new Set(['tsx']); // runs the source checkout's command lines; the app is bundled
    for (const dep of Object.keys(pkg.dependencies).filter((d) => !devOnly.has(d))) {
      expect(
        files.some((f) => f.startsWith(`/node_modules/${dep}/`)),
        dep,
      ).toBe(true);
    }
    for (const native of ['better-sqlite3/build/Release/better_sqlite3.node', 'keytar/build/Release/keytar.node']) {
      expect(existsSync(join(OUT, 'resources', 'app.asar.unpacked', 'node_modules', native)), native).toBe(true);
    }
    const forbidden = files.filter(
      (f) =>
        /^\/(test|bench|app|main|renderer|server|docs|build)\//.test(f) ||
        /\.test\.[cm]?[jt]s$/.test(f) ||
        /\/node_modules\/(electron|electron-builder|vitest|playwright-core|typescript|esbuild|tsx)\//.test(f) ||
        f.endsWith('.ts') ||
        f.endsWith('.map'),
    );
    expect(forbidden).toEqual([]);
    const packaged = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { main: string };
    expect(files).toContain(`/${packaged.main}`);
    // the packed main bundle is valid JavaScript for Node (Electron's main process runs it)
    const main = join(mkdtempSync(join(tmpdir(), 'nm-pack-')), 'main.cjs');
    writeFileSync(main, extractFile(asarPath, packaged.main));
    expect(spawnSync(process.execPath, ['--check', main]).status).toBe(0);
    rmSync(dirname(main), { recursive: true, force: true });
    await bundledWorkerBuilds();
    bundledCommandLinesRun(pkg.version);
  }, 180_000);
});

/**
 * Both command lines run from their bundles, three folders below package.json where the
 * sources are two (the service's bundle read dist/package.json for its version before s30).
 */
function bundledCommandLinesRun(version: string): void {
  for (const [bundle, name] of [
    ['dist/main/cli/nas-mirror.mjs', 'nas-mirror'],
    ['dist/server/nas-service.mjs', 'nas-service'],
  ] as const) {
    const r = spawnSync(process.execPath, [join(ROOT, bundle), '--version'], { encoding: 'utf8', cwd: tmpdir() });
    expect({ status: r.status, out: r.stdout, err: r.stderr }, bundle).toEqual({ status: 0, out: `${name} ${version}\n`, err: '' });
  }
}

/**
 * The app ships no tsx: its engine bundle starts the bundled index worker (one folder up,
 * `workerScript`), which builds and saves a real store's index (before, every build fell back
 * to the engine's own thread).
 */
async function bundledWorkerBuilds(): Promise<void> {
  const { script, evaluated } = workerScript(pathToFileURL(join(ROOT, 'dist', 'main', 'host', 'engine-entry.cjs')).href);
  expect(evaluated).toBe(false);
  expect(fileURLToPath(script)).toBe(join(ROOT, 'dist', 'main', 'index', 'build-worker.cjs'));
  const stateDir = mkdtempSync(join(tmpdir(), 'nm-worker-'));
  try {
    const db = openStateDb(stateDir);
    const store = new MirrorStore(db);
    const obj = { eTag: '"Ag"', mTime: '2020-01-01T00:00:00Z', cTime: '2020-01-01T00:00:00Z', hidden: 'none' as const };
    store.setRoot({ ...obj, id: 'r', parentID: '', name: 'home', mimeType: FOLDER_MIME });
    store.apply([
      { kind: 'added', after: { ...obj, id: 'a', parentID: 'r', name: 'holiday.jpg', mimeType: 'image/jpeg' } },
      { kind: 'added', after: { ...obj, id: 'b', parentID: 'r', name: 'notes.txt', mimeType: 'text/plain' } },
    ]);
    const reply = await new Promise<unknown>((resolve, reject) => {
      const w = new Worker(script, { workerData: { stateDir, parts: { index: true, vocabulary: true } } });
      // (its progress comes first: `{progress}` messages, then the outcome)
      const seen: number[] = [];
      w.on('message', (m: { progress?: number }) => {
        if (m.progress !== undefined) {
          seen.push(m.progress);
          return;
        }
        resolve({ ...m, told: seen.length > 0 && seen.every((p, i) => p >= 0 && p < 1 && (i === 0 || p > seen[i - 1]!)) });
        void w.terminate();
      });
      w.once('error', reject);
    });
    expect(reply).toEqual({ ok: true, told: true });
    expect(loadIndex(stateDir)).toMatchObject({ generation: store.generation(), base: { n: 2 } });
    db.close();
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}
