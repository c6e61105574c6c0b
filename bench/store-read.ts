/**
 * `npm run bench:store-read`: reading every row of a real mirror store back as objects (what
 * a reconcile and the model load do), the contenders side by side in one run over the same
 * rows: the code before the one schema (a row object, its text parsed, no check), the first
 * schema's code (the same, then the schema's `parse`), and the store's `all()` as it is now.
 * Env: STORE_READ_SIZES (default 100000), STORE_READ_ROUNDS (default 5).
 * Writes bench/results/store-read.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { remoteObjectSchema, type RemoteObject } from '../app/model/remote-object.js';
import { MirrorStore } from '../main/mirror/store.js';
import { openStateDb, type Db } from '../main/state/db.js';
import { fillDemoMirror } from './demo-store.js';

const SIZES = (process.env['STORE_READ_SIZES'] ?? '100000').split(',').map(Number);
const ROUNDS = Number(process.env['STORE_READ_ROUNDS'] ?? '5');

/** The store's `all()` as it was before the one schema: a row object, its text parsed, no check. */
function* allBefore(db: Db): IterableIterator<RemoteObject> {
  for (const r of db.prepare<[], { json: string }>('SELECT json FROM mirror_objects').iterate()) yield JSON.parse(r.json) as RemoteObject;
}

/** The store's `all()` with the first schema: the same, then the schema's `parse` (in a try, as `storedObject` had it). */
function* allFirstSchema(db: Db): IterableIterator<RemoteObject> {
  for (const r of db.prepare<[], { json: string }>('SELECT json FROM mirror_objects').iterate()) {
    try {
      yield remoteObjectSchema.parse(JSON.parse(r.json) as unknown, '');
    } catch (e) {
      throw new Error('invalid row', { cause: e });
    }
  }
}

const count = (objects: Iterable<RemoteObject>): number => {
  let n = 0;
  for (const o of objects) if (o.id) n++;
  return n;
};

/** Each contender reads every row and returns how many objects it got. */
const CONTENDERS: Record<string, (db: Db, store: MirrorStore) => number> = {
  'before the schema: JSON.parse, no check': (db) => count(allBefore(db)),
  'first schema: JSON.parse + schema parse': (db) => count(allFirstSchema(db)),
  'now: store.all() (schema test)': (_db, store) => count(store.all()),
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** CPU time of this process (user + system), ms: steadier than wall time on a shared machine. */
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const results: { size: number; contender: string; medianMs: number; minMs: number; medianCpuMs: number; runsMs: number[] }[] = [];
for (const size of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), 'store-read-'));
  try {
    const db = openStateDb(dir);
    const store = new MirrorStore(db);
    const t0 = performance.now();
    fillDemoMirror(store, size);
    process.stderr.write(`${size} objects stored in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    const runs = new Map<string, number[]>(Object.keys(CONTENDERS).map((k) => [k, []]));
    const cpu = new Map<string, number[]>(Object.keys(CONTENDERS).map((k) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // every contender once per round, in turn, so the machine's load falls on all alike
      for (const [name, read] of Object.entries(CONTENDERS)) {
        const t = performance.now(),
          c = cpuMs();
        const n = read(db, store);
        runs.get(name)!.push(performance.now() - t);
        cpu.get(name)!.push(cpuMs() - c);
        if (n !== size) throw new Error(`${name} read ${n} rows, expected ${size}`);
      }
    }
    db.close();
    for (const [contender, ms] of runs)
      results.push({
        size,
        contender,
        medianMs: median(ms),
        minMs: Math.min(...ms),
        medianCpuMs: median(cpu.get(contender)!),
        runsMs: ms.map((x) => Math.round(x)),
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.stdout.write('| rows | reading every row | median ms | best ms | median CPU ms |\n|---|---|---|---|---|\n');
for (const r of results)
  process.stdout.write(
    `| ${r.size.toLocaleString('en')} | ${r.contender} | ${r.medianMs.toFixed(0)} | ${r.minMs.toFixed(0)} | ${r.medianCpuMs.toFixed(0)} |\n`,
  );
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/store-read.json', JSON.stringify({ at: new Date().toISOString(), rounds: ROUNDS, results }, null, 2));
