/** `nas-mirror pin PATH --state DIR`: keep a file or folder on this device (keep.ts). */
import { keepCommand } from './keep.js';

export const run = keepCommand('pin');
