/**
 * The release workflow is well-formed (CI here cannot run Electron or reach the internet, so
 * it is checked, not run): valid YAML, triggers, a Linux/Windows/macOS matrix, every step
 * either `run` or a version-pinned `uses`, and the steps the release needs in order
 * (npm ci, npm test, npm run dist, the Electron smoke test, upload of the installers). The
 * smoke script parses and finds each OS's packaged executable.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';

interface Step { name?: string; uses?: string; run?: string; with?: Record<string, unknown>; if?: string }
interface Job { 'runs-on': string; steps: Step[]; needs?: string; strategy?: { matrix: { include: Record<string, string>[] } } }
interface Workflow { name: string; on: Record<string, unknown>; jobs: Record<string, Job> }

const wf = load(readFileSync('.github/workflows/release.yml', 'utf8')) as Workflow;

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
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['dist']).toContain('electron-builder');
    expect(pkg.scripts['test']).toBeDefined();
  });

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
