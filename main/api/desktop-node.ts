/**
 * Open and reveal without Electron (browser mode): the platform's own opener, detached, with
 * the path as one argument (never through a shell). Linux has no portable "reveal", so it
 * opens the containing folder.
 */
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import type { DesktopPort } from './ports.js';

function launch(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
    child.once('error', reject);
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}

/**
 * Open and reveal with one given command (the path as its one argument): what
 * `NAS_MIRROR_OPENER` names for the command line, so tests record what would be opened.
 */
export function commandDesktop(cmd: string): DesktopPort {
  return { open: (p) => launch(cmd, [p]), reveal: (p) => launch(cmd, [dirname(p)]) };
}

export function nodeDesktop(platform: NodeJS.Platform = process.platform): DesktopPort {
  if (platform === 'darwin') return { open: (p) => launch('open', [p]), reveal: (p) => launch('open', ['-R', p]) };
  if (platform === 'win32') return { open: (p) => launch('explorer.exe', [p]), reveal: (p) => launch('explorer.exe', [`/select,${p}`]) };
  return { open: (p) => launch('xdg-open', [p]), reveal: (p) => launch('xdg-open', [dirname(p)]) };
}
