/**
 * `npm start` on this machine (no Electron binary): it says so, runs the same engine
 * headless and prints the window's URL; the window asks first, "Try the demo" starts the
 * embedded demo NAS (a child process) with search ready; Ctrl-C stops everything cleanly.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launchChromium, until } from './harness.js';

/** expect.poll with a deadline that tolerates a loaded machine (it asserts nothing about speed). */
const poll = <T>(fn: () => T | Promise<T>, o: { timeout?: number } = {}) => expect.poll(fn, { timeout: 20_000, interval: 50, ...o });

const home = mkdtempSync(join(tmpdir(), 'nm-start-'));
const profile = mkdtempSync(join(tmpdir(), 'nm-chromium-'));
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
});

describe('npm start without Electron', () => {
  it('falls back to browser mode on the embedded demo NAS, search ready', async () => {
    // Never download Electron from a test; where its binary exists, ask for the fallback.
    const electronDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
    const hasElectron = existsSync(join(electronDir, 'path.txt'));
    const child = spawn(process.execPath, ['bin/start.js', ...(hasElectron ? ['--headless'] : [])], {
      cwd: process.cwd(),
      env: { ...process.env, NAS_MIRROR_HOME: home, NAS_MIRROR_DEMO_OBJECTS: '300', NAS_MIRROR_NO_ELECTRON_DOWNLOAD: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '',
      err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    try {
      await until(() => /http:\/\/127\.0\.0\.1:\d+\/ui\/\S+\//.test(out), `the URL (stderr: ${err})`, 60_000);
      expect(err).toContain('Electron is not available here');
      const url = /(http:\/\/127\.0\.0\.1:\d+\/ui\/\S+\/)/.exec(out)![1]!;
      const browser = await launchChromium(profile);
      try {
        const page = await browser.newPage();
        await page.goto(url);
        // a fresh data folder asks first; the demo is one click
        await poll(() => page.locator('#welcome').isVisible(), { timeout: 30_000 }).toBe(true);
        await page.click('#setup-demo');
        await poll(() => page.locator('#conn-badge').textContent(), { timeout: 30_000 }).toBe('Online');
        await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('search-input');
        await until(
          async () => (await page.locator('#state-line').textContent())?.startsWith('Up to date') ?? false,
          'first walk done',
          30_000,
        );
        await page.keyboard.type('photo');
        await poll(() => page.locator('#results li').count(), { timeout: 15_000 }).toBeGreaterThan(0);
      } finally {
        await browser.close();
      }
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 120_000);

  it('a failed download of Electron is remembered: no new attempt at each start, and it says how to retry', async () => {
    const electronDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
    if (existsSync(join(electronDir, 'path.txt'))) return; // the binary is here: nothing to remember
    const version = (JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')) as { version: string }).version;
    const home2 = mkdtempSync(join(tmpdir(), 'nm-start2-'));
    writeFileSync(
      join(home2, 'electron-download-failed.json'),
      JSON.stringify({ version, at: '2026-01-02T03:04:05Z', why: 'getaddrinfo ENOTFOUND github.com' }),
    );
    const { NAS_MIRROR_NO_ELECTRON_DOWNLOAD: _skip, ...env } = process.env;
    const child = spawn(process.execPath, ['bin/start.js'], {
      cwd: process.cwd(),
      env: { ...env, NAS_MIRROR_HOME: home2 },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '',
      err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    try {
      await until(() => /http:\/\/127\.0\.0\.1:\d+\/ui\//.test(out), `the URL (stderr: ${err})`, 60_000);
      expect(err).not.toContain('Downloading');
      expect(err).toContain(
        'downloading its binary failed on 2026-01-02 (getaddrinfo ENOTFOUND github.com); "npm start -- --retry-electron" tries again',
      );
    } finally {
      child.kill('SIGINT');
      await exited;
      rmSync(home2, { recursive: true, force: true });
    }
  }, 90_000);
});
