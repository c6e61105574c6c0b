/**
 * `npm run bench:service`: the reference service (its own process, as `serve` runs it) over
 * HTTP (loopback, keep-alive) on a
 * demo library of BENCH_OBJECTS objects (default 1,000,000; seed 1). Measures a 1000-item
 * listing page, parentAndName, first page of text search for 1/2/3/5/8-character queries
 * (frequent and rare) and patch throughput. Prints a table, writes bench/results/service.json.
 * BENCH_DATA=DIR reuses (or creates) a data folder to skip generation on the next run.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDemo } from '../server/demo/load.js';
import { spawnServiceProcess } from '../server/testing.js';
import { openServiceDb } from '../server/store/schema.js';
import { Store } from '../server/store/store.js';
import { mintToken, userByName } from '../server/store/users.js';

const OBJECTS = Number(process.env['BENCH_OBJECTS'] ?? 1_000_000);
const keepDir = process.env['BENCH_DATA'];
const dir = keepDir ?? mkdtempSync(join(tmpdir(), 'nas-bench-'));

interface Row {
  what: string;
  n: number;
  p50: number;
  p99: number;
  max: number;
  serverP50: number;
  serverP99: number;
  note?: string;
}
const rows: Row[] = [];
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const fresh = !existsSync(join(dir, 'service.db'));
  let t0 = performance.now();
  const gstore = new Store(openServiceDb(dir));
  let genSeconds: number | undefined;
  if (fresh || !userByName(gstore, 'demo')) {
    loadDemo(gstore, 'demo', { objects: OBJECTS, seed: 1, reindex: false });
    genSeconds = (performance.now() - t0) / 1000;
    console.log(`generated ${OBJECTS} objects in ${genSeconds.toFixed(1)} s`);
  }
  gstore.db.close();
  const db = openServiceDb(dir);
  const count = (db.prepare('SELECT count(*) AS n FROM objects').get() as { n: number }).n;
  const token = mintToken({ db }, 'demo', 'nas_read_write');
  t0 = performance.now();
  const svc = await spawnServiceProcess(dir, 0, 300_000);
  const startSeconds = (performance.now() - t0) / 1000;
  console.log(`service started (index build) in ${startSeconds.toFixed(1)} s; ${count} objects`);
  const store = { db };
  const H = { Authorization: `Bearer ${token}` };
  const get = async (path: string): Promise<{ ms: number; server: number; body: unknown }> => {
    const t = performance.now();
    const r = await fetch(svc.baseUrl + '/sdk/v2' + path, { headers: H });
    const body = (await r.json()) as unknown;
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
    const server = Number(/dur=([\d.]+)/.exec(r.headers.get('server-timing') ?? '')?.[1] ?? NaN);
    return { ms: performance.now() - t, server, body };
  };
  const measure = async (what: string, paths: string[], note?: string): Promise<void> => {
    for (const p of paths.slice(0, 5)) await get(p); // warm up
    const ms: number[] = [];
    const srv: number[] = [];
    for (const p of paths) {
      const r = await get(p);
      ms.push(r.ms);
      srv.push(r.server);
    }
    rows.push({
      what,
      n: ms.length,
      p50: pct(ms, 50),
      p99: pct(ms, 99),
      max: Math.max(...ms),
      serverP50: pct(srv, 50),
      serverP99: pct(srv, 99),
      note,
    });
  };

  // Listing: the biggest folder, walking 1000-item pages by cursor; and mTime order.
  const big = store.db.prepare('SELECT id, child_count FROM objects WHERE dir = 1 ORDER BY child_count DESC LIMIT 1').get() as {
    id: string;
    child_count: number;
  };
  const walk = async (extra: string): Promise<string[]> => {
    const paths: string[] = [];
    let token = '';
    for (let i = 0; i < 40; i++) {
      const p = `/filesSearch/parents?ids=${big.id}&limit=1000${extra}&pageToken=${token}`;
      paths.push(p);
      token = ((await get(p)).body as { pageToken: string }).pageToken;
      if (!token) break;
    }
    return paths;
  };
  const namePages = await walk('');
  await measure('listing 1000-item page (name order)', [...namePages, ...namePages], `folder of ${big.child_count} children`);
  const mPages = await walk('&orderBy=mTime&order=desc');
  await measure('listing 1000-item page (mTime desc)', [...mPages, ...mPages]);

  const pairs = store.db
    .prepare('SELECT p.id AS pid, o.name AS name FROM objects o JOIN objects p ON p.row = o.parent WHERE o.row % 997 = 0 LIMIT 500')
    .all() as { pid: string; name: string }[];
  await measure(
    'parentAndName',
    pairs.map((x) => `/filesSearch/parentAndName?parentID=${x.pid}&name=${encodeURIComponent(x.name)}`),
  );
  await measure(
    'get by id',
    pairs.map((x) => `/files/${x.pid}`),
  );

  const queries: [string, string][] = [
    ['1 char frequent', 'i'],
    ['1 char frequent (e)', 'e'],
    ['1 char rare', 'ø'],
    ['1 char absent', 'ж'],
    ['2 chars frequent', 'im'],
    ['2 chars frequent infix', 'pg'],
    ['2 chars rare', 'øs'],
    ['3 chars frequent', 'img'],
    ['3 chars frequent infix', 'jpg'],
    ['3 chars rare', 'køb'],
    ['3 chars absent', 'qxz'],
    ['5 chars frequent', 'scree'],
    ['5 chars make', 'canon'],
    ['5 chars rare', 'ærøsk'],
    ['8 chars frequent', 'screensh'],
    ['8 chars rare', 'ærøskøbi'],
    ['8 chars absent', 'zzzzzzzz'],
    ['2 terms', 'holiday rome'],
    ['mimeType', 'image/'],
  ];
  for (const [what, q] of queries) {
    const path = `/filesSearch/text?q=${encodeURIComponent(q)}&limit=20`;
    const first = (await get(path)).body as { matches: unknown[] };
    await measure(
      `text search "${q}" (${what})`,
      Array.from({ length: 30 }, () => path),
      `${first.matches.length} on page 1`,
    );
  }

  // Patch throughput: renames, 8 in flight over keep-alive connections (node:http, a lighter
  // client than fetch, so the client does not cap the number).
  const targets = store.db.prepare('SELECT id, name FROM objects WHERE dir = 0 AND row % 101 = 0 LIMIT 4000').all() as {
    id: string;
    name: string;
  }[];
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const { hostname, port } = new URL(svc.baseUrl);
  const patchOnce = (id: string, name: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ name });
      const req = request(
        {
          agent,
          hostname,
          port,
          method: 'POST',
          path: `/sdk/v2/files/${id}/patch`,
          headers: { ...H, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 204 ? resolve() : reject(new Error(`patch ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const tp = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < targets.length) {
        const t = targets[next++]!;
        await patchOnce(t.id, `${t.name}.renamed`);
      }
    }),
  );
  agent.destroy();
  const secs = (performance.now() - tp) / 1000;
  const patchesPerSec = targets.length / secs;

  const rss = readRss(svc.child.pid);
  await svc.stop();
  db.close();
  const table = rows.map(
    (r) =>
      `| ${r.what} | ${r.n} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.max.toFixed(2)} | ${r.serverP50.toFixed(2)} | ${r.serverP99.toFixed(2)} | ${r.note ?? ''} |`,
  );
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  console.log(
    `\n${count} objects; times in ms over HTTP (loopback, keep-alive); ${cpus().length} cores, load average at the end ${load}\n`,
  );
  console.log('| what | n | p50 | p99 | max | server p50 | server p99 | note |\n|---|---|---|---|---|---|---|---|\n' + table.join('\n'));
  console.log('\n(p50/p99/max: seen by the client, request to parsed JSON; server: the Server-Timing header, handling inside the service)');
  console.log(`\nservice process memory (RSS): ${rss ?? '?'} MB`);
  console.log(`\npatch throughput: ${patchesPerSec.toFixed(0)} patches/s (${targets.length} renames, 8 in flight)`);
  const result = {
    date: new Date().toISOString(),
    objects: OBJECTS,
    cores: cpus().length,
    loadAverage: loadavg(),
    generateSeconds: genSeconds,
    openSeconds: startSeconds,
    rows,
    patchesPerSec,
    serviceRssMB: rss,
    node: process.version,
  };
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/service.json', JSON.stringify(result, null, 2) + '\n');
  if (!keepDir) rmSync(dir, { recursive: true, force: true });
}

function readRss(pid: number | undefined): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

main().catch((e: unknown) => {
  console.error(e);
  if (!keepDir) rmSync(dir, { recursive: true, force: true });
  process.exitCode = 1;
});
