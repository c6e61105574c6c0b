/** `nas-mirror open PATH --state DIR`: `get`, then the file opens in the system's default app (get.ts). */
import { getCommand } from './get.js';

export const run = getCommand('open');
