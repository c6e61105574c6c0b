/**
 * The token in a REAL keychain: a child process under its own D-Bus session with an
 * unlocked gnome-keyring (toolchain.md recipe) stores, reads and deletes a token, and
 * `nas-mirror login` stores one that sync would read. Without any keychain, login says so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../..');
const child = join(here, 'keychain-child.ts');
const tsx = join(root, 'node_modules/.bin/tsx');

function has(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const haveDbus = has('dbus-run-session') && has('gnome-keyring-daemon');

describe('keychain', () => {
  it.skipIf(!haveDbus)('round-trips a token through gnome-keyring (Secret Service) and nas-mirror login', () => {
    const r = spawnSync(
      'dbus-run-session',
      ['--', 'sh', '-c', `echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "${tsx}" "${child}"`],
      { cwd: root, encoding: 'utf8', timeout: 60_000 },
    );
    const line = r.stdout.trim().split('\n').pop() ?? '';
    const out = JSON.parse(line) as Record<string, unknown>;
    expect(out).toMatchObject({ kind: 'os', got: 'tok-123', deleted: true, after: null, loginCode: 0, resolved: 'secret-token-xyz' });
    expect(String(out['loginOut'])).toContain('stored in the OS keychain');
    expect(String(out['loginOut']) + String(out['loginErr'])).not.toContain('secret-token-xyz');
    // nas-mirror login without a token flag: prints the login page, waits for the browser, keeps a refresh token
    expect(out).toMatchObject({ browserLoginCode: 0, storedKind: 'refresh', listed: true, rotatedInKeychain: true });
    expect(String(out['browserLoginOut'])).toContain('signed in');
    expect(String(out['browserPage'])).toContain('NAS Mirror is signed in');
  });

  it('says clearly when no keychain exists, and stores nothing', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus', DISPLAY: '' };
    const r = spawnSync(tsx, [child], { cwd: root, encoding: 'utf8', timeout: 60_000, env });
    const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    expect(out['kind']).toBe('memory');
    expect(out['loginCode']).toBe(1);
    expect(String(out['loginErr'])).toMatch(/no OS keychain|keytar could not load/);
    expect(String(out['loginErr'])).toContain('NOT stored');
  });
});
if (!haveDbus) console.warn('keychain round trip skipped: dbus-run-session or gnome-keyring-daemon is not installed');
