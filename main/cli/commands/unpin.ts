/** `nas-mirror unpin PATH --state DIR`: no longer kept current on this device (keep.ts). */
import { keepCommand } from './keep.js';

export const run = keepCommand('unpin');
