/**
 * `npx tsx bench/vocabulary.ts [N]`: the word vocabulary (completion, did-you-mean) of N demo
 * objects (default 1M): build from the objects, save, load (what a restart pays on first
 * use), first completion after the load, the heap it holds (run with --expose-gc for it),
 * file size. Prints one JSON line.
 */
import { generateDemo } from '../server/demo/generate.js';
import { Vocabulary } from '../main/index/vocabulary.js';
import { loadVocabulary, saveVocabulary, vocabularyFile } from '../main/index/vocabulary-file.js';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const n = Number(process.argv[2] ?? 1000000);
const src = [...generateDemo({ objects: n, seed: 1 })].map((o) => ({ name: o.name, image: o.image }));
let t = performance.now();
const v = Vocabulary.build(src);
const build = performance.now() - t;
const dir = mkdtempSync(join(tmpdir(), 'vp-'));
t = performance.now();
saveVocabulary(dir, 1, v.toJSON());
const save = performance.now() - t;
const gc = (globalThis as { gc?: () => void }).gc;
const heap = (): number => (gc?.(), process.memoryUsage().heapUsed);
const before = heap();
t = performance.now();
const j = loadVocabulary(dir, 1)!;
const v2 = Vocabulary.fromJSON(j);
const load = performance.now() - t;
const heapMB = gc ? Math.round((heap() - before) / 1e5) / 10 : null;
t = performance.now();
const s = v2.suggest('hol');
const first = performance.now() - t;
t = performance.now();
const near = v2.suggest('holliday');
const fuzzy = performance.now() - t;
t = performance.now();
const fix = v2.corrections(['vacaton']);
const correction = performance.now() - t;
console.log(
  JSON.stringify({
    n,
    words: v.size,
    build,
    save,
    load,
    heapMB,
    first,
    fuzzy,
    correction,
    bytes: statSync(vocabularyFile(dir)).size,
    s,
    near,
    fix,
  }),
);
