import { describe, expect, it } from 'vitest';
import { engineEnv } from './engine-env.js';

describe('engineEnv', () => {
  it('adds the malloc settings to the parent environment', () => {
    const env = engineEnv({ PATH: '/bin' });
    expect(env).toEqual({ PATH: '/bin', MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' });
  });

  it('keeps what the user set, each setting on its own', () => {
    expect(engineEnv({ MALLOC_ARENA_MAX: '8' })).toEqual({ MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: '131072' });
    const both = { MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '65536' };
    expect(engineEnv(both)).toBe(both);
  });
});
