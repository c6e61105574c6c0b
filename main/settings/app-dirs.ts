/**
 * Where the app keeps its data when nobody says otherwise: the same folder Electron's
 * `userData` uses for this app, so the window app and headless browser mode share state.
 * Linux `$XDG_CONFIG_HOME/nas-mirror`, macOS `~/Library/Application Support/nas-mirror`,
 * Windows `%APPDATA%\nas-mirror`. `NAS_MIRROR_HOME` overrides it; a relative one is taken from
 * the current folder, in full (Electron's `userData` takes only a full path, and the command
 * line says it back so). New mirrors go to a visible `~/NAS` when the data folder is the
 * default one, else to `<data folder>/mirror`.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isFreeFolder } from './folders.js';

export const APP_DIR_NAME = 'nas-mirror';

/**
 * The repository (or app) root, where bin/, build/, dist/ and package.json are: the nearest
 * folder above this code that holds a package.json. From the sources that is two levels up; from
 * a bundle (dist/main/<part>/, or inside the app's asar) three.
 */
export const PROJECT_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)));

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return resolve(from, '..', '..');
  }
}

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env['NAS_MIRROR_HOME']) return resolve(env['NAS_MIRROR_HOME']);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_DIR_NAME);
  if (platform === 'win32') return join(env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), APP_DIR_NAME);
  return join(env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config'), APP_DIR_NAME);
}

/** Where a new mirror goes by default (before a free name is picked): see the header. */
export function mirrorBase(dataDir: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return !env['NAS_MIRROR_HOME'] && dataDir === defaultDataDir(env, platform) ? join(homedir(), 'NAS') : join(dataDir, 'mirror');
}

/** The first free (absent or empty) folder among `base`, `base-2`, `base-3`... */
export function freeMirrorFolder(base: string, free: (dir: string) => boolean = isFreeFolder): string {
  if (free(base)) return base;
  for (let i = 2; i < 1000; i++) if (free(`${base}-${i}`)) return `${base}-${i}`;
  return `${base}-${Date.now()}`;
}
