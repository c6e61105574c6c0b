/**
 * The mirror root's health. A marker file `.nas-mirror/marker` (like Syncthing's
 * `.stfolder`) tells "this is our mirror": a root that vanished, lost its marker (unmounted
 * disk, `rm -rf`) or was emptied pauses sync and is never read as "delete everything".
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESERVED_DIR } from '../local/local-names.js';

export const markerPath = (root: string): string => join(root, RESERVED_DIR, 'marker');

export type RootHealth = { ok: true } | { ok: false; reason: string };

/** Creates the root and its marker (first run, or the user asked to restore). */
export function initRoot(root: string): void {
  mkdirSync(join(root, RESERVED_DIR), { recursive: true });
  writeFileSync(markerPath(root), 'This folder is a NAS Mirror. Do not delete this file.\n');
}

/** Checks the root; `liveTopLevel` = how many top-level placeholders the model expects on disk. */
export function checkRoot(root: string, liveTopLevel: number): RootHealth {
  if (!existsSync(root)) return { ok: false, reason: `the mirror folder ${root} is missing (unmounted or deleted)` };
  if (!existsSync(markerPath(root))) return { ok: false, reason: `the mirror folder ${root} lost its marker ${RESERVED_DIR}/marker (replaced or wiped)` };
  if (liveTopLevel > 0) {
    let names: string[];
    try {
      names = readdirSync(root).filter((n) => n !== RESERVED_DIR);
    } catch {
      return { ok: false, reason: `the mirror folder ${root} cannot be read` };
    }
    if (names.length === 0) return { ok: false, reason: `the mirror folder ${root} was emptied (${liveTopLevel} entries expected)` };
  }
  return { ok: true };
}
