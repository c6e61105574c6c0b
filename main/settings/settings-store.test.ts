import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateDb } from '../state/db.js';
import { DEFAULT_SETTINGS, SettingsStore } from './settings-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('SettingsStore', () => {
  it('keeps settings across reopen and ignores broken rows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nm-settings-'));
    dirs.push(dir);
    const defaults = { ...DEFAULT_SETTINGS, mirrorFolder: '/tmp/m' };
    let db = openStateDb(dir);
    const s = new SettingsStore(db, defaults);
    expect(s.isEmpty).toBe(true);
    s.update({ syncIntervalSec: 60, theme: 'dark', paused: true });
    expect(() => s.update({ syncIntervalSec: 1 })).toThrow();
    db.prepare("INSERT INTO settings (key, value) VALUES ('deleteThresholdCount', '\"many\"')").run();
    db.close();
    db = openStateDb(dir);
    const again = new SettingsStore(db, defaults).read();
    expect(again).toMatchObject({ syncIntervalSec: 60, theme: 'dark', paused: true, deleteThresholdCount: 50, mirrorFolder: '/tmp/m' });
    db.close();
  });
});
