/**
 * Where the app keeps its data when nobody says otherwise: the same folder Electron's
 * `userData` uses for this app, so the window app and headless browser mode share state.
 * Linux `$XDG_CONFIG_HOME/nas-mirror`, macOS `~/Library/Application Support/nas-mirror`,
 * Windows `%APPDATA%\nas-mirror`. `NAS_MIRROR_HOME` overrides it.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export const APP_DIR_NAME = 'nas-mirror';

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env['NAS_MIRROR_HOME']) return env['NAS_MIRROR_HOME'];
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_DIR_NAME);
  if (platform === 'win32') return join(env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), APP_DIR_NAME);
  return join(env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config'), APP_DIR_NAME);
}
