/** Start at login: Electron's login items on macOS/Windows, an XDG autostart file on Linux. */
import { app } from 'electron';
import type { LoginItemPort } from '../api/ports.js';
import { xdgAutostart } from '../settings/autostart.js';

export function electronLoginItem(): LoginItemPort {
  if (process.platform === 'linux') {
    const appImage = process.env['APPIMAGE'];
    return xdgAutostart({ exec: appImage ?? process.execPath, args: ['--hidden'] });
  }
  return {
    supported: true,
    get: () => app.getLoginItemSettings().openAtLogin,
    set: (enabled) => app.setLoginItemSettings({ openAtLogin: enabled, args: ['--hidden'] }),
  };
}
