/** The port's messages are checked on arrival: what does not fit is refused, never half-read. */
import { describe, expect, it } from 'vitest';
import { fromEngine, toEngine } from './protocol.js';

describe('engine port messages', () => {
  it('refuses unknown kinds, missing ids, unknown asks and extra fields', () => {
    expect(() => toEngine.parse({ t: 'eval', code: '1' })).toThrow(/expected one of/);
    expect(() => toEngine.parse({ t: 'call', method: 'status', args: {} })).toThrow(/id/);
    expect(() => toEngine.parse({ t: 'close', now: true })).toThrow(/unknown field/);
    expect(() =>
      toEngine.parse({
        t: 'start',
        options: { dataDir: '/d', keychain: { kind: 'file' }, loginItem: { supported: false, enabled: false }, openExternal: false },
      }),
    ).toThrow(/kind/);
    expect(() => fromEngine.parse({ t: 'ask', id: 1, op: 'shell.exec', path: '/bin/sh' })).toThrow(/op/);
    expect(() => fromEngine.parse({ t: 'reply', id: -1, ok: true })).toThrow(/id/);
    expect(() => fromEngine.parse('status')).toThrow(/object/);
  });

  it('takes the messages both sides send', () => {
    expect(toEngine.parse({ t: 'call', id: 3, method: 'search', args: { q: 'x' } })).toEqual({
      t: 'call',
      id: 3,
      method: 'search',
      args: { q: 'x' },
    });
    expect(fromEngine.parse({ t: 'ask', id: 2, op: 'keychain.get', account: 'http://nas' })).toEqual({
      t: 'ask',
      id: 2,
      op: 'keychain.get',
      account: 'http://nas',
    });
    expect(fromEngine.parse({ t: 'reply', id: 4, ok: false, error: { code: 'BadRequest', message: 'no' } })).toEqual({
      t: 'reply',
      id: 4,
      ok: false,
      error: { code: 'BadRequest', message: 'no' },
    });
  });
});
