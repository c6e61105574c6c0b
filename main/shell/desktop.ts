/** Open and reveal through Electron's shell module. */
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
};
