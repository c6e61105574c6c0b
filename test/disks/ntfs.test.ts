/** The local-folder scenarios with the mirror folder on a real ntfs file system (see suite.ts). */
import { diskSuite } from './suite.js';

diskSuite('ntfs');
