import { describe, expect, it } from 'vitest';
import { ENGINE_NICE, engineEnv, lowerPriority } from './engine-env.js';

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

describe('lowerPriority', () => {
  it('asks for nice 10 unless niced more already or the user keeps it normal; a refusal leaves it running as it was', () => {
    const asked: number[] = [];
    const at = (now: number) => ({ get: () => now, set: (p: number) => void asked.push(p) });
    expect(lowerPriority({}, at(0))).toBe('lowered');
    expect(asked).toEqual([ENGINE_NICE]);
    expect(lowerPriority({}, at(15))).toBe('kept');
    expect(lowerPriority({ NAS_MIRROR_ENGINE_PRIORITY: 'normal' }, at(0))).toBe('kept');
    expect(asked).toEqual([ENGINE_NICE]);
    const refuse = (): void => {
      throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
    };
    expect(lowerPriority({}, { get: () => 0, set: refuse })).toBe('refused');
  });
});
