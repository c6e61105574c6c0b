/**
 * `npm run bench:index`: the offline text index at 100k and 1M objects of the demo library,
 * side by side in one run with (a) a naive folded-copy + indexOf scan, (b) SQLite FTS5
 * trigram + verification, (c) minisearch over trigrams (100k only: at 1M it needs over a GB),
 * and (d) ours (blob + trigram postings in typed arrays, numbered in result order).
 * Every approach answers through app/search (exact results); measured: build, memory, size
 * on disk, ready-after-restart, first-page (20) latency p50/p99 by query length, frequent and rare.
 * Then search operators and the storage view (bench/filters.ts) at the same sizes.
 * Env: BENCH_SIZES=100000,1000000 (default), BENCH_REPS=3, BENCH_ONLY=ours (ours alone, to compare
 * two versions of it run after run: its table printed, no results file written). Writes
 * bench/results/index.json and bench/results/filters.json.
 */
import Database from 'better-sqlite3';
import MiniSearch from 'minisearch';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { foldCase, parseQuery, selectPage, type Candidate, type ParsedQuery } from '../app/search/index.js';
import { buildBase, idOf, nameOf } from '../main/index/base-index.js';
import type { EnginePage, IndexDoc } from '../main/index/engine.js';
import { FastEngine } from '../main/index/fast-engine.js';
import { NaiveEngine } from '../app/search/naive.js';
import { indexFile, loadIndex, saveIndex } from '../main/index/persist.js';
import { generateDemo } from '../server/demo/generate.js';
import { prng } from '../app/util/prng.js';
import { printFilterBench, runFilterBench } from './filters.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const LIMIT = 20;
const SIZES = (process.env['BENCH_SIZES'] ?? '100000,1000000').split(',').map(Number);
const REPS = Number(process.env['BENCH_REPS'] ?? '3');
const ONLY_OURS = process.env['BENCH_ONLY'] === 'ours';
const LENGTHS = [1, 2, 3, 5, 8];

interface Engine {
  page(q: ParsedQuery): EnginePage | { items: unknown[] };
}

function docsOf(n: number): IndexDoc[] {
  const out: IndexDoc[] = [];
  for (const o of generateDemo({ objects: n, seed: 1 })) {
    const d: IndexDoc = { id: o.id, name: o.name, mimeType: o.mime };
    if (o.image?.cameraMake !== undefined) d.cameraMake = o.image.cameraMake;
    if (o.image?.cameraModel !== undefined) d.cameraModel = o.image.cameraModel;
    out.push(d);
  }
  return out;
}

function mem(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/** Query sets per length: frequent (many hits in a sample) and rare (1-3 hits overall). */
function querySets(docs: readonly IndexDoc[]): Map<string, string[]> {
  const r = prng(5);
  const folded = docs.map((d) => foldCase(d.name));
  const sample = Array.from({ length: 20000 }, () => folded[Math.floor(r() * folded.length)]!);
  const all = folded.join('\n');
  const out = new Map<string, string[]>();
  for (const L of LENGTHS) {
    if (L <= 2) {
      // exact counts (objects holding each 1-2 character string): most and least frequent
      const exact = new Map<string, number>();
      for (const f of folded) {
        const cps = [...f];
        const seen = new Set<string>();
        for (let i = 0; i + L <= cps.length; i++) seen.add(cps.slice(i, i + L).join(''));
        for (const t of seen) exact.set(t, (exact.get(t) ?? 0) + 1);
      }
      const ok = [...exact.entries()].filter(([t]) => t.trim() === t && !t.includes('"'));
      ok.sort((a, b) => b[1] - a[1]);
      out.set(
        `${L} frequent`,
        ok.slice(0, 20).map((e) => e[0]),
      );
      out.set(
        `${L} rare`,
        ok.slice(-20).map((e) => e[0]),
      );
      continue;
    }
    const counts = new Map<string, number>();
    for (const s of sample) {
      const cps = [...s];
      if (cps.length < L) continue;
      const at = Math.floor(r() * (cps.length - L + 1));
      const t = cps.slice(at, at + L).join('');
      if (t.trim() !== t || t.includes('"')) continue;
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    const byCount = [...counts.entries()].sort((a, b) => b[1] - a[1]);
    out.set(
      `${L} frequent`,
      byCount.slice(0, 20).map((e) => e[0]),
    );
    // rare: substrings of random names with the fewest occurrences in the whole library
    const cands = new Map<string, number>();
    for (let guard = 0; cands.size < 300 && guard < 100_000; guard++) {
      const cps = [...folded[Math.floor(r() * folded.length)]!];
      if (cps.length < L) continue;
      const at = Math.floor(r() * (cps.length - L + 1));
      const t = cps.slice(at, at + L).join('');
      if (t.trim() !== t || t.includes('"') || cands.has(t)) continue;
      let n = 0;
      for (let p = all.indexOf(t); p >= 0 && n <= 50; p = all.indexOf(t, p + 1)) n++;
      cands.set(t, n);
    }
    const rare = [...cands.entries()]
      .sort((a, b) => a[1] - b[1])
      .slice(0, 20)
      .map((e) => e[0]);
    out.set(`${L} rare`, rare);
  }
  return out;
}

function pct(a: number[], p: number): number {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

function latencies(e: Engine, sets: Map<string, string[]>, reps = REPS): Record<string, { p50: number; p99: number; n: number }> {
  const out: Record<string, { p50: number; p99: number; n: number }> = {};
  for (const [group, qs] of sets) {
    const times: number[] = [];
    for (let rep = 0; rep < reps; rep++) {
      for (const q of qs) {
        const p = parseQuery(q.includes(' ') ? `"${q}"` : q);
        if (!p.ok) continue;
        const t0 = performance.now();
        e.page(p.query);
        times.push(performance.now() - t0);
      }
    }
    out[group] = { p50: round(pct(times, 50)), p99: round(pct(times, 99)), n: times.length };
  }
  return out;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

interface Result {
  approach: string;
  objects: number;
  buildMs: number;
  memoryMB: number;
  diskMB: number | null;
  readyMs: number | null;
  apply1000Ms?: number;
  latency: Record<string, { p50: number; p99: number; n: number }>;
  note?: string;
}

function fts5(docs: IndexDoc[], dir: string): { engine: Engine; close: () => void; file: string } {
  const file = join(dir, 'fts.db');
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec(`CREATE TABLE docs (n INTEGER PRIMARY KEY, id TEXT, name TEXT, make TEXT, model TEXT, mime TEXT, fname TEXT, fmake TEXT, fmodel TEXT, fmime TEXT);
    CREATE VIRTUAL TABLE fts USING fts5(fname, fmake, fmodel, fmime, content='docs', content_rowid='n', tokenize="trigram case_sensitive 1");`);
  const ins = db.prepare('INSERT INTO docs VALUES (?,?,?,?,?,?,?,?,?,?)');
  db.transaction(() => {
    docs.forEach((d, i) =>
      ins.run(
        i,
        d.id,
        d.name,
        d.cameraMake ?? null,
        d.cameraModel ?? null,
        d.mimeType,
        foldCase(d.name),
        d.cameraMake === undefined ? null : foldCase(d.cameraMake),
        d.cameraModel === undefined ? null : foldCase(d.cameraModel),
        foldCase(d.mimeType),
      ),
    );
  })();
  db.exec("INSERT INTO fts(fts) VALUES ('rebuild')");
  type Row = {
    id: string;
    name: string;
    make: string | null;
    model: string | null;
    mime: string;
    fname: string;
    fmake: string | null;
    fmodel: string | null;
    fmime: string;
  };
  const cand = (r: Row): Candidate<string> => ({
    doc: { id: r.id, name: r.name, cameraMake: r.make ?? undefined, cameraModel: r.model ?? undefined, mimeType: r.mime },
    folded: [r.fname, r.fmake ?? undefined, r.fmodel ?? undefined, r.fmime],
    value: r.id,
  });
  const cols = 'd.id, d.name, d.make, d.model, d.mime, d.fname, d.fmake, d.fmodel, d.fmime';
  const engine: Engine = {
    page(q) {
      const long = q.folded.filter((t) => t.length >= 3);
      let rows: Iterable<Row>;
      if (long.length) {
        const match = long.map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ');
        rows = db.prepare(`SELECT ${cols} FROM fts JOIN docs d ON d.n = fts.rowid WHERE fts MATCH ?`).iterate(match) as Iterable<Row>;
      } else {
        const t = q.folded[0]!;
        rows = db
          .prepare(`SELECT ${cols} FROM docs d WHERE instr(fname, @t) OR instr(fmake, @t) OR instr(fmodel, @t) OR instr(fmime, @t)`)
          .iterate({ t }) as Iterable<Row>;
      }
      const c = (function* () {
        for (const r of rows) yield cand(r);
      })();
      return selectPage(c, q, LIMIT, null);
    },
  };
  return { engine, close: () => db.close(), file };
}

function trigrams(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 3 <= s.length; i++) out.push(s.slice(i, i + 3));
  return out;
}

function minisearchTri(docs: IndexDoc[]): { engine: Engine; json: () => string } {
  const ms = new MiniSearch<{ n: number; text: string }>({
    idField: 'n',
    fields: ['text'],
    tokenize: (s) => trigrams(s),
    processTerm: (t) => t,
  });
  ms.addAll(docs.map((d, n) => ({ n, text: foldCase([d.name, d.cameraMake ?? '', d.cameraModel ?? '', d.mimeType].join('\u0000')) })));
  const naive = new NaiveEngine(docs);
  const engine: Engine = {
    page(q) {
      const long = q.folded.filter((t) => t.length >= 3);
      if (!long.length) return naive.page(q, LIMIT, null);
      const hits = ms.search(
        { combineWith: 'AND', queries: long.map((t) => ({ queries: trigrams(t), combineWith: 'AND' })) } as unknown as string,
        { tokenize: (s: string) => [s], processTerm: (t: string) => t },
      );
      const c = (function* () {
        for (const h of hits) {
          const d = docs[h.id as number]!;
          yield { doc: d, value: d.id };
        }
      })();
      return selectPage(c, q, LIMIT, null);
    },
  };
  return { engine, json: () => JSON.stringify(ms) };
}

async function main(): Promise<void> {
  const results: Result[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-index-'));
  try {
    for (const n of SIZES) {
      const sets = querySets(docsOf(n));
      process.stderr.write(
        `\n== ${n} objects; queries: ${[...sets]
          .map(
            ([k, v]) =>
              `${k}: ${v
                .slice(0, 3)
                .map((x) => JSON.stringify(x))
                .join(' ')}`,
          )
          .join('; ')}\n`,
      );

      // (d) ours
      {
        let docs: IndexDoc[] | null = docsOf(n);
        const m0 = mem();
        let t0 = performance.now();
        const base = buildBase(docs);
        const buildMs = performance.now() - t0;
        const sdir = join(dir, `ours-${n}`);
        saveIndex(sdir, { base, dead: new Uint8Array(base.n), extra: [], generation: 1 });
        const diskMB = statSync(indexFile(sdir)).size / 1e6;
        docs = null;
        t0 = performance.now();
        const loaded = loadIndex(sdir)!;
        const engine = new FastEngine(loaded.base, loaded.dead, loaded.extra);
        const readyMs = performance.now() - t0;
        const memoryMB = (mem() - m0) / 1e6 - 0; // includes the just-built base until it is collected
        const e = engine;
        const latency = latencies({ page: (q) => e.page(q, LIMIT, null) }, sets);
        // 1000 remote changes: renames of random objects
        const r = prng(9);
        const changes: IndexDoc[] = [];
        for (let i = 0; i < 1000; i++) {
          const o = Math.floor(r() * loaded.base.n);
          changes.push({ id: idOf(loaded.base, o), name: `renamed ${i} ${nameOf(loaded.base, o)}`, mimeType: 'text/plain' });
        }
        t0 = performance.now();
        engine.upsert(changes);
        const apply1000Ms = performance.now() - t0;
        const after = latencies({ page: (q) => e.page(q, LIMIT, null) }, new Map([...sets].filter(([k]) => k.startsWith('3 '))));
        results.push({
          approach: 'ours',
          objects: n,
          buildMs,
          memoryMB,
          diskMB,
          readyMs,
          apply1000Ms,
          latency,
          note: `3-char p50 with 1000 changes in the overlay: ${Object.values(after)
            .map((x) => x.p50)
            .join('/')} ms`,
        });
        void base;
      }
      // ours, memory measured alone (fresh load, nothing else alive)
      {
        const m0 = mem();
        const loaded = loadIndex(join(dir, `ours-${n}`))!;
        const engine = new FastEngine(loaded.base, loaded.dead, loaded.extra);
        const memoryMB = (mem() - m0) / 1e6;
        results[results.length - 1]!.memoryMB = memoryMB;
        void engine;
      }
      if (ONLY_OURS) continue;
      // (a) naive
      {
        let docs: IndexDoc[] | null = docsOf(n);
        const m0 = mem();
        const t0 = performance.now();
        const engine = new NaiveEngine(docs);
        const buildMs = performance.now() - t0;
        docs = null;
        const memoryMB = (mem() - m0) / 1e6;
        const latency = latencies({ page: (q) => engine.page(q, LIMIT, null) }, sets, n > 100_000 ? 1 : REPS);
        results.push({
          approach: 'naive scan',
          objects: n,
          buildMs,
          memoryMB,
          diskMB: null,
          readyMs: buildMs,
          latency,
          note: 'ready = rebuild',
        });
      }
      // (b) FTS5
      {
        const docs = docsOf(n);
        const t0 = performance.now();
        const f = fts5(docs, join(dir, `fts-${n}`) && (mkdirSync(join(dir, `fts-${n}`), { recursive: true }), join(dir, `fts-${n}`)));
        const buildMs = performance.now() - t0;
        const latency = latencies(f.engine, sets, n > 100_000 ? 1 : REPS);
        f.close();
        const diskMB = statSync(f.file).size / 1e6;
        const t1 = performance.now();
        const db = new Database(f.file);
        db.prepare('SELECT count(*) FROM docs').get();
        const readyMs = performance.now() - t1;
        db.close();
        results.push({
          approach: 'sqlite fts5 trigram',
          objects: n,
          buildMs,
          memoryMB: 0,
          diskMB,
          readyMs,
          latency,
          note: 'memory off the JS heap (page cache)',
        });
      }
      // (c) minisearch over trigrams: 100k only
      if (n <= 100_000) {
        let docs: IndexDoc[] | null = docsOf(n);
        const m0 = mem();
        const t0 = performance.now();
        const ms = minisearchTri(docs);
        const buildMs = performance.now() - t0;
        docs = null;
        const memoryMB = (mem() - m0) / 1e6;
        const latency = latencies(ms.engine, sets);
        const json = ms.json();
        const t1 = performance.now();
        MiniSearch.loadJSON(json, { idField: 'n', fields: ['text'], tokenize: (s: string) => trigrams(s), processTerm: (t: string) => t });
        const readyMs = performance.now() - t1;
        results.push({
          approach: 'minisearch trigrams',
          objects: n,
          buildMs,
          memoryMB,
          diskMB: json.length / 1e6,
          readyMs,
          latency,
          note: 'includes a naive engine for 1-2 char queries',
        });
      } else {
        results.push({
          approach: 'minisearch trigrams',
          objects: n,
          buildMs: NaN,
          memoryMB: NaN,
          diskMB: null,
          readyMs: null,
          latency: {},
          note: 'not run: about 1.3 GB at 1M (research note); 100k only',
        });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (ONLY_OURS) return printTable(results);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/index.json',
    JSON.stringify({ date: new Date().toISOString(), node: process.version, limit: LIMIT, reps: REPS, results }, null, 2) + '\n',
  );
  printTable(results);
  // search operators and the storage view over the same sizes (an OfflineIndex on a filled store)
  const filters = await runFilterBench(SIZES, REPS);
  writeFileSync(
    'bench/results/filters.json',
    JSON.stringify({ date: new Date().toISOString(), node: process.version, results: filters }, null, 2) + '\n',
  );
  printFilterBench(filters);
}

function printTable(results: Result[]): void {
  const groups = LENGTHS.flatMap((L) => [`${L} frequent`, `${L} rare`]);
  const f = (x: number | null | undefined, d = 1): string => (x === null || x === undefined || Number.isNaN(x) ? '-' : x.toFixed(d));
  const head = [
    'objects',
    'approach',
    'build s',
    'mem MB',
    'disk MB',
    'ready ms',
    ...groups.map((g) => `${g.replace(' frequent', 'f').replace(' rare', 'r')} p50/p99`),
  ];
  const rows = results.map((r) => [
    String(r.objects),
    r.approach,
    f(r.buildMs / 1000, 2),
    f(r.memoryMB, 0),
    f(r.diskMB, 0),
    f(r.readyMs, 0),
    ...groups.map((g) => (r.latency[g] ? `${f(r.latency[g]!.p50, 2)}/${f(r.latency[g]!.p99, 1)}` : '-')),
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => '| ' + cells.map((c, i) => c.padEnd(w[i]!)).join(' | ') + ' |';
  process.stdout.write(
    '\nfirst page of 20, latency in ms\n' + [line(head), line(w.map((x) => '-'.repeat(x))), ...rows.map(line)].join('\n') + '\n',
  );
  for (const r of results)
    if (r.apply1000Ms !== undefined)
      process.stdout.write(`ours at ${r.objects}: 1000 remote changes applied in ${r.apply1000Ms.toFixed(1)} ms; ${r.note}\n`);
}

await main();
