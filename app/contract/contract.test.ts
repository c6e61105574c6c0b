import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { checkCall, checkCallFrame, checkEvent, checkReply, RemoteError, serve } from './envelope.js';
import { HELD_UPLOADS_SHOWN, METHOD_NAMES, type ContractHandlers } from './methods.js';

const handlers = Object.fromEntries(METHOD_NAMES.map((m) => [m, async () => ({})])) as unknown as ContractHandlers;

describe('checkCall rejects bad arguments', () => {
  const bad: [unknown, unknown][] = [
    ['nope', {}],
    ['__proto__', {}],
    ['toString', {}],
    [42, {}],
    ['search', {}],
    ['search', { q: '' }],
    ['search', { q: 'x'.repeat(1025) }],
    ['search', { q: 'a', limit: 0 }],
    ['search', { q: 'a', limit: 1.5 }],
    ['search', { q: 'a', extra: 1 }],
    ['search', 'q=a'],
    ['search', ['a']],
    ['list', { folderId: 7 }],
    ['resolveHeld', { ids: ['a'], action: 'nuke' }],
    ['resolveHeld', { ids: 'a', action: 'approve' }],
    ['resolveConflicts', { ids: [''], action: 'drop' }],
    ['resolveConflicts', { ids: ['1'], action: 'keep-theirs' }],
    ['resolveConflicts', { ids: ['1'] }],
    ['resolveUploads', { ids: ['1'] }],
    ['resolveUploads', { ids: ['1'], upload: 'yes' }],
    ['resolveUploads', { ids: [''], upload: true }],
    ['resolveUploads', { ids: '1', upload: true }],
    ['heldUploads', { all: true }],
    ['setPaused', { paused: 'yes' }],
    ['setToken', { token: 'has space' }],
    ['setToken', { token: '' }],
    ['updateSettings', { patch: { syncIntervalSec: 1 } }],
    ['updateSettings', { patch: { token: 'secret' } }],
    ['updateSettings', { patch: { theme: 'pink' } }],
    ['open', { id: { toString: 'x' } }],
  ];
  it.each(bad)('%s %j', (method, args) => {
    expect(() => checkCall(method, args)).toThrow(AppError);
  });
  it('accepts good ones and drops nothing declared', () => {
    expect(checkCall('search', { q: 'hello', limit: 5 }).args).toEqual({ q: 'hello', limit: 5 });
    expect(checkCall('status', undefined).args).toEqual({});
    expect(checkCall('updateSettings', { patch: { paused: true, theme: 'dark' } }).args).toEqual({
      patch: { paused: true, theme: 'dark' },
    });
    expect(checkCall('resolveUploads', { ids: ['all'], upload: false }).args).toEqual({ ids: ['all'], upload: false });
    for (const action of ['reapply', 'drop', 'keep-mine', 'keep-nas', 'keep-both'] as const)
      expect(checkCall('resolveConflicts', { ids: ['3'], action }).args).toEqual({ ids: ['3'], action });
  });
});

describe('serve', () => {
  it('never calls a handler with bad arguments and answers {code, message}', async () => {
    let called = false;
    const h = {
      ...handlers,
      search: async () => {
        called = true;
        return { pageToken: '', matches: [] };
      },
    };
    const r = await serve(h, 'search', { q: 42 });
    expect(called).toBe(false);
    expect(r).toEqual({ ok: false, error: { code: 'BadRequest', message: 'args.q: expected a string' } });
  });
  it('checks the result before it leaves', async () => {
    const h = { ...handlers, search: async () => ({ pageToken: '', matches: 'oops' }) } as unknown as ContractHandlers;
    const r = await serve(h, 'search', { q: 'a' });
    expect(r.ok).toBe(false);
  });
  it('carries handler errors as code and message only', async () => {
    const h = {
      ...handlers,
      undo: async () => {
        throw new AppError('PreconditionFailed', 'changed on the NAS');
      },
    };
    expect(await serve(h, 'undo', { id: '1' })).toEqual({
      ok: false,
      error: { code: 'PreconditionFailed', message: 'changed on the NAS' },
    });
  });
});

describe('a file changed on both sides in the conflicts list', () => {
  const row = {
    id: '4',
    at: '2026-11-27T01:00:00.000Z',
    kind: 'content',
    path: 'Docs/plan.txt',
    intent: 'your version, kept beside it as "plan (conflicted copy 2026-11-27 0100).txt"',
    remote: "the NAS's version, 23 B",
    reason: 'the NAS changed this file while you changed it here: both are kept',
    versions: {
      yours: { name: 'plan (conflicted copy 2026-11-27 0100).txt', size: 12, modified: '2026-11-27T00:59:00Z' },
      nas: { size: 23, modified: '2026-11-27T00:58:00Z' },
    },
    note: 'the NAS changed it again',
  };
  const reply = (conflicts: unknown[]): unknown => ({ ok: true, result: { conflicts, held: [] } });
  it('carries both versions and a note, checked on arrival', () => {
    expect(checkReply('conflicts', reply([row]))).toEqual({ conflicts: [row], held: [] });
    expect(() => checkReply('conflicts', reply([{ ...row, kind: 'edit' }]))).toThrow();
    expect(() => checkReply('conflicts', reply([{ ...row, versions: { ...row.versions, nas: { size: -1, modified: '' } } }]))).toThrow();
    expect(() => checkReply('conflicts', reply([{ ...row, versions: { ...row.versions, yours: { size: 1, modified: '' } } }]))).toThrow();
  });
});

describe('held uploads', () => {
  const row = { id: '7', at: '2026-11-27T01:00:00.000Z', path: 'Photos/Trip', folder: true };
  it('the list and the status carry them, checked on arrival', () => {
    expect(checkReply('heldUploads', { ok: true, result: { held: [row], total: 1 } })).toEqual({ held: [row], total: 1 });
    expect(() => checkReply('heldUploads', { ok: true, result: { held: [{ ...row, folder: 'yes' }], total: 1 } })).toThrow();
    expect(() => checkReply('heldUploads', { ok: true, result: { held: [row] } })).toThrow();
    expect(() =>
      checkReply('heldUploads', {
        ok: true,
        result: { held: Array.from({ length: HELD_UPLOADS_SHOWN + 1 }, () => row), total: HELD_UPLOADS_SHOWN + 1 },
      }),
    ).toThrow();
    const status = {
      connection: 'online',
      endpoint: null,
      via: null,
      paused: false,
      mirrorMissing: false,
      walk: { running: false, folders: 0, objects: 0, placed: 0, rate: 0, startedAt: null, known: null, settled: false, recentRate: 0 },
      outbox: 3,
      conflicts: 0,
      heldDeletes: 0,
      uploads: { waiting: 3, held: 60, sent: 0, total: 0 },
      lastCompleteWalk: null,
      staleAfterSec: 600,
      mirrorFolder: null,
      indexed: 0,
      error: null,
    };
    expect(checkEvent('status', status).payload).toEqual(status);
    expect(() => checkEvent('status', { ...status, uploads: { waiting: -1, held: 0, sent: 0, total: 0 } })).toThrow();
    expect(() => checkEvent('status', { ...status, uploads: undefined })).toThrow();
    // the walk's known total: a count or null (the NAS does not say), with its settled flag
    const walk = { ...status.walk, running: true, objects: 10, known: 300, settled: true, recentRate: 40 };
    expect(checkEvent('status', { ...status, walk }).payload).toEqual({ ...status, walk });
    expect(() => checkEvent('status', { ...status, walk: { ...walk, known: -1 } })).toThrow();
    expect(() => checkEvent('status', { ...status, walk: { ...walk, known: '300' } })).toThrow();
    expect(() => checkEvent('status', { ...status, walk: { ...walk, settled: undefined } })).toThrow();
  });
  it('resolveUploads is answered as a bulk result and reaches its handler with its arguments', async () => {
    let got: unknown;
    const h = {
      ...handlers,
      resolveUploads: async (a: unknown) => {
        got = a;
        return { done: 60, failed: [] };
      },
    } as unknown as ContractHandlers;
    expect(await serve(h, 'resolveUploads', { ids: ['all'], upload: true })).toEqual({ ok: true, result: { done: 60, failed: [] } });
    expect(got).toEqual({ ids: ['all'], upload: true });
  });
});

describe('arrival checks on the window side', () => {
  it('checks replies and events', () => {
    expect(() => checkReply('status', { ok: true, result: {} })).toThrow();
    expect(() => checkReply('undo', { ok: false, error: { code: 'NotFound', message: 'gone' } })).toThrow(RemoteError);
    expect(checkReply('suggest', { ok: true, result: { words: ['holiday'] } })).toEqual({ words: ['holiday'] });
    expect(() => checkEvent('evil', {})).toThrow();
    expect(() => checkEvent('changed', { what: 'everything' })).toThrow();
    expect(checkEvent('changed', { what: 'activity' }).event).toBe('changed');
  });
  it('checks call frames', () => {
    expect(() => checkCallFrame({ type: 'call', id: -1, method: 'status' })).toThrow();
    expect(() => checkCallFrame('{"type":"call"}')).toThrow();
    expect(checkCallFrame({ type: 'call', id: 3, method: 'status', args: {} }).id).toBe(3);
  });
});
