/** The app's version, as package.json says (both bins print it for --version). */
import { readFileSync } from 'node:fs';

export function appVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}
