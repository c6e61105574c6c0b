/** `nas-mirror free PATH --state DIR`: downloaded files back to placeholders, the user's content kept (keep.ts). */
import { keepCommand } from './keep.js';

export const run = keepCommand('free');
