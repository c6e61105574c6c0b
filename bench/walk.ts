/**
 * `npm run bench:walk`: mirror a library of 100k objects in 5k folders served by the real
 * service in its own process over loopback, against a raw listing crawl (same concurrency,
 * same run: BFS, every page, JSON parsed, nothing stored). Then an unchanged re-walk, which
 * must write nothing. Env: WALK_OBJECTS (default 100000), WALK_CONCURRENCY (default 8).
 * Writes bench/results/walk.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceClient } from '../main/client/service-client.js';
import { HttpTransport } from '../main/client/transport.js';
import { openOfflineIndex } from '../main/index/open-index.js';
import { ChangeApplier } from '../main/mirror/apply.js';
import { MirrorStore } from '../main/mirror/store.js';
import { syncOnce } from '../main/mirror/sync.js';
import { openStateDb } from '../main/state/db.js';
import { spawnServiceProcess, startTestService } from '../server/testing.js';

const OBJECTS = Number(process.env['WALK_OBJECTS'] ?? '100000');
const CONC = Number(process.env['WALK_CONCURRENCY'] ?? '8');
const FOLDERS = Math.round(OBJECTS / 20);

async function rawCrawl(baseUrl: string, token: string): Promise<{ ms: number; objects: number; pages: number }> {
  const t = new HttpTransport({ maxSockets: CONC });
  const t0 = performance.now();
  const rootRes = await t.request({
    method: 'GET',
    url: `${baseUrl}/sdk/v2/files/root`,
    headers: { authorization: `Bearer ${token}` },
    timeoutMs: 30_000,
  });
  const queue = [(JSON.parse(rootRes.body) as { id: string }).id];
  let objects = 0,
    pages = 0,
    active = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = (): void => {
      if (queue.length === 0 && active === 0) {
        resolve();
        return;
      }
      while (active < CONC && queue.length) {
        const id = queue.shift()!;
        active++;
        void (async () => {
          let token2 = '';
          for (;;) {
            const res = await t.request({
              method: 'GET',
              url: `${baseUrl}/sdk/v2/filesSearch/parents?ids=${encodeURIComponent(id)}&limit=1000&pageToken=${encodeURIComponent(token2)}`,
              headers: { authorization: `Bearer ${token}` },
              timeoutMs: 30_000,
            });
            const page = JSON.parse(res.body) as { pageToken: string; files: { id: string; mimeType: string }[] };
            pages++;
            for (const f of page.files) {
              objects++;
              if (f.mimeType === 'application/x.service.dir') queue.push(f.id);
            }
            if (!page.pageToken) break;
            token2 = page.pageToken;
          }
        })().then(() => {
          active--;
          pump();
        }, reject);
      }
    };
    pump();
  });
  t.close();
  return { ms: performance.now() - t0, objects, pages };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-walk-nas-'));
  const stateRoot = mkdtempSync(join(tmpdir(), 'bench-walk-state-'));
  try {
    process.stderr.write(`creating ${OBJECTS} objects in ${FOLDERS} folders...\n`);
    const svc = await startTestService({ dataDir });
    const token = svc.token('nas_read_only');
    const tops: string[] = [];
    for (let i = 0; i < 50; i++) tops.push(svc.admin.createFolder('root', `Top ${i}`).id);
    const leaves: string[] = [];
    for (let i = 0; leaves.length + tops.length < FOLDERS; i++)
      leaves.push(svc.admin.createFolder(tops[i % tops.length]!, `Folder ${i}`).id);
    const perLeaf = Math.floor((OBJECTS - tops.length - leaves.length) / leaves.length);
    let made = tops.length + leaves.length;
    for (const [j, f] of leaves.entries()) {
      const count = j === leaves.length - 1 ? OBJECTS - made : perLeaf;
      for (let k = 0; k < count; k++)
        svc.admin.createFile(f, `IMG_${String(k).padStart(4, '0')} ${j}.JPG`, {
          size: k,
          mimeType: 'image/jpeg',
          image: { cameraMake: 'Canon', cameraModel: 'EOS R6', width: 10, height: 10 },
        });
      made += count;
    }
    await svc.stop({ keepData: true });
    const proc = await spawnServiceProcess(dataDir);
    try {
      // warm up the service (SQLite cache, JIT), then alternate raw and walk twice each
      await rawCrawl(proc.baseUrl, token);
      const raw: number[] = [];
      const walks: { ms: number; objects: number; added: number }[] = [];
      let rewalk: { ms: number; added: number; updated: number; removed: number; dbWrites: number; generationChanged: boolean } | undefined;
      let withIndexMs = 0;
      for (let rep = 0; rep < 2; rep++) {
        const r = await rawCrawl(proc.baseUrl, token);
        raw.push(r.ms);
        const dir = join(stateRoot, `s${rep}`);
        const db = openStateDb(dir);
        const store = new MirrorStore(db);
        const applier = new ChangeApplier(store);
        const client = new ServiceClient({ baseUrl: proc.baseUrl, token, concurrency: CONC });
        const t0 = performance.now();
        const s = await syncOnce(client, store, applier, { concurrency: CONC });
        walks.push({ ms: performance.now() - t0, objects: s.objects, added: s.added });
        if (!s.complete) throw new Error(`walk incomplete: ${s.error?.message}`);
        if (rep === 1) {
          const gen = store.generation();
          const before = (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
          const t1 = performance.now();
          const again = await syncOnce(client, store, applier, { concurrency: CONC });
          const ms = performance.now() - t1;
          const after = (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
          rewalk = {
            ms,
            added: again.added,
            updated: again.updated,
            removed: again.removed,
            dbWrites: after - before,
            generationChanged: store.generation() !== gen,
          };
        }
        client.close();
        db.close();
      }
      {
        // the full sync as the CLI runs it: store + offline index
        const dir = join(stateRoot, 'indexed');
        const db = openStateDb(dir);
        const store = new MirrorStore(db);
        const opened = await openOfflineIndex(store, dir);
        const applier = new ChangeApplier(store);
        applier.onChanges((c) => opened.index.applyChanges(c));
        const client = new ServiceClient({ baseUrl: proc.baseUrl, token, concurrency: CONC });
        const t0 = performance.now();
        await syncOnce(client, store, applier, { concurrency: CONC });
        await opened.save();
        withIndexMs = performance.now() - t0;
        client.close();
        db.close();
      }
      const best = (a: number[]): number => Math.min(...a);
      const result = {
        date: new Date().toISOString(),
        objects: OBJECTS,
        folders: FOLDERS,
        concurrency: CONC,
        rawCrawlMs: raw.map(Math.round),
        walkMs: walks.map((w) => Math.round(w.ms)),
        ratio: Math.round((best(walks.map((w) => w.ms)) / best(raw)) * 100) / 100,
        walkObjects: walks[0]!.objects,
        withIndexMs: Math.round(withIndexMs),
        rewalk,
      };
      mkdirSync('bench/results', { recursive: true });
      writeFileSync('bench/results/walk.json', JSON.stringify(result, null, 2) + '\n');
      process.stdout.write(`
walk of ${OBJECTS} objects in ${FOLDERS} folders, concurrency ${CONC}, loopback, service in its own process
| run | ms (each rep) | objects/s (best) |
| --- | --- | --- |
| raw listing crawl (no store) | ${result.rawCrawlMs.join(', ')} | ${Math.round(OBJECTS / (best(raw) / 1000))} |
| walk -> diff -> apply (store) | ${result.walkMs.join(', ')} | ${Math.round(OBJECTS / (best(walks.map((w) => w.ms)) / 1000))} |
| same + offline index + save | ${result.withIndexMs} | ${Math.round(OBJECTS / (withIndexMs / 1000))} |
| unchanged re-walk | ${Math.round(rewalk!.ms)} | writes: ${rewalk!.dbWrites} (the walk record), changes: +${rewalk!.added}/${rewalk!.updated}/-${rewalk!.removed} |
walk / raw crawl (best of each): ${result.ratio}x
`);
    } finally {
      await proc.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  }
}

await main();
