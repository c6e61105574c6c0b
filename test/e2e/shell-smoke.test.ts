/**
 * The bundled Electron main process (dist/main/shell/main.cjs) run by Node with a recorded
 * stand-in for `electron` (test/e2e/fake-electron.cjs), since Electron's binary cannot be
 * had here. Real engine, real embedded service child, real IPC handler: the window's
 * security options, the IPC sender and argument checks, search over IPC, the tray, and a
 * clean Quit.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const home = mkdtempSync(join(tmpdir(), 'nm-shell-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

type Reply = {
  ok: boolean;
  error?: { code: string; message: string };
  result?: Record<string, unknown> & { via?: string; matches?: unknown[] };
};
interface Smoke {
  userData: string;
  webPreferences: Record<string, unknown> & { preload: string };
  url: string;
  trayImage: string;
  trayMenu: string[];
  trayDestroyed: boolean;
  exitCode: number;
  utility?: { entry: string; serviceName: string };
  calls: { status: Reply; badArgs: Reply; unknown: Reply; stranger: Reply; iframe: Reply; setUp: Reply; search: Reply };
}

describe('Electron main process (bundled), with a stand-in electron module', () => {
  it('opens a locked-down window, answers only its own page over IPC, and quits cleanly', () => {
    const build = spawnSync(process.execPath, ['build/bundle.mjs', 'all'], { encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
    const r = spawnSync(process.execPath, ['-r', './test/e2e/fake-electron.cjs', 'dist/main/shell/main.cjs'], {
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, NAS_MIRROR_HOME: home, NAS_MIRROR_LOG_LEVEL: 'error' },
    });
    const line = r.stdout.split('\n').find((l) => l.startsWith('SMOKE '));
    expect(line, r.stderr).toBeDefined();
    const s = JSON.parse(line!.slice(6)) as Smoke;
    expect(r.status).toBe(0);
    expect(s.userData).toBe(home);
    expect(s.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false });
    expect(s.webPreferences.preload).toMatch(/dist\/main\/shell\/preload\.cjs$/);
    expect(s.url).toMatch(/^file:\/\/.*\/dist\/renderer\/index\.html$/);
    const calls = s.calls;
    expect(calls.status.ok).toBe(true);
    expect(calls.status.result?.connection).toBe('unconfigured'); // a fresh data folder: the window asks first
    expect(calls.badArgs).toEqual({ ok: false, error: { code: 'BadRequest', message: 'args.q: expected a string' } });
    expect(calls.unknown.ok).toBe(false);
    expect(calls.stranger).toEqual({ ok: false, error: { code: 'Forbidden', message: 'untrusted sender' } });
    expect(calls.iframe.ok).toBe(false);
    expect(calls.setUp.ok).toBe(true);
    expect(calls.search.ok).toBe(true);
    expect(calls.search.result?.matches?.length).toBeGreaterThan(0);
    expect(s.trayImage).toMatch(/dist\/icons\/tray\/\w+\.png$/);
    expect(s.trayMenu).toEqual(
      expect.arrayContaining([
        'Open NAS Mirror',
        'Search…',
        'Open mirror folder',
        'Sync now',
        'Pause sync',
        'Recent activity',
        'Quit NAS Mirror',
      ]),
    );
    expect(s.trayDestroyed).toBe(true);
    expect(s.exitCode).toBe(0);
    // the engine ran in its own (utility) process, from the bundled entry
    expect(s.utility?.entry).toMatch(/dist\/main\/host\/engine-entry\.cjs$/);
  }, 120_000);
});
