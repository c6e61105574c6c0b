/**
 * What an engine is started with: where the state and the mirror live, the NAS client, and
 * the periods and limits of its rounds (tests shorten them).
 */
import type { ServiceClient } from '../client/service-client.js';
import type { Logger } from '../log/logger.js';
import type { ChangeApplier } from '../mirror/apply.js';
import type { MirrorStore } from '../mirror/store.js';
import type { Db } from '../state/db.js';
import type { Disk } from '../local/disk.js';
import type { FsTraits } from '../local/fs-traits.js';
import type { DiskIdentity } from '../local/volume.js';
import type { DeleteThreshold } from '../local/plan.js';
import type { WatcherOptions } from '../local/watch.js';

export interface EngineOptions {
  stateDir: string;
  mirrorDir: string;
  client: ServiceClient;
  log: Logger;
  /** Share a db/store/applier with other components (offline index); created when absent. */
  db?: Db;
  store?: MirrorStore;
  applier?: ChangeApplier;
  traits?: FsTraits;
  /**
   * Overrides of what is probed of the mirror's disk (`volume.ts`): tests make an ext4 folder
   * behave like exFAT (`stableIds: false`) or pin the mount key; absent = probed.
   */
  identity?: Partial<DiskIdentity>;
  /** The disk seam (tests: a FaultDisk); default node:fs. */
  disk?: Disk;
  threshold?: DeleteThreshold;
  /** How long a disappearance waits for its twin (default 1000 ms). */
  holdMs?: number;
  /**
   * New folders and files put in the mirror folder are created on the NAS (default true; spec
   * sync.md section 8). False: they stay on this computer, listed as local only (a
   * download-only mirror, as Synology Drive's one-way sync).
   */
  uploads?: boolean;
  /** Re-walk period (default 60 s); 0 = never. */
  rewalkMs?: number;
  /** Local check period (default 10 min): the watcher's self-test, then every folder's stamp; 0 = never. */
  rescanMs?: number;
  /** Full local rescan period, every file (default 6 h; a running watcher sees changes as they happen); 0 = never. */
  fullRescanMs?: number;
  /** How often the command line's queued requests are read (default 500 ms). */
  requestPollMs?: number;
  watcher?: WatcherOptions;
  /** Where the NAS is reached, for status. */
  endpoint?: string;
}
