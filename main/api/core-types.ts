/**
 * The engine side as a host (Electron shell, headless browser mode) sees it: the contract's
 * handlers, its events, the current status, and a clean close (outbox persisted, service
 * child stopped).
 */
import type { ContractHandlers } from '../../app/contract/methods.js';
import type { AppStatus } from '../../app/contract/shapes.js';
import type { Keychain } from '../keychain/keychain.js';
import type { Logger } from '../log/logger.js';
import type { EventHub } from './event-hub.js';
import type { DesktopPort, LoginItemPort } from './ports.js';

export interface CoreOptions {
  /** The app's data directory: state database, embedded service data, default mirror folder. */
  dataDir: string;
  log: Logger;
  desktop: DesktopPort;
  loginItem: LoginItemPort;
  /** How to run the reference service for the embedded default (see main/embedded). */
  service?: { command: string; args: string[]; env?: Record<string, string> };
  /** Keychain service name (tests use their own). */
  keychainService?: string;
  /** Turn the keychain off (tests, or a machine with none): tokens stay in memory. */
  noKeychain?: boolean;
  /** The keychain to use (the engine's process: the main process's, reached over the port). */
  keychain?: Keychain;
  /** A fresh data folder: ask "Connect your NAS" or "Try the demo" (default), or start the demo. */
  firstRun?: 'ask' | 'demo';
}

export interface Core {
  readonly handlers: ContractHandlers;
  readonly events: EventHub;
  status(): AppStatus;
  close(): Promise<void>;
}
