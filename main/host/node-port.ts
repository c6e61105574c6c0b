/**
 * The Node adapter of the engine port: `child_process.fork` of main/host/engine-entry.ts
 * (TypeScript through tsx, as the command line runs), and the child's `process` as its end.
 * Browser mode (`nas-mirror ui`, `npm start` without Electron) and the tests use it.
 */
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { engineEnv } from './engine-env.js';
import type { ParentPort, SpawnEngine } from './port.js';

const ENTRY = fileURLToPath(new URL('./engine-entry.ts', import.meta.url));
/** tsx's loader by its absolute URL: a bare `--import tsx` resolves from the cwd, which may be anywhere. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export function forkEngine(opts: { env?: NodeJS.ProcessEnv } = {}): SpawnEngine {
  return () => {
    // Its own process group: when the engine dies without cleaning up (kill -9, a crash), what it
    // started (the embedded demo NAS) is ended with it instead of living on as an orphan.
    const child = fork(ENTRY, [], {
      execArgv: ['--import', TSX],
      env: engineEnv(opts.env ?? process.env),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
      detached: true,
    });
    const group = (): void => {
      if (child.pid !== undefined)
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
    };
    child.once('exit', group);
    return {
      get pid() {
        return child.pid;
      },
      send: (m) => {
        if (child.connected) child.send(m as object);
      },
      onMessage: (l) => {
        child.on('message', l);
      },
      onExit: (l) => {
        child.once('exit', (code, signal) => l(code, signal));
      },
      kill: () => {
        group();
        child.kill('SIGKILL');
      },
    };
  };
}

/** The child's end, when this process was started by `fork` (else null). */
export function nodeParentPort(): ParentPort | null {
  if (typeof process.send !== 'function') return null;
  return {
    send: (m) => {
      if (process.connected) process.send?.(m);
    },
    onMessage: (l) => {
      process.on('message', l);
    },
    onDisconnect: (l) => {
      process.once('disconnect', l);
    },
  };
}
