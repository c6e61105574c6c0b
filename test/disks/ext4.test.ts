/** The local-folder scenarios with the mirror folder on a real ext4 file system (see suite.ts). */
import { diskSuite } from './suite.js';

diskSuite('ext4');
