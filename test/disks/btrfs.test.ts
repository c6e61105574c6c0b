/** The local-folder scenarios with the mirror folder on a real btrfs file system (see suite.ts). */
import { diskSuite } from './suite.js';

diskSuite('btrfs');
