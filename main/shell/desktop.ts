/** Open, reveal and open-in-browser (the NAS's sign-in page) through Electron's shell module. */
import { shell } from 'electron';
import { AppError } from '../../app/errors.js';
import type { DesktopPort } from '../api/ports.js';

export const electronDesktop: DesktopPort = {
  async open(path) {
    const err = await shell.openPath(path);
    if (err) throw new AppError('NotFound', `cannot open ${path}: ${err}`);
  },
  async reveal(path) {
    shell.showItemInFolder(path);
  },
  async openExternal(url) {
    // Only the NAS's login page: never a file: or custom-scheme URL.
    if (!/^https?:\/\//i.test(url)) throw new AppError('BadRequest', 'only http(s) pages are opened in the browser');
    await shell.openExternal(url);
  },
};
