/**
 * The word vocabulary of the library (folded words of names, camera fields), for what the
 * service lacks: word completion (prefix + fuzzy) and "did you mean" corrections. Small: each
 * distinct word once, with a use count, in a sorted list (word-list.ts; ~40 bytes a word).
 * Invariant: once built (or loaded), it holds exactly the words of the store's objects
 * (applyChanges follows every batch); `dirty` says it changed since it was loaded or saved.
 */
import { foldCase } from '../../app/search/index.js';
import type { RemoteChange } from '../mirror/changes.js';
import type { RemoteObject } from '../../app/model/remote-object.js';
import type { MirrorStore } from '../mirror/store.js';
import { WordList } from './word-list.js';

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** The distinct folded words of an object's searchable text (words of 2+ characters). */
export function wordsOf(o: WordSource): string[] {
  const out = new Set<string>();
  for (const text of [o.name, o.image?.cameraMake, o.image?.cameraModel]) {
    if (typeof text !== 'string') continue;
    for (const m of foldCase(text).matchAll(WORD)) if (m[0].length >= 2) out.add(m[0]);
  }
  return [...out];
}

type WordSource = { name: string; image?: { cameraMake?: string; cameraModel?: string } | undefined };

function* storeSource(store: MirrorStore): Generator<WordSource> {
  for (const [, name, , make, model] of store.docRows()) {
    const image: { cameraMake?: string; cameraModel?: string } = {};
    if (make !== null) image.cameraMake = make;
    if (model !== null) image.cameraModel = model;
    yield { name, image };
  }
}

/** Every object's words counted. */
function countWords(objects: Iterable<WordSource>): VocabularyJSON {
  const counts = new Map<string, number>();
  for (const o of objects) for (const w of wordsOf(o)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return WordList.fromCounts(counts).toSorted();
}

/** The most fuzzy a completion gets (minisearch's `maxFuzzy`, which the completions followed until s35). */
const MAX_FUZZY = 6;

/**
 * The saved form (vocabulary-file.ts stamps it with the store's generation): the words in
 * order, and their use counts. At 1M objects (200k words) 2.8 MB, read in ~0.1 s. (Until s35
 * one minisearch document per word: 1.2 s to load and 223 MB in memory.)
 */
export interface VocabularyJSON {
  /** sorted (UTF-16 code units), distinct */
  words: string[];
  /** the uses of each word, above 0 */
  counts: number[];
}

/** Where a not-yet-built vocabulary comes from: the store (always current) or a saved file. */
type Pending = { kind: 'store'; store: MirrorStore } | { kind: 'saved'; load: () => VocabularyJSON | undefined; store: MirrorStore };

export class Vocabulary {
  private list = new WordList();
  private pending: Pending | undefined;
  /**
   * While a saved vocabulary is not loaded yet: what the changes since did to each word's count,
   * applied when it is loaded (a change does not load it: at 1M its words in memory are ~240 MB
   * a user who never asks for completions would keep from the NAS's first change on).
   */
  private deltas = new Map<string, number>();
  /** Changed since loaded or saved (built from the store, or changes applied). */
  dirty = false;

  /** Builds from the store on first use (completion or did-you-mean). */
  static lazy(store: MirrorStore): Vocabulary {
    const v = new Vocabulary();
    v.pending = { kind: 'store', store };
    return v;
  }

  /**
   * Loads a saved vocabulary on first use; `load` must give one that matches the store as it
   * is now (same generation), or undefined (then it is built from the store).
   */
  static lazySaved(store: MirrorStore, load: () => VocabularyJSON | undefined): Vocabulary {
    const v = new Vocabulary();
    v.pending = { kind: 'saved', load, store };
    return v;
  }

  static fromJSON(j: VocabularyJSON): Vocabulary {
    const v = new Vocabulary();
    v.restore(j);
    return v;
  }

  /** True until first used (nothing loaded or built yet). */
  get isPending(): boolean {
    return this.pending !== undefined;
  }

  /** Forgets what it holds: it will load `load()` on first use (after a rebuild saved one). */
  reloadFrom(store: MirrorStore, load: () => VocabularyJSON | undefined): void {
    this.list = new WordList();
    this.dirty = false;
    this.pending = { kind: 'saved', load, store };
    this.deltas.clear();
  }

  toJSON(): VocabularyJSON {
    this.ensure();
    return this.list.toSorted();
  }

  private restore(j: VocabularyJSON): void {
    this.list = new WordList(j.words, j.counts);
  }

  private ensure(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    const saved = p.kind === 'saved' ? p.load() : undefined;
    const deltas = this.deltas;
    this.deltas = new Map();
    if (saved) {
      this.restore(saved);
      // the changes since it was saved
      for (const [w, d] of deltas) {
        for (let i = 0; i < d; i++) this.list.add(w);
        for (let i = 0; i > d; i--) this.list.remove(w);
      }
      return;
    }
    // built from the store, which holds every change (the deltas included)
    this.fill(storeSource(p.store));
    this.dirty = true;
  }

  /** Builds from every object. */
  static build(objects: Iterable<WordSource>): Vocabulary {
    const v = new Vocabulary();
    v.fill(objects);
    return v;
  }

  private fill(objects: Iterable<WordSource>): void {
    this.restore(countWords(objects));
  }

  /**
   * The saved form of the store's words, counted without building their search (what a build
   * worker saves: at 1M objects ~290 MB of a worker's heap with the search, ~50 MB without).
   */
  static savedFromStore(store: MirrorStore): VocabularyJSON {
    return countWords(storeSource(store));
  }

  get size(): number {
    this.ensure();
    return this.list.size;
  }

  /** Completions of the last word being typed: prefix matches first, then fuzzy; frequent first. */
  suggest(prefix: string, limit = 8): string[] {
    const p = foldCase(prefix.trim());
    if (p.length === 0 || limit < 1) return [];
    this.ensure();
    const best: Scored[] = [];
    for (const w of this.list.withPrefix(p)) keepBest(best, { w, starts: 0, n: this.list.count(w) }, limit);
    // near words (from 4 characters, a fifth of them may differ) rank below every word that
    // starts with the prefix: only looked for when those do not fill the list
    if (best.length < limit && p.length >= 4) {
      for (const w of this.list.within(p, Math.min(MAX_FUZZY, Math.round(p.length * 0.2))).keys())
        if (!w.startsWith(p)) keepBest(best, { w, starts: 1, n: this.list.count(w) }, limit);
    }
    return best.map((s) => s.w);
  }

  /** Candidate corrections of a query: each term replaced by its closest known words. */
  corrections(terms: readonly string[]): string[] {
    this.ensure();
    const options = terms.map((t) => {
      const f = foldCase(t);
      if (this.list.count(f) > 0 || f.length < 3) return [t];
      const near = [...this.list.within(f, f.length >= 6 ? 2 : 1)].filter(([w]) => w !== f);
      // most used first, then the closest, then in order
      near.sort(([a, da], [b, db]) => this.list.count(b) - this.list.count(a) || da - db || (a < b ? -1 : a > b ? 1 : 0));
      return near.length ? near.slice(0, 3).map(([w]) => w) : [t];
    });
    const out: string[] = [];
    // the best choice of every term first, then one term varied at a time
    out.push(options.map((o) => o[0]!).join(' '));
    options.forEach((o, i) => {
      for (const alt of o.slice(1)) out.push(options.map((x, j) => (j === i ? alt : x[0]!)).join(' '));
    });
    return out.filter((q, i) => out.indexOf(q) === i && q !== terms.join(' '));
  }

  applyChanges(changes: readonly RemoteChange[]): void {
    if (changes.length === 0) return;
    // built later from the store, which already holds these changes
    if (this.pending?.kind === 'store') return;
    this.dirty = true;
    // a saved vocabulary not loaded yet predates these changes: they are counted, applied when it is
    if (this.pending !== undefined) {
      const count = (w: string, d: number): void => {
        const n = (this.deltas.get(w) ?? 0) + d;
        if (n === 0) this.deltas.delete(w);
        else this.deltas.set(w, n);
      };
      for (const c of changes) {
        if (c.kind !== 'added') for (const w of wordsOf(c.before as RemoteObject)) count(w, -1);
        if (c.kind !== 'removed') for (const w of wordsOf(c.after)) count(w, 1);
      }
      return;
    }
    for (const c of changes) {
      if (c.kind !== 'added') for (const w of wordsOf(c.before as RemoteObject)) this.list.remove(w);
      if (c.kind !== 'removed') for (const w of wordsOf(c.after)) this.list.add(w);
    }
  }
}

interface Scored {
  w: string;
  /** 0: starts with the prefix; 1: a near word */
  starts: number;
  n: number;
}

/** Completion order: words starting with the prefix, then the most used, the shortest, in order. */
const before = (a: Scored, b: Scored): number =>
  a.starts - b.starts || b.n - a.n || a.w.length - b.w.length || (a.w < b.w ? -1 : a.w > b.w ? 1 : 0);

/** Keeps `best` the first `limit` of all the candidates offered, in order (a short prefix offers thousands). */
function keepBest(best: Scored[], s: Scored, limit: number): void {
  if (best.length === limit && before(s, best[limit - 1]!) >= 0) return;
  let i = best.length;
  while (i > 0 && before(s, best[i - 1]!) < 0) i--;
  best.splice(i, 0, s);
  if (best.length > limit) best.pop();
}
