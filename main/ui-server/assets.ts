/**
 * The renderer's built files for browser mode: a fixed list (no path from a request ever
 * reaches the filesystem). When running from a source checkout and the bundle is missing or
 * older than the sources, it is rebuilt with esbuild first (a dev dependency; a packaged app
 * ships the bundle).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../app/errors.js';
import { PROJECT_ROOT } from '../settings/app-dirs.js';

export const ASSET_FILES = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
} as const;
export type AssetName = keyof typeof ASSET_FILES;

/** The repository (or app) root (defined in main/settings/app-dirs.ts). */
export { PROJECT_ROOT };
export const DEFAULT_RENDERER_DIR = join(PROJECT_ROOT, 'dist', 'renderer');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || e.name.endsWith('.test.ts')) continue;
    newest = Math.max(newest, statSync(join(e.parentPath, e.name)).mtimeMs);
  }
  return newest;
}

/** True when the bundle in `outDir` is missing or older than renderer/ or app/ sources. */
export function rendererIsStale(outDir = DEFAULT_RENDERER_DIR, root = PROJECT_ROOT): boolean {
  const built = join(outDir, 'app.js');
  if (!existsSync(built)) return true;
  const src = join(root, 'renderer');
  if (!existsSync(src)) return false;
  const mtime = statSync(built).mtimeMs;
  return newestMtime(src) > mtime || newestMtime(join(root, 'app')) > mtime;
}

/** Builds the renderer when stale (source checkouts only). */
export async function ensureRenderer(outDir = DEFAULT_RENDERER_DIR): Promise<string> {
  if (rendererIsStale(outDir)) {
    const script = join(PROJECT_ROOT, 'build', 'bundle.mjs');
    if (!existsSync(script)) throw new AppError('BadConfig', `the window's files are missing in ${outDir}`);
    const mod = (await import(script)) as { buildRenderer: (outDir: string) => Promise<void> };
    await mod.buildRenderer(outDir);
  }
  return outDir;
}

/** Reads the assets into memory once (they are small). */
export function loadAssets(dir: string): Map<AssetName, Buffer> {
  const out = new Map<AssetName, Buffer>();
  for (const name of Object.keys(ASSET_FILES) as AssetName[]) {
    const p = join(dir, name);
    if (!existsSync(p)) throw new AppError('BadConfig', `the window's file ${p} is missing (run npm run build:renderer)`);
    out.set(name, readFileSync(p));
  }
  return out;
}
