/**
 * What the engine-side API needs from its host, so the same API runs inside Electron (shell
 * APIs) and headless (browser mode): opening and revealing a local file, and start at login.
 */

/** Opens or reveals local files in the desktop's file manager. */
export interface DesktopPort {
  open(path: string): Promise<void>;
  reveal(path: string): Promise<void>;
  /** Opens an http(s) URL in the system browser (Electron); absent in browser mode, where the page opens it. */
  openExternal?(url: string): Promise<void>;
}

/** Start at login (defined with its Linux implementation, main/settings/autostart.ts). */
export type { LoginItemPort } from '../settings/autostart.js';
