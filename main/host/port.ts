/**
 * The message port between the main process and the engine's process, with one adapter per
 * runtime: Node's `child_process.fork` (browser mode, tests; `node-port.ts`) and Electron's
 * `utilityProcess.fork` (the desktop app; main/shell/engine-process.ts). Both carry plain
 * structured data; everything above this interface is shared.
 */

/** The parent's end: one engine process. */
export interface EngineProcess {
  readonly pid: number | undefined;
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Once, when the process is gone (exit code, or the signal that ended it). */
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  kill(): void;
}

/** Starts one engine process (called again for every restart). */
export type SpawnEngine = () => EngineProcess;

/** The engine's end: the channel to its parent. */
export interface ParentPort {
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  /** The parent went away (its end closed). */
  onDisconnect(listener: () => void): void;
}
