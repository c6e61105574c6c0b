/**
 * Both command lines behave like one (issue 25, point 15 and 20): every command answers
 * `--help` and `-h` with its usage on stdout and exit 0, before checking its other arguments;
 * `--version` prints the version of package.json. Spawned as a user runs them.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../support/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const run = runBin;

const MIRROR = [
  'login',
  'sync',
  'search',
  'ls',
  'find',
  'run',
  'status',
  'held',
  'uploads',
  'conflicts',
  'undo',
  'log',
  'organize',
  'get',
  'open',
  'pin',
  'unpin',
  'free',
  'du',
  'ui',
  'completion',
];
const SERVICE = ['serve', 'user', 'token', 'grant', 'import', 'demo', 'completion'];

describe('--help and --version', () => {
  it('every nas-mirror command answers --help and -h with its usage, exit 0', async () => {
    for (const cmd of MIRROR) {
      for (const flag of ['--help', '-h']) {
        const r = await run('nas-mirror.js', cmd, flag);
        expect({ cmd, flag, code: r.code, err: r.err }).toEqual({ cmd, flag, code: 0, err: '' });
        expect(r.out).toMatch(new RegExp(`^usage: nas-mirror ${cmd}\\b`));
      }
    }
    // the list of commands in the top-level usage is this one
    const top = await run('nas-mirror.js', '--help');
    expect([...top.out.matchAll(/^ {2}nas-mirror (\S+)/gm)].map((m) => m[1])).toEqual(MIRROR);
  }, 120_000);

  it('every nas-service command answers --help with its usage lines, exit 0', async () => {
    for (const cmd of SERVICE) {
      const r = await run('nas-service.js', cmd, '--help');
      expect({ cmd, code: r.code }).toEqual({ cmd, code: 0 });
      expect(r.out).toMatch(new RegExp(`^usage:\\n {2}nas-service ${cmd} `));
    }
  }, 60_000);

  it('--version on both bins', async () => {
    expect((await run('nas-mirror.js', '--version')).out).toBe(`nas-mirror ${VERSION}\n`);
    expect((await run('nas-service.js', '--version')).out).toBe(`nas-service ${VERSION}\n`);
  });
});
