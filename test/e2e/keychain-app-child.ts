/**
 * Child of keychain-app.test.ts, run inside its own D-Bus session with an unlocked
 * gnome-keyring: the app's core stores a token through Settings into the OS keychain, a
 * restarted core finds it there and connects, and "forget" removes it. Prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCore } from '../../main/api/core.js';
import { silentLogger } from '../../main/log/logger.js';
import { noLoginItem } from '../../main/settings/autostart.js';
import { DEFAULT_SETTINGS, SettingsStore } from '../../main/settings/settings-store.js';
import { openStateDb } from '../../main/state/db.js';
import { startTestService } from '../../server/testing.js';

const svc = await startTestService({ demo: { objects: 50, seed: 3 } });
const dataDir = mkdtempSync(join(tmpdir(), 'nm-kc-'));
const db = openStateDb(dataDir);
new SettingsStore(db, { ...DEFAULT_SETTINGS, mirrorFolder: join(dataDir, 'mirror') }).update({ source: 'url', location: svc.baseUrl });
db.close();
const mk = () =>
  startCore({
    dataDir,
    log: silentLogger,
    loginItem: noLoginItem,
    desktop: { open: async () => undefined, reveal: async () => undefined },
  });
const online = async (core: Awaited<ReturnType<typeof mk>>): Promise<string> => {
  for (let i = 0; i < 300; i++) {
    const s = await core.handlers.status({});
    if (s.connection === 'online' && s.lastCompleteWalk) return s.connection;
    await new Promise((r) => setTimeout(r, 100));
  }
  return (await core.handlers.status({})).connection;
};
const token = svc.token();
const out: Record<string, unknown> = {};
let core = await mk();
const v1 = await core.handlers.setToken({ token });
out['stored'] = v1.token;
out['keychainAvailable'] = v1.keychainAvailable;
out['online1'] = await online(core);
await core.close();
core = await mk();
out['afterRestart'] = (await core.handlers.getSettings({})).token;
out['online2'] = await online(core);
out['forgotten'] = (await core.handlers.clearToken({})).token;
out['leaked'] = JSON.stringify(await core.handlers.getSettings({})).includes(token);
await core.close();
await svc.stop();
rmSync(dataDir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(out)}\n`);
