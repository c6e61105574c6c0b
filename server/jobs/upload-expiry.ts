/**
 * Removes unfinished uploads untouched for a while (content.md: 24 h). A new file whose upload
 * was given up goes away (its folder's eTag moves); a new version is forgotten and the file
 * keeps its content. Runs every quarter of the age (at most every minute).
 */
import type { Uploads } from '../content/uploads.js';
import type { Logger } from '../log.js';

export const DEFAULT_UPLOAD_TTL_MS = 24 * 3600_000;

export class UploadExpiry {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly uploads: Uploads,
    private readonly log: Logger,
    private readonly ttlMs: number = DEFAULT_UPLOAD_TTL_MS,
  ) {}

  start(): void {
    if (this.timer) return;
    const every = Math.max(10, Math.min(60_000, Math.floor(this.ttlMs / 4)));
    this.timer = setInterval(() => {
      try {
        this.uploads.expire(this.ttlMs);
      } catch (e) {
        this.log.error('upload expiry failed', { err: e });
      }
    }, every);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
