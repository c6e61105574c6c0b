/**
 * The bundled preload (dist/main/shell/preload.cjs), loaded with a recorded stand-in for
 * `electron`: it exposes exactly `window.nasMirror = { call, onEvent }`, refuses methods
 * outside the contract before anything crosses, and passes on only the contract's events.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import Module from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

type Api = { call(method: unknown, args: unknown): Promise<unknown>; onEvent(l: (e: string, p: unknown) => void): void };

const exposed = new Map<string, Api>();
const invoked: unknown[][] = [];
const listeners = new Map<string, (e: unknown, ...a: unknown[]) => void>();
const fake = {
  contextBridge: { exposeInMainWorld: (k: string, v: Api) => exposed.set(k, v) },
  ipcRenderer: {
    invoke: async (...a: unknown[]) => {
      invoked.push(a);
      return { ok: true, result: {} };
    },
    on: (ch: string, l: (e: unknown, ...a: unknown[]) => void) => listeners.set(ch, l),
  },
};

beforeAll(() => {
  const build = spawnSync(process.execPath, ['build/bundle.mjs', 'app'], { encoding: 'utf8' });
  expect(build.status, build.stderr).toBe(0);
  const M = Module as unknown as { _load: (r: string, ...rest: unknown[]) => unknown };
  const load = M._load;
  M._load = function (request: string, ...rest: unknown[]) {
    return request === 'electron' ? fake : load.call(this, request, ...rest);
  };
  try {
    createRequire(import.meta.url)(join(process.cwd(), 'dist', 'main', 'shell', 'preload.cjs'));
  } finally {
    M._load = load;
  }
}, 60_000);

describe('preload', () => {
  it('exposes exactly the contract bridge', () => {
    expect([...exposed.keys()]).toEqual(['nasMirror']);
    expect(Object.keys(exposed.get('nasMirror')!).sort()).toEqual(['call', 'onEvent']);
  });
  it('refuses unknown methods before they cross, and forwards contract calls', async () => {
    const api = exposed.get('nasMirror')!;
    expect(await api.call('eval', {})).toEqual({ ok: false, error: { code: 'BadRequest', message: 'unknown method' } });
    expect(await api.call('__proto__', {})).toMatchObject({ ok: false });
    expect(await api.call({ toString: () => 'status' }, {})).toMatchObject({ ok: false });
    expect(invoked).toEqual([]);
    await api.call('status', {});
    expect(invoked).toEqual([['nas-mirror:call', 'status', {}]]);
  });
  it("passes on only the contract's events", () => {
    const api = exposed.get('nasMirror')!;
    const got: string[] = [];
    api.onEvent((e) => got.push(e));
    const on = listeners.get('nas-mirror:event')!;
    on({}, 'status', {});
    on({}, 'evil', {});
    on({}, 'changed', { what: 'activity' });
    expect(got).toEqual(['status', 'changed']);
  });
});
