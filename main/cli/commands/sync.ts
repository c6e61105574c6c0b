/**
 * `nas-mirror sync --device FILE|URL --state DIR [--token-env VAR] --once`: one complete
 * walk into the state folder and the offline index, a progress bar on a TTY, one summary
 * line. An interrupted walk deletes nothing and exits 1.
 */
import { AppError } from '../../../app/errors.js';
import { openMirrorState } from '../../api/compose.js';
import { ServiceClient } from '../../client/service-client.js';
import { HttpTransport } from '../../client/transport.js';
import { connect } from '../../connection/connect.js';
import { loadDevice } from '../../connection/device.js';
import { syncOnce } from '../../mirror/sync.js';
import type { WalkProgress } from '../../mirror/walk.js';
import { UsageError } from '../args.js';
import type { CliIO, CommandOf } from '../io.js';
import type { sync as spec } from '../specs.js';
import { prepareStateDir } from '../../settings/folders.js';
import { resolveAuth, stateDirOf } from '../state.js';

export const run: CommandOf<typeof spec> = async (args, io) => {
  if (!args.flag('once')) throw new UsageError("only --once is supported here (continuous sync is the app's job)");
  const concurrency = args.int('concurrency') ?? 8;
  const stateDir = stateDirOf(args.str('state'), io.env);
  const transport = new HttpTransport();
  try {
    const candidates = await loadDevice(args.need('device'), transport);
    const { token, transport: authed, signedIn } = await resolveAuth(io.env, args.str('token-env'), candidates, transport);
    const conn = await connect(candidates, authed, token);
    prepareStateDir(stateDir); // after the device and the token are known good: a failed start leaves no folder
    const skipped = conn.skipped.map((s) => `${s.candidate.baseUrl}: ${s.reason}`).join('; ');
    io.stderr.write(`${conn.description}${conn.skipped.length ? ` (${skipped})` : ''}\n`);
    const client = new ServiceClient({
      baseUrl: conn.baseUrl,
      token,
      transport: authed,
      ...(signedIn ? { secrets: () => signedIn.secrets() } : {}),
      concurrency,
    });
    const state = await openMirrorState(stateDir);
    try {
      const { store, applier, opened } = state;
      const bar = progressBar(io);
      const ac = new AbortController();
      const onSig = (): void => ac.abort();
      process.once('SIGINT', onSig);
      const s = await syncOnce(client, store, applier, { signal: ac.signal, onProgress: bar.update }).finally(() => {
        process.off('SIGINT', onSig);
        bar.done();
      });
      await opened.save();
      const counts =
        `${s.objects} objects in ${s.folders} folders (+${s.added} added, ${s.updated} updated, ${s.removed} removed) ` +
        `in ${(s.elapsedMs / 1000).toFixed(1)} s`;
      if (!s.complete) {
        const why =
          s.error?.code === 'Unauthorized'
            ? `the NAS refused the token (${s.error.message}): ` +
              (args.has('token-env') ? 'pass a valid token with --token-env' : 'run "nas-mirror login" again')
            : (s.error?.message ?? 'unknown error');
        const outcome = s.error?.code === 'BadResponse' ? 'incomplete' : 'interrupted';
        io.stderr.write(`nas-mirror sync: ${outcome} after ${counts}: ${why}; nothing was deleted\n`);
        return 1;
      }
      io.stdout.write(`sync complete: ${counts}\n`);
      return 0;
    } finally {
      state.close();
    }
  } catch (e) {
    if (e instanceof AppError && e.code === 'Unauthorized')
      throw new AppError('Unauthorized', `the NAS refused the token (${e.message}): run "nas-mirror login" again`);
    throw e;
  } finally {
    transport.close();
  }
};

function progressBar(io: CliIO): { update: (p: WalkProgress) => void; done: () => void } {
  if (!io.stderr.isTTY) return { update: () => undefined, done: () => undefined };
  let last = 0;
  let shown = false;
  return {
    update: (p) => {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      shown = true;
      const width = 24;
      const frac = p.folders > 0 ? p.foldersDone / p.folders : 0;
      const filled = Math.round(frac * width);
      const line =
        `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.foldersDone}/${p.folders} folders, ` +
        `${p.objects} objects, ${p.rate}/s, ${(p.elapsedMs / 1000).toFixed(1)} s`;
      io.stderr.write(`\r${line.slice(0, (io.stderr.columns ?? 100) - 1)}\x1b[K`);
    },
    done: () => {
      if (shown) io.stderr.write('\r\x1b[K');
    },
  };
}
