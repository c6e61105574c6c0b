/**
 * Small helpers of the service client: a counting semaphore (requests in flight) and the
 * cancellable sleep used between retries.
 */
import { AppError } from '../../app/errors.js';

/** A counting semaphore. */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((r) => this.waiting.push(r));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

export const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AppError('Cancelled', 'cancelled'));
      return;
    }
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', on);
      resolve();
    }, ms);
    const on = (): void => {
      clearTimeout(t);
      reject(new AppError('Cancelled', 'cancelled'));
    };
    signal?.addEventListener('abort', on, { once: true });
  });
