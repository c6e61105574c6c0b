/**
 * Another version of the app, side by side with this one in the same bench run: a git worktree
 * of a ref with this checkout's node_modules (`.` is this working tree itself). Every worktree
 * made here is removed by `removeWorktrees` (call it at the end, also on failure and Ctrl-C).
 */
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, say } from './scale-probe.js';

export interface Checkout {
  /** The folder whose bin/ runs. */
  root: string;
  /** The commit (plus " + working tree" for `.`). */
  commit: string;
}

const made: string[] = [];
const git = (args: readonly string[]): string => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', timeout: 300_000 });

export function worktree(ref: string, dir: string): Checkout {
  if (ref === '.') return { root: ROOT, commit: `${git(['rev-parse', 'HEAD']).trim()} + working tree` };
  const commit = git(['rev-parse', `${ref}^{commit}`]).trim();
  git(['worktree', 'add', '--detach', dir, commit]);
  made.push(dir);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return { root: dir, commit };
}

export function removeWorktrees(): void {
  for (const w of made.splice(0)) {
    try {
      git(['worktree', 'remove', '--force', w]);
    } catch (e) {
      say(`WARNING: git worktree remove ${w}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
