/**
 * The engine's process: started by the main process (Electron `utilityProcess`, or
 * `child_process.fork` in browser mode) and serving the window contract over its port
 * (engine-serve.ts). Electron gives a utility process `process.parentPort`; a forked Node
 * child talks through `process.send`.
 */
import { getPriority, setPriority } from 'node:os';
import { lowerPriority, lowerSessionPriority, procAutogroup, tightenHeapGrowth } from './engine-env.js';
import type { ParentPort } from './port.js';
import { nodeParentPort } from './node-port.js';
import { serveEngine } from './engine-serve.js';

interface UtilityParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
}

function electronParentPort(): ParentPort | null {
  const pp = (process as unknown as { parentPort?: UtilityParentPort }).parentPort;
  if (!pp) return null;
  return {
    send: (m) => pp.postMessage(m),
    onMessage: (l) => pp.on('message', (e) => l(e.data)),
    onDisconnect: () => undefined, // Electron ends a utility process with its parent
  };
}

lowerPriority(process.env, { get: () => getPriority(), set: (p) => setPriority(p) });
lowerSessionPriority(process.env, procAutogroup);
tightenHeapGrowth();
const port = electronParentPort() ?? nodeParentPort();
if (!port) {
  process.stderr.write('engine-entry: this is the engine process of NAS Mirror; the app starts it\n');
  process.exit(2);
}
// Ctrl-C in a terminal reaches the whole process group: the parent decides when the engine
// stops (it sends `close`), so the engine waits for that instead of dying mid-transaction.
// A SIGTERM (to the group at shutdown, or to this process alone) stops the core cleanly.
process.on('SIGINT', () => undefined);
const served = serveEngine(port, (code) => {
  process.exitCode = code;
  // let the last message go out, then end even if a handle lingers
  setTimeout(() => process.exit(code), 200).unref();
  if (typeof process.disconnect === 'function' && process.connected) setTimeout(() => process.disconnect(), 50).unref();
});
process.on('SIGTERM', () => {
  void served.close();
});
