/**
 * The app's token path with a REAL keychain (gnome-keyring in its own D-Bus session, the
 * recipe of toolchain.md): stored from Settings, found again after a restart, forgotten on
 * request, never echoed back. The keychain module itself is tested in test/integration/mirror.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const has = (cmd: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const haveDbus = has('dbus-run-session') && has('gnome-keyring-daemon');
const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const child = join(process.cwd(), 'test', 'e2e', 'keychain-app-child.ts');

describe('token in the OS keychain, through the app', () => {
  it.skipIf(!haveDbus)(
    'is stored from Settings, survives a restart, and can be forgotten',
    () => {
      const r = spawnSync(
        'dbus-run-session',
        ['--', 'sh', '-c', `echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "${tsx}" "${child}"`],
        { encoding: 'utf8', timeout: 90_000 },
      );
      const line = r.stdout.trim().split('\n').pop() ?? '';
      expect(line, r.stderr).toMatch(/^\{/);
      expect(JSON.parse(line)).toEqual({
        stored: 'keychain',
        keychainAvailable: true,
        online1: 'online',
        afterRestart: 'keychain',
        online2: 'online',
        forgotten: 'none',
        leaked: false,
      });
    },
    120_000,
  );
});
