/**
 * Search operators and the storage view on the demo library (part of `npm run bench:index`,
 * alone with `npm run bench:filters`). Measured: building the object facts (first filtered
 * query) in chunks as the engine does, with the longest time the event loop was held
 * meanwhile (and the map of the text engine's numbers to them, likewise); first page (20)
 * latency p50/p99 of filtered queries (text + operators, operators only), each after
 * `filtersReady` as the API calls it, the first run apart; and the storage view as the
 * engine opens it (chunked): open (all folder totals + the root's view) with its longest
 * hold of the loop, drill-down into a folder, and re-open when nothing changed (cached).
 * Env: BENCH_SIZES=100000 (default here; the code runs at 1000000), BENCH_REPS=5.
 * Writes bench/results/filters.json (the earlier runs kept in `earlier`, newest first).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { RemoteObject } from '../app/model/remote-object.js';
import { aspectsOf, type RemoteChange } from '../main/mirror/changes.js';
import { filtersReady, searchFiltered } from '../main/index/filtered-search.js';
import { StorageAggregates } from '../main/storage/aggregates.js';
import { demoStore } from './demo-store.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const QUERIES = [
  'IMG ext:jpg',
  'IMG kind:photo date:2019',
  'a kind:video size:>500mb',
  'holiday camera:canon',
  'report kind:doc date:2015..2020',
  'e in:"Photos"',
  'ext:pdf',
  'kind:audio size:<2mb',
  'camera:nikon date:2018-06',
  'x ext:nope',
];

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const r2 = (x: number): number => Math.round(x * 100) / 100;

export interface FilterBenchResult {
  objects: number;
  factsBuildMs: number;
  /** The longest the event loop waited for its next turn while the facts were built. */
  factsMaxHoldMs: number;
  factsMB: number;
  /** The engine's numbers mapped to the facts (once, before the first text + filter query), and the longest hold meanwhile. */
  numbersMs: number;
  numbersMaxHoldMs: number;
  /** The machine's 1-minute load average as the size's run began and as it ended (2 cores, shared). */
  load: { start: number; end: number };
  /**
   * p50/p99 of the runs after the first; `firstMs` the first run (after `filtersReady`), and the
   * longest the loop was held while `filtersReady` built what the query uses.
   */
  queries: { q: string; hits: number; p50: number; p99: number; firstMs: number; readyMaxHoldMs: number }[];
  storage: {
    openMs: number;
    openMaxHoldMs: number;
    drillMs: number;
    reopenMs: number;
    folders: number;
    apply1000Ms: number;
    reopenAfterChangesMs: number;
  };
}

/** Runs `work` while a ticker on the event loop records the longest gap between two of its turns. */
async function holding<T>(work: () => Promise<T>): Promise<{ value: T; maxHoldMs: number }> {
  let last = performance.now(),
    maxHoldMs = 0,
    running = true;
  const tick = (): void => {
    const now = performance.now();
    maxHoldMs = Math.max(maxHoldMs, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work();
  running = false;
  maxHoldMs = Math.max(maxHoldMs, performance.now() - last);
  return { value, maxHoldMs };
}

export async function runFilterBench(sizes: readonly number[], reps: number): Promise<FilterBenchResult[]> {
  const out: FilterBenchResult[] = [];
  for (const n of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-filters-'));
    const loadStart = loadavg()[0]!;
    try {
      const { db, opened } = await demoStore(dir, n);
      const index = opened.index;
      const m0 = heap();
      let t0 = performance.now();
      const { value: facts, maxHoldMs: factsMaxHoldMs } = await holding(() => index.factsReady());
      const factsBuildMs = performance.now() - t0;
      const factsMB = (heap() - m0) / 1e6;
      // the map of the text engine's numbers to the facts, built as the engine does before the first text + filter query
      t0 = performance.now();
      const { maxHoldMs: numbersMaxHoldMs } = await holding(() => filtersReady(index, 'a ext:jpg'));
      const numbersMs = performance.now() - t0;
      const queries: FilterBenchResult['queries'] = [];
      for (const q of QUERIES) {
        // as the API does before each filtered query: what the query will use, built in chunks that yield
        const { maxHoldMs: readyMaxHoldMs } = await holding(() => filtersReady(index, q));
        const times: number[] = [];
        let hits = 0,
          firstMs = 0;
        for (let i = 0; i < reps + 1; i++) {
          const t = performance.now();
          hits = searchFiltered(index, q, { limit: 20 }).matches.length;
          if (i > 0) times.push(performance.now() - t);
          else firstMs = performance.now() - t; // the first run builds what is cached per facts version (a sparse filter's kept list)
        }
        queries.push({
          q,
          hits,
          p50: r2(pct(times, 50)),
          p99: r2(pct(times, 99)),
          firstMs: r2(firstMs),
          readyMaxHoldMs: r2(readyMaxHoldMs),
        });
      }
      const agg = new StorageAggregates(
        () => facts,
        async () => facts,
      );
      t0 = performance.now();
      const { value: top, maxHoldMs: openMaxHoldMs } = await holding(() => agg.viewReady());
      const openMs = performance.now() - t0;
      const folder = top.children.find((c) => c.folder)!;
      t0 = performance.now();
      await agg.viewReady(folder.id);
      const drillMs = performance.now() - t0;
      t0 = performance.now();
      await agg.viewReady();
      const reopenMs = performance.now() - t0;
      const folders = [...facts.byId.values()].filter((f) => f.kind === 'folder').length;
      // 1,000 files moved to other folders: the totals follow change by change, then re-open
      const folderIds = [...facts.byId.values()].filter((f) => f.kind === 'folder').map((f) => f.id);
      const files = [...facts.byId.values()].filter((f) => f.kind !== 'folder').slice(0, 1000);
      const objects = index.store.getMany(files.map((f) => f.id));
      const changes: RemoteChange[] = files.map((f, i) => {
        const before = objects.get(f.id)!;
        const after: RemoteObject = { ...before, parentID: folderIds[(i * 7919) % folderIds.length]! };
        return { kind: 'updated', before, after, aspects: aspectsOf(before, after) };
      });
      t0 = performance.now();
      index.store.apply(changes);
      index.applyChanges(changes);
      const apply1000Ms = performance.now() - t0;
      t0 = performance.now();
      await agg.viewReady();
      const reopenAfterChangesMs = performance.now() - t0;
      out.push({
        objects: n,
        factsBuildMs: r2(factsBuildMs),
        factsMaxHoldMs: r2(factsMaxHoldMs),
        factsMB: r2(factsMB),
        numbersMs: r2(numbersMs),
        numbersMaxHoldMs: r2(numbersMaxHoldMs),
        load: { start: r2(loadStart), end: r2(loadavg()[0]!) },
        queries,
        storage: {
          openMs: r2(openMs),
          openMaxHoldMs: r2(openMaxHoldMs),
          drillMs: r2(drillMs),
          reopenMs: r2(reopenMs),
          folders,
          apply1000Ms: r2(apply1000Ms),
          reopenAfterChangesMs: r2(reopenAfterChangesMs),
        },
      });
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

export function printFilterBench(results: readonly FilterBenchResult[]): void {
  for (const r of results) {
    process.stdout.write(`\n(load average ${r.load.start} -> ${r.load.end})`);
    process.stdout.write(
      `\nsearch operators at ${r.objects.toLocaleString('en')} objects: object facts built in ${r.factsBuildMs} ms in chunks, the event loop held ${r.factsMaxHoldMs} ms at most (~${r.factsMB.toFixed(0)} MB heap); text engine numbers mapped in ${r.numbersMs} ms, loop held ${r.numbersMaxHoldMs} ms at most\n`,
    );
    process.stdout.write(
      '| query | hits (page of 20) | p50 ms | p99 ms | first run ms | filtersReady: loop held ms |\n|---|---|---|---|---|---|\n',
    );
    for (const q of r.queries)
      process.stdout.write(`| \`${q.q}\` | ${q.hits} | ${q.p50} | ${q.p99} | ${q.firstMs} | ${q.readyMaxHoldMs} |\n`);
    process.stdout.write(
      `storage view: open ${r.storage.openMs} ms, loop held ${r.storage.openMaxHoldMs} ms at most (all ${r.storage.folders.toLocaleString('en')} folder totals + root view), drill-down ${r.storage.drillMs} ms, re-open unchanged ${r.storage.reopenMs} ms; 1,000 moves applied (store, index, facts, totals) in ${r.storage.apply1000Ms} ms, then re-open ${r.storage.reopenAfterChangesMs} ms\n`,
    );
  }
}

const isMain = process.argv[1] !== undefined && /bench[/\\]filters\.ts$/.test(process.argv[1]);
if (isMain) {
  const sizes = (process.env['BENCH_SIZES'] ?? '100000').split(',').map(Number);
  const results = await runFilterBench(sizes, Number(process.env['BENCH_REPS'] ?? '5'));
  mkdirSync('bench/results', { recursive: true });
  // the earlier runs stay in the file (newest first), each with its date and note
  const file = 'bench/results/filters.json';
  let earlier: unknown[] = [];
  try {
    const prev = JSON.parse(readFileSync(file, 'utf8')) as { earlier?: unknown[] } & Record<string, unknown>;
    const { earlier: older, ...last } = prev;
    earlier = [last, ...(older ?? [])];
  } catch {
    /* no earlier run */
  }
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, results, earlier }, null, 2) + '\n');
  printFilterBench(results);
}
