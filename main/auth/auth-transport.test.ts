/** Which requests the authentication seam touches, and the base URL it renews tokens at. */
import { describe, expect, it } from 'vitest';
import { baseOfRequest } from './auth-transport.js';
import { decodeCredential, encodeRefresh } from './credential.js';

describe('auth seam', () => {
  it('finds the base URL of interface requests, a relay path included', () => {
    expect(baseOfRequest('http://nas:8080/sdk/v2/files/abc?fields=id')).toBe('http://nas:8080');
    expect(baseOfRequest('https://relay.example/dev-1/sdk/v2/filesSearch/parents?ids=root')).toBe('https://relay.example/dev-1');
    expect(baseOfRequest('http://nas/v2/files/x/patch')).toBe('http://nas');
    expect(baseOfRequest('http://nas/device.json')).toBeUndefined();
    expect(baseOfRequest('http://127.0.0.1:5/callback?code=x')).toBeUndefined();
  });

  it('tells a sign-in from a pasted token', () => {
    expect(decodeCredential(encodeRefresh('nsr_abc'))).toEqual({ kind: 'refresh', refreshToken: 'nsr_abc' });
    expect(decodeCredential('nst_pasted')).toEqual({ kind: 'token', token: 'nst_pasted' });
  });
});
