/**
 * The release workflow is well-formed (CI here cannot run Electron or reach the internet, so
 * it is checked, not run): valid YAML, triggers, a Linux/Windows/macOS matrix, every step
 * either `run` or a version-pinned `uses`, and the steps the release needs in order
 * (npm ci, npm test, npm run dist, the Electron smoke test, upload of the installers). What
 * can run here does: every command it names exists (npm scripts, files), the packaging
 * config agrees with it (output folder, targets, icons, the bundles it packs), and the smoke
 * script's window steps run against browser mode (`--headless`) and pass. The smoke script
 * finds each OS's packaged executable. (`npm run dist:dir`, the packaging that runs here, is
 * test/e2e/packaging.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  if?: string;
}
interface Job {
  'runs-on': string;
  steps: Step[];
  needs?: string;
  strategy?: { matrix: { include: Record<string, string>[] } };
}
interface Workflow {
  name: string;
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
}
interface BuilderConfig {
  directories: { output: string };
  extraMetadata: { main: string };
  files: string[];
  linux: { target: string[]; icon: string };
  win: { target: string[]; icon: string };
  mac: { target: string[]; icon: string };
}

const wf = load(readFileSync('.github/workflows/release.yml', 'utf8')) as Workflow;
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string>; main: string };
const builder = load(readFileSync('electron-builder.yml', 'utf8')) as BuilderConfig;
/** Every `run` line of every job, with the matrix's values put in (each matrix entry once). */
const runLines = (): string[] =>
  Object.values(wf.jobs).flatMap((job) => {
    const entries = job.strategy?.matrix.include ?? [{}];
    return job.steps.flatMap((s) =>
      s.run ? entries.map((m) => s.run!.replace(/\$\{\{\s*matrix\.(\w+)\s*\}\}/g, (_, k: string) => m[k] ?? '')) : [],
    );
  });

describe('.github/workflows/release.yml', () => {
  it('runs on version tags and by hand, on Linux, Windows and macOS', () => {
    expect(wf.name).toBe('release');
    expect(wf.on).toHaveProperty('workflow_dispatch');
    expect((wf.on['push'] as { tags: string[] }).tags).toContain('v*');
    const build = wf.jobs['build']!;
    expect(build['runs-on']).toBe('${{ matrix.os }}');
    expect(build.strategy!.matrix.include.map((m) => m['os'])).toEqual(['ubuntu-latest', 'windows-latest', 'macos-latest']);
    expect(build.strategy!.matrix.include.map((m) => m['targets'])).toEqual(['--linux AppImage deb', '--win nsis', '--mac dmg']);
  });

  it('has well-formed steps: a run or a pinned action each', () => {
    for (const [name, job] of Object.entries(wf.jobs)) {
      expect(Array.isArray(job.steps), name).toBe(true);
      for (const s of job.steps) {
        expect(Boolean(s.run) !== Boolean(s.uses), `${name}: ${JSON.stringify(s)}`).toBe(true);
        if (s.uses) expect(s.uses, name).toMatch(/^[\w.-]+\/[\w.-]+@v\d+$/);
      }
    }
    expect(wf.jobs['publish']!.needs).toBe('build');
  });

  it('installs, tests, packages, smoke-tests the packaged app and uploads, in that order', () => {
    const runs = wf.jobs['build']!.steps.map((s) => s.run ?? s.uses ?? '');
    const at = (re: RegExp): number => runs.findIndex((r) => re.test(r));
    const order = [/^npm ci$/, /^npm test$/, /^npm run dist -- /, /smoke\.mjs --packaged release/, /upload-artifact/].map(at);
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(pkg.scripts['dist']).toContain('electron-builder');
    expect(pkg.scripts['test']).toBeDefined();
  });

  it('names only commands that exist: npm scripts in package.json, files in the repository', () => {
    const lines = runLines();
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      for (const m of line.matchAll(/\bnpm run ([\w:-]+)/g)) expect(pkg.scripts[m[1]!], `${line}: npm run ${m[1]}`).toBeDefined();
      for (const m of line.matchAll(/\bnode ([\w./-]+\.m?js)\b/g)) expect(existsSync(m[1]!), `${line}: ${m[1]}`).toBe(true);
    }
    // `npm test` and `npm ci` are npm's own; the test script runs the static checks too
    expect(pkg.scripts['test']).toMatch(/typecheck.*lint.*layers.*vitest run/);
    for (const s of (pkg.scripts['dist'] + ' && ' + pkg.scripts['build:app']).split('&&')) {
      const m = /^\s*node ([\w./-]+)/.exec(s);
      if (m) expect(existsSync(m[1]!), s).toBe(true);
    }
  });

  it('agrees with the packaging config: output folder, targets, icons, the bundles it packs', () => {
    expect(builder.directories.output).toBe('release');
    const build = wf.jobs['build']!;
    for (const m of build.strategy!.matrix.include)
      for (const a of m['artifacts']!.trim().split('\n')) expect(a.trim()).toMatch(/^release\/\*\.\w+$/);
    expect(builder.linux.target).toEqual(['AppImage', 'deb']);
    expect(builder.win.target).toEqual(['nsis']);
    expect(builder.mac.target).toEqual(['dmg']);
    for (const os of [builder.linux, builder.win, builder.mac]) expect(existsSync(os.icon), os.icon).toBe(true);
    // the packed app starts from the main-process bundle that build/bundle.mjs writes into dist/
    expect(builder.extraMetadata.main).toBe(pkg.main);
    expect(builder.files).toContain('dist/**/*');
    expect(readFileSync('build/bundle.mjs', 'utf8')).toContain(
      `outfile: join(ROOT, ${pkg.main
        .split('/')
        .map((p) => `'${p}'`)
        .join(', ')})`,
    );
  });

  it("runs the smoke script's window steps against browser mode: demo taken, searched, clean stop", () => {
    const r = spawnSync(process.execPath, ['test/electron-smoke/smoke.mjs', '--headless'], {
      env: { ...process.env, NAS_MIRROR_DEMO_OBJECTS: '300', NAS_MIRROR_VERBOSE: '1' },
      encoding: 'utf8',
      timeout: 330_000,
    });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/smoke \(browser mode\): window opened, \d+ results for "IMG", stopped with exit code 0/);
  }, 350_000);

  it('ships a smoke script that parses and finds the packaged app on each OS', async () => {
    expect(spawnSync(process.execPath, ['--check', 'test/electron-smoke/smoke.mjs']).status).toBe(0);
    const script = './electron-smoke/smoke.mjs';
    const { findPackaged } = (await import(script)) as { findPackaged: (dir: string, p: string) => string };
    const dir = mkdtempSync(join(tmpdir(), 'nm-release-'));
    try {
      for (const d of ['linux-unpacked', 'win-unpacked', 'mac-arm64']) mkdirSync(join(dir, d));
      expect(findPackaged(dir, 'linux')).toBe(join(dir, 'linux-unpacked', 'nas-mirror'));
      expect(findPackaged(dir, 'win32')).toBe(join(dir, 'win-unpacked', 'NAS Mirror.exe'));
      expect(findPackaged(dir, 'darwin')).toBe(join(dir, 'mac-arm64', 'NAS Mirror.app', 'Contents', 'MacOS', 'NAS Mirror'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
