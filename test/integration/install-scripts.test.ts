/**
 * npm is moving to approving install scripts per package (`allowScripts` in package.json,
 * advisory in npm 11.16+, enforced in npm 12): the native modules that must build
 * (better-sqlite3, keytar) and esbuild's binary are approved, and every installed package
 * with an install script is decided one way or the other, so `npm install` keeps working.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { allowScripts?: Record<string, boolean> };

function withInstallScripts(): string[] {
  const out: string[] = [];
  const look = (dir: string): void => {
    const f = join(dir, 'package.json');
    if (!existsSync(f)) return;
    const p = JSON.parse(readFileSync(f, 'utf8')) as { name?: string; scripts?: Record<string, string> };
    if (p.name && ['preinstall', 'install', 'postinstall'].some((k) => p.scripts?.[k])) out.push(p.name);
  };
  for (const n of readdirSync('node_modules')) {
    if (n.startsWith('.')) continue;
    if (n.startsWith('@')) for (const m of readdirSync(join('node_modules', n))) look(join('node_modules', n, m));
    else look(join('node_modules', n));
  }
  return out.sort();
}

describe('install scripts', () => {
  it('the native modules and esbuild are approved', () => {
    expect(pkg.allowScripts).toMatchObject({ 'better-sqlite3': true, keytar: true, esbuild: true });
  });
  it('every installed package with an install script is decided', () => {
    const undecided = withInstallScripts().filter((n) => pkg.allowScripts?.[n] === undefined);
    expect(undecided).toEqual([]);
  });
});
