/**
 * `nas-mirror pin PATH`, `unpin PATH` and `free PATH` (`--state DIR`): Keep on this device and
 * Free up space, carried out by the running engine (it owns the mirror folder): the command
 * queues the request in the state db and waits for the engine's activity line about that
 * path, then prints it (or why it failed, exit 1). Without a running engine it says so.
 */
import { enginePid } from '../../engine/instance-lock.js';
import { LocalStore } from '../../local/local-store.js';
import type { CliIO, CommandOf } from '../io.js';
import type { pin as spec } from '../specs.js';
import { openExistingState } from '../state.js';
import { mirrorTarget } from './get.js';

/** How often the command looks at the activity log while the engine works (ms). */
const POLL_MS = 100;

type KeepAction = 'pin' | 'unpin' | 'free';

/** The activity kind the engine writes when the action is done. */
const DONE_KIND: Record<KeepAction, string> = { pin: 'pinned', unpin: 'unpinned', free: 'freed' };

export function keepCommand(name: KeepAction): CommandOf<typeof spec> {
  return async (args, io) => {
    const path = args.positionals[0]!;
    const { db, store, dir: stateDir } = openExistingState(args.str('state'), io.env);
    try {
      const local = new LocalStore(db);
      const t = mirrorTarget(local, store.root()?.id, stateDir, path);
      if (typeof t === 'string') {
        io.stderr.write(`nas-mirror ${name}: ${t}\n`);
        return 1;
      }
      const { rootId, segs } = t;
      const id = segs.length ? local.idAtPath(rootId, segs) : rootId;
      if (id === undefined) {
        io.stderr.write(`nas-mirror ${name}: ${path} is not in the mirror (see "nas-mirror ls")\n`);
        return 1;
      }
      if (enginePid(stateDir) === null) {
        const does = name === 'pin' ? 'downloads' : 'changes';
        io.stderr.write(
          `nas-mirror ${name}: no engine is running on ${stateDir}: it is the engine that ${does} files; ` +
            'start "nas-mirror run ..." (or the app) and try again\n',
        );
        return 1;
      }
      return await waitForEngine(io, name, local, stateDir, id, segs.join('/'));
    } finally {
      db.close();
    }
  };
}

/** Queues the request and waits for the engine's answer about `rel` in the activity log. */
async function waitForEngine(io: CliIO, name: KeepAction, local: LocalStore, stateDir: string, id: string, rel: string): Promise<number> {
  const since = local.lastActivitySeq();
  local.request(name, [id]);
  for (;;) {
    const rows = local.activitySince(since).filter((a) => a.path === rel);
    const failed = rows.find((a) => a.kind === 'error' && a.summary === `${name} failed`);
    if (failed) {
      io.stderr.write(`nas-mirror ${name}: ${failed.reason}\n`);
      return 1;
    }
    const done = rows.find((a) => a.kind === DONE_KIND[name]);
    if (done) {
      io.stdout.write(`${rel || '/'}: ${done.summary}\n`);
      if (name === 'pin') io.stdout.write('the running engine downloads it now and keeps it current ("nas-mirror log" says when)\n');
      if (name === 'free' && done.reason.includes('kept as they are')) io.stdout.write(`${done.reason}\n`);
      return 0;
    }
    if (enginePid(stateDir) === null) {
      io.stderr.write(`nas-mirror ${name}: the engine stopped before it did this; try again once it runs\n`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
