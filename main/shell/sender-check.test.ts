import { describe, expect, it } from 'vitest';
import { isTrustedSender } from './sender-check.js';

const PAGE = 'file:///opt/NAS%20Mirror/resources/app.asar/dist/renderer/index.html';
const ok = { fromOurWindow: true, fromMainFrame: true, frameUrl: PAGE };

describe('isTrustedSender', () => {
  it('trusts only our window, main frame, our page', () => {
    expect(isTrustedSender(ok, PAGE)).toBe(true);
    expect(isTrustedSender({ ...ok, frameUrl: `${PAGE}#settings` }, PAGE)).toBe(true);
    expect(isTrustedSender({ ...ok, fromOurWindow: false }, PAGE)).toBe(false);
    expect(isTrustedSender({ ...ok, fromMainFrame: false }, PAGE)).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: 'https://evil.example/' }, PAGE)).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: `${PAGE}?x=1` }, PAGE)).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: 'file:///tmp/other.html' }, PAGE)).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: 'http://127.0.0.1/' }, 'http://127.0.0.1/')).toBe(false);
  });
});
