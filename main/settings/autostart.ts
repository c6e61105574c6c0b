/**
 * Start at login on Linux: an XDG autostart entry (`$XDG_CONFIG_HOME/autostart/*.desktop`),
 * since Electron's login-item API covers only macOS and Windows. The Exec line quotes its
 * arguments per the Desktop Entry spec.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Start at login: macOS/Windows login items, or an XDG autostart entry on Linux. */
export interface LoginItemPort {
  readonly supported: boolean;
  get(): boolean;
  set(enabled: boolean): void;
}

const quote = (arg: string): string => (/^[A-Za-z0-9_./:=-]+$/.test(arg) ? arg : `"${arg.replace(/(["`$\\])/g, '\\$1')}"`);

/** The text of the autostart entry for `exec` with `args`. */
export function desktopEntry(exec: string, args: readonly string[] = []): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=NAS Mirror',
    'Comment=Keep a searchable mirror of your NAS',
    `Exec=${[exec, ...args].map(quote).join(' ')}`,
    'X-GNOME-Autostart-enabled=true',
    'Terminal=false',
    '',
  ].join('\n');
}

export function xdgAutostart(opts: { exec: string; args?: string[]; configHome?: string; name?: string }): LoginItemPort {
  const dir = join(opts.configHome ?? process.env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config'), 'autostart');
  const file = join(dir, `${opts.name ?? 'nas-mirror'}.desktop`);
  return {
    supported: true,
    get: () => existsSync(file),
    set(enabled) {
      if (!enabled) {
        rmSync(file, { force: true });
        return;
      }
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, desktopEntry(opts.exec, opts.args ?? []), { mode: 0o644 });
    },
  };
}

/** Where no login-item mechanism exists (or in tests): off, and says so. */
export const noLoginItem: LoginItemPort = { supported: false, get: () => false, set: () => undefined };
