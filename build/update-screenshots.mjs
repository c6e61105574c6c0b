#!/usr/bin/env node
// Copies the E2E run's screenshots (test-artifacts/e2e/*.png) to docs/screenshots/, where
// the README shows them. Run after `npx vitest run test/e2e`.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(ROOT, 'test-artifacts', 'e2e');
const to = join(ROOT, 'docs', 'screenshots');
mkdirSync(to, { recursive: true });
for (const f of readdirSync(from).filter((n) => n.endsWith('.png'))) copyFileSync(join(from, f), join(to, f));
console.log(`copied screenshots to ${to}`);
