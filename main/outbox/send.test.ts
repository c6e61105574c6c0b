/**
 * The outbox's decision on an error no step turned into an answer: its retry class and the
 * attempt number alone. `fatal` is retried with backoff, then held for the user (never
 * dropped, never retried silently for ever); `backoff` is never held; `user` stops the queue.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../app/errors.js';
import { FATAL_ATTEMPTS, failure } from './send.js';

const fatal = new AppError('BadResponse', 'response is larger than 100 bytes: refused', { retry: 'fatal', delivery: 'maybe-sent' });

describe('outbox: what a failed send becomes', () => {
  it('fatal: retried (checked on the NAS first when it may have arrived) until the last attempt, then held with the error said', () => {
    for (let attempt = 1; attempt < FATAL_ATTEMPTS; attempt++) expect(failure(fatal, attempt)).toEqual({ kind: 'retry', error: fatal, unknown: true });
    const held = failure(fatal, FATAL_ATTEMPTS);
    expect(held).toMatchObject({ kind: 'unsent', error: fatal });
    expect(held.kind === 'unsent' && held.reason).toBe(`couldn't send it: response is larger than 100 bytes: refused; ${FATAL_ATTEMPTS} attempts, the last one failing in a way retrying cannot fix`);
    expect(failure(new Error('a bug'), FATAL_ATTEMPTS + 3)).toMatchObject({ kind: 'unsent', error: { code: 'Internal' } });
  });

  it('backoff: retried however many attempts it took (a NAS that is down is waited for)', () => {
    const down = new AppError('Unavailable', 'the NAS is starting', { delivery: 'not-sent' });
    expect(failure(down, 1)).toEqual({ kind: 'retry', error: down, unknown: false });
    expect(failure(down, 1000)).toEqual({ kind: 'retry', error: down, unknown: false });
  });

  it('user: the queue waits for the user (token, keychain)', () => {
    const e = new AppError('Unauthorized', 'token refused');
    expect(failure(e, 1)).toEqual({ kind: 'auth', error: e });
    expect(failure(e, 99)).toEqual({ kind: 'auth', error: e });
  });
});
