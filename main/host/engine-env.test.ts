import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENGINE_NICE, engineEnv, lowerPriority, lowerSessionPriority, procAutogroup, type AutogroupSys } from './engine-env.js';

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

describe('lowerSessionPriority', () => {
  const sys = (autogroup: string | null, leads: boolean, written: number[]): AutogroupSys => ({
    read: () => autogroup,
    leadsSession: () => leads,
    write: (n) => void written.push(n),
  });

  it("gives the engine's own session nice 10, and leaves a session it does not lead (the app's, a shell's) alone", () => {
    const written: number[] = [];
    expect(lowerSessionPriority({}, sys('/autogroup-3225 nice 0\n', true, written))).toBe('lowered');
    expect(written).toEqual([ENGINE_NICE]);
    expect(lowerSessionPriority({}, sys('/autogroup-3189 nice 0\n', false, written))).toBe('kept');
    expect(lowerSessionPriority({}, sys('/autogroup-7 nice 15\n', true, written))).toBe('kept');
    expect(lowerSessionPriority({}, sys(null, true, written))).toBe('kept'); // no autogroups here
    expect(lowerSessionPriority({}, sys('', true, written))).toBe('kept'); // init's default group prints nothing
    expect(lowerSessionPriority({ NAS_MIRROR_ENGINE_PRIORITY: 'normal' }, sys('/autogroup-1 nice 0', true, written))).toBe('kept');
    expect(written).toEqual([ENGINE_NICE]);
    const refusing: AutogroupSys = {
      ...sys('/autogroup-1 nice 0', true, written),
      write: () => {
        throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
      },
    };
    expect(lowerSessionPriority({}, refusing)).toBe('refused');
  });

  it.runIf(existsSync('/proc/self/autogroup'))(
    'on this machine: a detached process (its own session) lowers its session; one in ours does not',
    () => {
      const mod = fileURLToPath(new URL('./engine-env.ts', import.meta.url));
      const script = `import { lowerSessionPriority, procAutogroup } from ${JSON.stringify(mod)};
const said = lowerSessionPriority({}, procAutogroup);
process.stdout.write(said + ' ' + procAutogroup.read().trim());`;
      const run = (setsid: boolean): string => {
        const args = ['--import', 'tsx', '--input-type=module', '-e', script];
        const r = setsid ? spawnSync('setsid', ['-w', process.execPath, ...args]) : spawnSync(process.execPath, args);
        expect(r.status, String(r.stderr)).toBe(0);
        return String(r.stdout).trim();
      };
      expect(run(true)).toMatch(new RegExp(`^lowered /autogroup-\\d+ nice ${ENGINE_NICE}$`));
      // A process still in init's default group (a container's, CI's) reads an empty file.
      const ours = (procAutogroup.read() ?? '').trim();
      expect(run(false)).toBe(`kept ${ours}`.trim());
    },
  );
});
