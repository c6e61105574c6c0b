/**
 * `nas-mirror ui [--state DIR] [--port N] [--device FILE|URL] [--dir MIRROR]`: the engine headless, its window served to a
 * browser on 127.0.0.1 only (browser mode). The UI server and the keychain stay in this
 * process; the engine runs in a child process (main/host), so a long engine step never
 * stalls the window. With nothing configured it starts the embedded demo NAS. Prints the
 * UI's URL (with its per-run secret) and runs until Ctrl-C, then closes cleanly (outbox
 * persisted, embedded service stopped, engine process ended).
 */
import { join, resolve } from 'node:path';
import { nodeDesktop } from '../../api/desktop-node.js';
import { hostEngine } from '../../host/engine-client.js';
import { forkEngine } from '../../host/node-port.js';
import { openKeychain } from '../../keychain/keychain.js';
import { createLogger } from '../../log/logger.js';
import { DEFAULT_SETTINGS, SettingsStore } from '../../settings/settings-store.js';
import { openStateDb } from '../../state/db.js';
import { xdgAutostart, noLoginItem } from '../../settings/autostart.js';
import { ensureRenderer, PROJECT_ROOT } from '../../ui-server/assets.js';
import { startUiServer } from '../../ui-server/ui-server.js';
import type { CommandOf } from '../io.js';
import type { ui as spec } from '../specs.js';
import { stateDirOf } from '../state.js';

export const run: CommandOf<typeof spec> = async (args, io) => {
  const dataDir = stateDirOf(args.str('state'), io.env);
  const port = args.int('port');
  const device = args.str('device');
  const dir = args.str('dir');
  if (device !== undefined || dir !== undefined) {
    // seed the settings from the command line, as `run` takes them
    const db = openStateDb(dataDir);
    try {
      new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: join(dataDir, 'mirror') }).update({
        ...(device !== undefined ? { source: /^https?:\/\//.test(device) ? 'url' : 'device-record', location: device } : {}),
        ...(dir !== undefined ? { mirrorFolder: resolve(dir) } : {}),
      });
    } finally {
      db.close();
    }
  }
  const verbose = !!io.env['NAS_MIRROR_VERBOSE'];
  const log = createLogger('ui', {
    write: (l) => {
      if (verbose) io.stderr.write(l);
    },
  });
  const assetsDir = await ensureRenderer();
  const demo = io.env['NAS_MIRROR_DEMO_OBJECTS'];
  const core = await hostEngine({
    spawn: forkEngine(),
    start: { dataDir, logLevel: verbose ? 'info' : 'none', ...(demo && /^\d+$/.test(demo) ? { demoObjects: Number(demo) } : {}) },
    keychain: await openKeychain(),
    log,
    desktop: nodeDesktop(),
    loginItem:
      process.platform === 'linux' ? xdgAutostart({ exec: process.execPath, args: [join(PROJECT_ROOT, 'bin', 'start.js')] }) : noLoginItem,
  });
  // the terminal hears what the window hears as an error (e.g. an engine process that crashed)
  core.events.subscribe((event, payload) => {
    const n = payload as { level?: string; message?: string };
    if (event === 'notice' && n.level === 'error') io.stderr.write(`${n.message ?? ''}\n`);
  });
  const server = await startUiServer({ handlers: core.handlers, events: core.events, assetsDir, port, log });
  io.stdout.write(
    `NAS Mirror is running headless (state in ${dataDir}).\n` +
      `Open the window in a browser on this machine:\n\n  ${server.url}\n\nPress Ctrl-C to stop.\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  io.stderr.write('stopping…\n');
  await server.close();
  await core.close();
  return 0;
};
