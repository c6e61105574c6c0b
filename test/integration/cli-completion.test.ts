/**
 * Shell completion (issue 25, point 21): `nas-mirror completion bash|zsh` and `nas-service
 * completion bash|zsh` print scripts generated from the same definitions as --help. The bash
 * script is loaded into a real bash and asked, as bash asks it, what completes a line.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../support/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = runBin;
const hasShell = (shell: string): boolean => spawnSync(shell, ['-c', 'exit 0']).status === 0;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'nas-completion-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the bash script offers for a command line whose last word is being typed. */
function complete(script: string, fn: string, words: string[]): string[] {
  const out = execFileSync(
    'bash',
    [
      '-c',
      `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); ${fn}; printf '%s\\n' "\${COMPREPLY[@]}"`,
      'bash',
      script,
      ...words,
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  return out.split('\n').filter((l) => l !== '');
}

/** The command names `BIN --help` lists. */
const commandsOf = (help: string, bin: string): string[] => [...help.matchAll(new RegExp(`^ {2}${bin} (\\S+)`, 'gm'))].map((m) => m[1]!);
/** The options `BIN CMD --help` lists (but --help). */
const optionsOf = (help: string): string[] => [...help.matchAll(/^ {2}(--[\w-]+)/gm)].map((m) => m[1]!).filter((o) => o !== '--help');

describe.runIf(hasShell('bash'))('bash completion', () => {
  it('nas-mirror: commands, subcommands, every option --help lists, and their values', async () => {
    const script = join(dir, 'nas-mirror.bash');
    const r = await run('nas-mirror.js', 'completion', 'bash');
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    writeFileSync(script, r.out);
    const c = (...words: string[]): string[] => complete(script, '_nas_mirror', ['nas-mirror', ...words]);
    const commands = commandsOf((await run('nas-mirror.js', '--help')).out, 'nas-mirror');
    expect(commands.length).toBeGreaterThan(15);
    expect(c('')).toEqual([...commands, '--help', '--version']);
    expect(c('se')).toEqual(['search']);
    // each command offers exactly the options its --help lists
    for (const cmd of ['search', 'run', 'organize', 'status']) {
      const listed = optionsOf((await run('nas-mirror.js', cmd, '--help')).out);
      expect({ cmd, offered: c(cmd, '--').filter((o) => o !== '--help') }).toEqual({ cmd, offered: listed });
    }
    expect(c('held', '')).toEqual(['approve', 'reject', 'renamed']);
    expect(c('held', '--state', '/tmp', 're')).toEqual(['reject', 'renamed']);
    expect(c('held', 'approve', '--')).toEqual(['--state', '--help']);
    expect(c('ls', 'Photos', '--order', '')).toEqual(['asc', 'desc']);
    expect(c('completion', '')).toEqual(['bash', 'zsh']);
    // folders for a folder option
    expect(c('status', '--state', join(ROOT, 'bi'))).toEqual([join(ROOT, 'bin')]);
  }, 60_000);

  it('nas-service: subcommands and their own options', async () => {
    const script = join(dir, 'nas-service.bash');
    const r = await run('nas-service.js', 'completion', 'bash');
    expect(r.code).toBe(0);
    writeFileSync(script, r.out);
    const c = (...words: string[]): string[] => complete(script, '_nas_service', ['nas-service', ...words]);
    expect(c('')).toEqual([...commandsOf((await run('nas-service.js', '--help')).out, 'nas-service'), '--help', '--version']);
    expect(c('user', '')).toEqual(['add', 'password']);
    expect(c('token', 'revoke', '--')).toEqual(['--data', '--token-stdin', '--help']);
    expect(c('token', 'bob', '--scope', '')).toEqual(['nas_read_write', 'nas_read_only']);
    expect(c('grant', 'bob', 'ID1', '')).toEqual(['ReadFile', 'WriteFile', 'FileOwner']);
  }, 60_000);
});

describe('zsh completion', () => {
  it('both bins print a #compdef script naming every command; zsh reads it', async () => {
    for (const [bin, name] of [
      ['nas-mirror.js', 'nas-mirror'],
      ['nas-service.js', 'nas-service'],
    ] as const) {
      const r = await run(bin, 'completion', 'zsh');
      expect(r.code).toBe(0);
      expect(r.out.startsWith(`#compdef ${name}\n`)).toBe(true);
      expect(r.out).toContain(`compdef _${name.replace('-', '_')} ${name}`);
      for (const cmd of commandsOf((await run(bin, '--help')).out, name)) expect(r.out).toContain(`\n    '${cmd}:`);
      if (hasShell('zsh')) {
        const file = join(dir, `_${name}`);
        writeFileSync(file, r.out);
        expect(spawnSync('zsh', ['-n', file], { encoding: 'utf8' }).stderr).toBe('');
      }
    }
  }, 60_000);

  it('another shell is a usage error', async () => {
    const r = await run('nas-mirror.js', 'completion', 'fish');
    expect(r.code).toBe(2);
    expect(r.err).toBe('nas-mirror completion: no completion for "fish": give bash or zsh\nusage: nas-mirror completion SHELL\n');
  });
});
