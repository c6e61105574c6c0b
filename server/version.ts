/** The service's version, as package.json says (`nas-service --version`). */
import { readFileSync } from 'node:fs';

export const appVersion = (): string =>
  String((JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown }).version ?? 'unknown');
