/**
 * `nas-service token revoke` (issue 25, point 19): a token minted with `nas-service token`
 * stops working once revoked, read from stdin (never the command line, where `ps` shows it);
 * spawned as a user runs it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openServiceDb } from '../../../server/store/schema.js';
import { Store } from '../../../server/store/store.js';
import { authenticate } from '../../../server/store/users.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const svc = (args: string[], input?: string) =>
  spawnSync(process.execPath, [join(ROOT, 'bin/nas-service.js'), ...args], { cwd: ROOT, input, encoding: 'utf8' });
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('nas-service token revoke', () => {
  it('revokes a token given on stdin; a token on the command line is refused', () => {
    const data = mkdtempSync(join(tmpdir(), 'revoke-'));
    dirs.push(data);
    expect(svc(['demo', '--data', data, '--objects', '10']).status).toBe(0);
    const token = svc(['token', 'demo', '--scope', 'nas_read_write', '--data', data]).stdout.trim();
    const works = (): boolean => {
      const store = new Store(openServiceDb(data));
      try {
        return authenticate(store, token) !== undefined;
      } finally {
        store.db.close();
      }
    };
    expect(works()).toBe(true);
    const bad = svc(['token', 'revoke', token, '--data', data]);
    expect(bad.status).toBe(2);
    expect(works()).toBe(true);
    const r = svc(['token', 'revoke', '--token-stdin', '--data', data], `${token}\n`);
    expect({ status: r.status, err: r.stderr }).toEqual({ status: 0, err: '' });
    expect(r.stdout).toMatch(/^revoked/);
    expect(works()).toBe(false);
  });
});
