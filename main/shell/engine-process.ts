/**
 * The Electron adapter of the engine port (main/host/port.ts): the engine runs in a
 * `utilityProcess` (dist/main/host/engine-entry.cjs), so a long SQLite transaction or index
 * build never stalls the window or the tray. Messages sent before the process is up wait
 * for its `spawn`. Everything above the port is the code browser mode and the tests run.
 */
import { utilityProcess } from 'electron';
import { engineEnv } from '../host/engine-env.js';
import type { SpawnEngine } from '../host/port.js';

export function utilityEngine(entry: string): SpawnEngine {
  return () => {
    const child = utilityProcess.fork(entry, [], { serviceName: 'NAS Mirror engine', stdio: 'inherit', env: engineEnv(process.env) });
    let queue: unknown[] | null = [];
    child.once('spawn', () => {
      for (const m of queue ?? []) child.postMessage(m);
      queue = null;
    });
    return {
      get pid() {
        return child.pid;
      },
      send: (m) => {
        if (queue) queue.push(m);
        else child.postMessage(m);
      },
      onMessage: (l) => {
        child.on('message', l);
      },
      onExit: (l) => {
        child.once('exit', (code) => l(code, null));
      },
      kill: () => {
        child.kill();
      },
    };
  };
}
