/** The service's version, as package.json says (`nas-service --version`). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** package.json is one folder above the sources (server/) and two above the bundle (dist/server/). */
function packageJson(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const up = join(here, '..', 'package.json');
  return existsSync(up) ? up : join(here, '..', '..', 'package.json');
}

export const appVersion = (): string =>
  String((JSON.parse(readFileSync(packageJson(), 'utf8')) as { version?: unknown }).version ?? 'unknown');
