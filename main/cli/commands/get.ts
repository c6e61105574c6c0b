/**
 * `nas-mirror get PATH --state DIR` and `nas-mirror open PATH --state DIR`: brings a file's
 * content to this computer (a placeholder is downloaded by the running engine, which owns
 * the mirror folder: the command queues the request and waits, showing progress), then for
 * `open` opens it with the platform's opener (`NAS_MIRROR_OPENER`, when set, is run instead
 * with the path as its one argument). A file already here is done at once.
 */
import { statSync } from 'node:fs';
import { formatSize } from '../../../app/util/human.js';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { commandDesktop, nodeDesktop } from '../../api/desktop-node.js';
import { partialPathOf } from '../../engine/downloads.js';
import { enginePid } from '../../engine/instance-lock.js';
import { LocalStore } from '../../local/local-store.js';
import { UsageError } from '../args.js';
import type { CliIO, CommandOf } from '../io.js';
import type { get as spec } from '../specs.js';
import { openExistingState } from '../state.js';

/** How often the command looks at the state while the engine downloads (ms). */
const POLL_MS = 100;

/** The path's segments from the mirror root: a path inside the mirror folder, else one relative to it. */
export function mirrorSegments(mirrorDir: string, path: string, cwd = process.cwd()): string[] {
  const abs = isAbsolute(path) ? path : resolve(cwd, path);
  const rel = relative(mirrorDir, abs);
  const inside = rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
  const from = inside ? rel : isAbsolute(path) ? undefined : path;
  if (from === undefined) throw new UsageError(`${path} is not in the mirror folder ${mirrorDir}`);
  return from.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
}

/**
 * The mirror folder and the path's segments in it, for a command acting on one entry through
 * the running engine; a message when the state holds no mirror yet.
 */
export function mirrorTarget(
  local: LocalStore,
  rootId: string | undefined,
  stateDir: string,
  path: string,
): { mirrorDir: string; rootId: string; segs: string[] } | string {
  const mirrorDir = local.meta('mirrorDir');
  if (mirrorDir === undefined || rootId === undefined) return `no mirror folder in ${stateDir} yet: run "nas-mirror run" first`;
  return { mirrorDir, rootId, segs: mirrorSegments(mirrorDir, path) };
}

export function getCommand(name: 'get' | 'open'): CommandOf<typeof spec> {
  return async (args, io) => {
    const path = args.positionals[0]!;
    const { db, store, dir: stateDir } = openExistingState(args.str('state'), io.env);
    let file: string;
    try {
      const local = new LocalStore(db);
      const t = mirrorTarget(local, store.root()?.id, stateDir, path);
      if (typeof t === 'string') {
        io.stderr.write(`nas-mirror ${name}: ${t}\n`);
        return 1;
      }
      const { mirrorDir, rootId, segs } = t;
      const id = segs.length ? local.idAtPath(rootId, segs) : undefined;
      if (id === undefined) {
        io.stderr.write(`nas-mirror ${name}: ${path} is not a file of the mirror (see "nas-mirror ls")\n`);
        return 1;
      }
      const got = await waitForContent(io, name, local, stateDir, mirrorDir, id, segs.join('/'));
      if (got === undefined) return 1;
      file = got;
    } finally {
      db.close();
    }
    if (name === 'open') {
      const opener = io.env['NAS_MIRROR_OPENER'];
      await (opener ? commandDesktop(opener) : nodeDesktop()).open(file);
    }
    io.stdout.write(`${file}\n`);
    return 0;
  };
}

/** The file's path once its content is here (asking the running engine for it), or undefined after saying why not. */
async function waitForContent(
  io: CliIO,
  name: string,
  local: LocalStore,
  stateDir: string,
  mirrorDir: string,
  id: string,
  rel: string,
): Promise<string | undefined> {
  const file = join(mirrorDir, ...rel.split('/'));
  const here = (): boolean => {
    const c = local.entryContent(id);
    return c !== undefined && (c.filled || c.content !== undefined || sizeOf(file) > 0);
  };
  const kind = local.entryContent(id)?.kind;
  if (kind === 'dir') {
    io.stderr.write(`nas-mirror ${name}: ${rel} is a folder: give a file\n`);
    return undefined;
  }
  if (here()) return file;
  if (enginePid(stateDir) === null) {
    io.stderr.write(
      `nas-mirror ${name}: no engine is running on ${stateDir}: ` +
        'downloads are made by it; start "nas-mirror run ..." (or the app) and try again\n',
    );
    return undefined;
  }
  const since = local.lastActivitySeq();
  local.request('get', [id]);
  const partial = partialPathOf(mirrorDir, id);
  let told = -1;
  for (;;) {
    if (here()) {
      if (told >= 0 && io.stderr.isTTY) io.stderr.write('\n');
      return file;
    }
    const failed = local.activitySince(since).find((a) => a.kind === 'error' && a.summary === 'download failed' && a.path === rel);
    if (failed) {
      io.stderr.write(`nas-mirror ${name}: ${failed.reason}\n`);
      return undefined;
    }
    if (enginePid(stateDir) === null) {
      io.stderr.write(`nas-mirror ${name}: the engine stopped before the download ended; it resumes at the next "${name}"\n`);
      return undefined;
    }
    const bytes = sizeOf(partial);
    if (bytes !== told && io.stderr.isTTY) {
      io.stderr.write(`\rdownloading ${rel}: ${formatSize(bytes)}\x1b[K`);
      told = bytes;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

const sizeOf = (abs: string): number => {
  try {
    return statSync(abs).size;
  } catch {
    return 0;
  }
};

export const run = getCommand('get');
