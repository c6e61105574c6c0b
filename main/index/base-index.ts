/**
 * The immutable, numbered part of the offline text index. Objects are numbered in
 * (name length, name by code point, id) order, so a scan in number order meets objects
 * with the same (field, wordStart, index) key prefix in rule-7 order and a first page can
 * stop early. Holds: folded names in one blob, trigram postings in flat typed arrays
 * (sorted by number), and the (make, model, mime) combination of each object with its postings.
 */
import { ASCII_WORD, buildNameBlob } from './name-blob.js';
import { nameIn, spelledOtherwise, type NameCases } from './name-cases.js';
import { SHORT_TOP, buildShortLists } from './short-grams.js';
import { buildTrigramPostings, type TrigramPostings } from './trigram-postings.js';
import { foldCase, isWordBefore } from '../../app/search/index.js';
import { joined, numberOrderOf, ranksOf, type Joined } from './number-order.js';
import type { IndexDoc } from './engine.js';

/** The distinct (cameraMake, cameraModel, mimeType) combinations; folded copies alongside. */
export interface Combo {
  make?: string | undefined;
  model?: string | undefined;
  mime: string;
}

/** The trigram postings' fields (`trigram-postings.ts`) are part of it. */
export interface BaseData extends TrigramPostings {
  n: number;
  /** Ids in number order, each followed by `\n` (ids are URL-safe): one string, not a million. */
  idBlob: string;
  idStarts: Uint32Array;
  /** The names as the NAS spells them, as what differs from `blob` (folding keeps lengths: name-cases.ts). */
  cases: NameCases;
  /** Folded names in number order, each followed by `\0`. */
  blob: string;
  /** n+1 offsets into `blob`: name o is blob[starts[o], starts[o+1]-1). */
  starts: Uint32Array;
  combo: Uint32Array;
  combos: Combo[];
  comboStart: Uint32Array;
  comboList: Uint32Array;
  /** First-page lists of 1-2 code unit terms (short-grams.ts). */
  shortTop: number;
  /** 1 when every 1-2 code unit gram of the names has a first-page list. */
  shortAll: number;
  shortKeys: Uint32Array;
  shortStart: Uint32Array;
  shortList: Uint32Array;
  /** Id lookups: an open-addressing table of object number + 1 (0 = empty), by FNV-1a of the id. */
  byId: Uint32Array;
}

/** A trigram held by at least this many objects is frequent (positional postings). */
export const frequentThreshold = (n: number): number => Math.max(1024, Math.floor(n / 256));

export const triKey = (s: string, i: number): number => s.charCodeAt(i) * 4294967296 + s.charCodeAt(i + 1) * 65536 + s.charCodeAt(i + 2);

/** foldCase, with a fast path for ASCII (where it equals toLowerCase). */
export function foldFast(s: string): string {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return foldCase(s);
  return s.toLowerCase();
}

/**
 * What the base is built from, in input order: one id, name and combination number per
 * object, and the combinations. Columns, not a document object per object: a worker build of
 * 1M objects held ~150 MB more as documents.
 */
export interface BaseColumns {
  /** (Emptied by a build told to `consume` them.) */
  ids: string[];
  names: string[];
  /** Each object's index into `combos`. */
  combo: ArrayLike<number>;
  combos: readonly Combo[];
}

/** Numbers the distinct (mime, make, model) combinations as they are met. */
export class ComboTable {
  readonly combos: Combo[] = [];
  // nested maps: no key string to build and hash per object
  private readonly ids = new Map<string, Map<string | undefined, Map<string | undefined, number>>>();

  of(mime: string, make: string | undefined, model: string | undefined): number {
    let byMake = this.ids.get(mime);
    if (!byMake) this.ids.set(mime, (byMake = new Map()));
    let byModel = byMake.get(make);
    if (!byModel) byMake.set(make, (byModel = new Map()));
    let c = byModel.get(model);
    if (c === undefined) {
      c = this.combos.length;
      byModel.set(model, c);
      this.combos.push({ make, model, mime });
    }
    return c;
  }
}

/** The columns of documents. */
export function columnsOf(docs: readonly IndexDoc[]): BaseColumns {
  const table = new ComboTable();
  const n = docs.length;
  const ids = new Array<string>(n),
    names = new Array<string>(n),
    combo = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const d = docs[i]!;
    ids[i] = d.id;
    names[i] = d.name;
    combo[i] = table.of(d.mimeType, d.cameraMake, d.cameraModel);
  }
  return { ids, names, combo, combos: table.combos };
}

/**
 * Overrides (tests): `frequent`, the frequent-trigram (and 1-2 gram) threshold; `shortTop`,
 * SHORT_TOP; `shortRare`, the infrequent grams' budget.
 */
export function buildBase(input: readonly IndexDoc[], opts: BuildOptions = {}): BaseData {
  return buildBaseColumns(columnsOf(input), opts);
}

export interface BuildOptions {
  frequent?: number;
  shortTop?: number;
  shortRare?: number;
  /** Told how far the build is (0-1) after each of its steps. */
  progress?: (done: number) => void;
  /** The input's `ids` and `names` may be emptied once the build holds them (its caller keeps no use for them). */
  consume?: boolean;
  /** Collects garbage between the steps that leave much (a worker's build: `fullGc`). */
  collect?: () => void;
}

/**
 * How far the build is after each step: the steps' times in a build of 1M demo names
 * (NAS_MIRROR_TRACE_BUILD, s26: 570, 970, 16, 586, 261 and 39 ms), summed.
 */
const STEP_DONE = { sorted: 0.23, blob: 0.63, combos: 0.64, trigrams: 0.88, 'short lists': 0.98, byId: 1 } as const;

/** The base of objects given as columns (`buildBase` for documents). */
export function buildBaseColumns(input: BaseColumns, opts: BuildOptions = {}): BaseData {
  const tracing = process.env['NAS_MIRROR_TRACE_BUILD'] !== undefined;
  const trace = (m: 'start' | keyof typeof STEP_DONE): void => {
    if (tracing) process.stderr.write(`${m} ${Math.round(performance.now())}\n`);
    if (m !== 'start') opts.progress?.(STEP_DONE[m]);
  };
  trace('start');
  const { combos } = input;
  const n = input.ids.length;
  let nameText: Joined | undefined = joined(input.names),
    idText: Joined | undefined = joined(input.ids);
  // (`consume`) the joined texts hold them now: a million names and ids (~100 MB of the build's
  // heap at 1M) go before the sort and the tables
  if (opts.consume) input.ids.length = input.names.length = 0;
  const order = numberOrderOf(nameText, idText);
  const rank = ranksOf(order);
  trace('sorted');
  const { cases, blob, starts, wsAt, idBlob, idStarts } = buildNameBlob(nameText, idText, order);
  // and the joined texts before the postings, with the tables' scratch arrays (`collect`)
  nameText = idText = undefined;
  opts.collect?.();
  trace('blob');
  const combo = new Uint32Array(n);
  for (let i = 0; i < n; i++) combo[rank[i]!] = input.combo[i]!;
  const [comboStart, comboList] = csr(combos.length, n, (emit) => {
    for (let o = 0; o < n; o++) emit(combo[o]!, o);
  });

  trace('combos');
  const freqMin = opts.frequent ?? frequentThreshold(n);
  const tri = buildTrigramPostings(blob, starts, wsAt, n, freqMin);
  trace('trigrams');
  const short = buildShortLists(blob, starts, wsAt, n, freqMin, opts.shortTop ?? SHORT_TOP, opts.shortRare);
  trace('short lists');
  const byId = buildIdTable(idBlob, idStarts, n);
  trace('byId');
  return {
    n,
    idBlob,
    idStarts,
    cases,
    blob,
    starts,
    combo,
    combos: [...combos],
    comboStart,
    comboList,
    ...tri,
    ...short,
    byId,
  };
}

/** Builds CSR lists: `emit(bucket, value)` must be called in increasing value order. */
function csr(buckets: number, total: number, each: (emit: (b: number, v: number) => void) => void): [Uint32Array, Uint32Array] {
  const start = new Uint32Array(buckets + 1);
  each((b) => {
    start[b + 1]!++;
  });
  for (let b = 0; b < buckets; b++) start[b + 1]! += start[b]!;
  const fill = start.slice(0, buckets);
  const list = new Uint32Array(total);
  each((b, v) => {
    list[fill[b]!++] = v;
  });
  return [start, list];
}

/** The id of object o. */
export function idOf(b: BaseData, o: number): string {
  return b.idBlob.substring(b.idStarts[o]!, b.idStarts[o + 1]! - 1);
}

/**
 * `isWordBefore(nameOf(b, o), k)`, without building the name where the unit before k is ASCII
 * in both spellings (an ASCII capital is a word character as its small letter is).
 */
export function wordBefore(b: BaseData, o: number, k: number): boolean {
  if (k <= 0) return false;
  const p = b.starts[o]! + k - 1;
  const c = b.blob.charCodeAt(p);
  if (c < 128 && !spelledOtherwise(b.cases, p)) return ASCII_WORD[c] === 1;
  return isWordBefore(nameOf(b, o), k);
}

/** The name of base object o. */
export function nameOf(b: BaseData, o: number): string {
  return nameIn(b.blob, b.cases, b.starts[o]!, b.starts[o + 1]! - 1);
}

/** FNV-1a of s[from, to). */
function idHash(s: string, from = 0, to = s.length): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Open addressing from id to object number: slots hold number + 1 (0 = empty), 2n+ slots. Hashes the ids in place in `idBlob`. */
function buildIdTable(idBlob: string, idStarts: Uint32Array, n: number): Uint32Array {
  let cap = 1;
  while (cap < n * 2) cap *= 2;
  const t = new Uint32Array(Math.max(cap, 2));
  const mask = t.length - 1;
  for (let o = 0; o < n; o++) {
    let h = idHash(idBlob, idStarts[o]!, idStarts[o + 1]! - 1) & mask;
    while (t[h] !== 0) h = (h + 1) & mask;
    t[h] = o + 1;
  }
  return t;
}

/** The object number of an id, or -1. */
export function numberOfId(b: BaseData, id: string): number {
  const t = b.byId;
  const mask = t.length - 1;
  for (let h = idHash(id) & mask; ; h = (h + 1) & mask) {
    const v = t[h]!;
    if (v === 0) return -1;
    if (idOf(b, v - 1) === id) return v - 1;
  }
}
