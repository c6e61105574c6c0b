import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { desktopEntry, xdgAutostart } from './autostart.js';

describe('xdgAutostart', () => {
  it('writes and removes the autostart entry', () => {
    const home = mkdtempSync(join(tmpdir(), 'nm-xdg-'));
    try {
      const item = xdgAutostart({ exec: '/opt/NAS Mirror/nas-mirror', args: ['--hidden'], configHome: home });
      expect(item.get()).toBe(false);
      item.set(true);
      expect(item.get()).toBe(true);
      const text = readFileSync(join(home, 'autostart', 'nas-mirror.desktop'), 'utf8');
      expect(text).toContain('Exec="/opt/NAS Mirror/nas-mirror" --hidden');
      item.set(false);
      expect(item.get()).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
  it('quotes what the spec says to quote', () => {
    expect(desktopEntry('/a/b', ['x"y$'])).toContain('Exec=/a/b "x\\"y\\$"');
  });
});
