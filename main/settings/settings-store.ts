/**
 * The app's settings (component `settings` in the state database): where the NAS is, the
 * mirror folder, sync interval, pause, delete threshold, start at login, theme. Never the
 * token: that lives in the keychain (or in memory). Values are checked with the contract's
 * schemas on the way in AND on the way out, so a hand-edited row cannot break the app.
 */
import { settingsPatch, type SettingsPatch } from '../../app/contract/shapes.js';
import { DEFAULT_THRESHOLD } from '../local/plan.js';
import { migrate, type Db } from '../state/db.js';

/** Persisted settings (the view adds where the token is). */
export interface Settings {
  /** `none` until the first start's choice. */
  source: 'none' | 'embedded' | 'url' | 'device-record';
  location: string;
  mirrorFolder: string;
  syncIntervalSec: number;
  paused: boolean;
  deleteThresholdCount: number;
  deleteThresholdPercent: number;
  startAtLogin: boolean;
  theme: 'system' | 'light' | 'dark';
}

export const DEFAULT_SETTINGS: Omit<Settings, 'mirrorFolder'> = {
  source: 'none',
  location: '',
  syncIntervalSec: 300,
  paused: false,
  deleteThresholdCount: DEFAULT_THRESHOLD.count,
  deleteThresholdPercent: DEFAULT_THRESHOLD.percent,
  startAtLogin: false,
  theme: 'system',
};

const MIGRATIONS = [
  {
    version: 1,
    up: (db: Db): void => {
      db.exec('CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
    },
  },
];

export class SettingsStore {
  private readonly get_;
  private readonly set_;

  constructor(
    private readonly db: Db,
    private readonly defaults: Settings,
  ) {
    migrate(db, 'settings', MIGRATIONS);
    this.get_ = db.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings');
    this.set_ = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  }

  /** True when nothing was ever saved (first run). */
  get isEmpty(): boolean {
    return this.get_.all().length === 0;
  }

  read(): Settings {
    const stored: Record<string, unknown> = {};
    for (const r of this.get_.all()) {
      try {
        stored[r.key] = JSON.parse(r.value);
      } catch {
        /* a broken row falls back to the default */
      }
    }
    const out: Settings = { ...this.defaults };
    for (const [k, v] of Object.entries(stored)) {
      if (!(k in out)) continue;
      try {
        const one = settingsPatch.parse({ [k]: v }) as Record<string, unknown>;
        (out as unknown as Record<string, unknown>)[k] = one[k];
      } catch {
        /* keep the default */
      }
    }
    return out;
  }

  /** Applies a checked patch in one transaction; returns the new settings. */
  update(patch: SettingsPatch): Settings {
    const checked = settingsPatch.parse(patch) as Record<string, unknown>;
    this.db.transaction(() => {
      for (const [k, v] of Object.entries(checked)) if (v !== undefined) this.set_.run(k, JSON.stringify(v));
    })();
    return this.read();
  }
}
