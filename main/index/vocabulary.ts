/**
 * The word vocabulary of the library (folded words of names, camera fields), indexed with
 * minisearch for what the service lacks: word completion (prefix + fuzzy) and "did you
 * mean" corrections. Small: one minisearch document per distinct word, with a use count.
 * Invariant: once built (or loaded), it holds exactly the words of the store's objects
 * (applyChanges follows every batch); `dirty` says it changed since it was loaded or saved.
 */
import MiniSearch, { type Options } from 'minisearch';
import { foldCase } from '../../app/search/index.js';
import type { RemoteChange } from '../mirror/changes.js';
import type { RemoteObject } from '../../app/model/remote-object.js';
import type { MirrorStore } from '../mirror/store.js';

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

/** Every object's words counted, numbered in the order they are first met (from 1). */
function countWords(objects: Iterable<WordSource>): VocabularyJSON {
  const counts = new Map<string, number>();
  for (const o of objects) for (const w of wordsOf(o)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const words: [string, number, number][] = [];
  let id = 1;
  for (const [w, n] of counts) words.push([w, id++, n]);
  return { nextId: id, words };
}

interface WordDoc {
  id: number;
  word: string;
}

const MS_OPTIONS: Options<WordDoc> = {
  fields: ['word'],
  storeFields: ['word'],
  // the words are already folded and split: one term per document
  tokenize: (s) => [s],
  processTerm: (t) => t,
  searchOptions: { tokenize: (s) => [foldCase(s)], processTerm: (t) => t },
};

/**
 * The saved form (vocabulary-file.ts stamps it with the store's generation): the words and
 * their counts, not minisearch's own JSON: at 1M objects (200k words) `MiniSearch.loadJS`
 * took 1.8 s and 18 MB, re-adding the 200k words 1.45 s from a 4.5 MB list (measured).
 */
export interface VocabularyJSON {
  nextId: number;
  /** [word, document id, use count] */
  words: [string, number, number][];
}

/** Where a not-yet-built vocabulary comes from: the store (always current) or a saved file. */
type Pending = { kind: 'store'; store: MirrorStore } | { kind: 'saved'; load: () => VocabularyJSON | undefined; store: MirrorStore };

export class Vocabulary {
  private counts = new Map<string, { id: number; n: number }>();
  private nextId = 1;
  private ms = new MiniSearch<WordDoc>(MS_OPTIONS);
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
    this.counts = new Map();
    this.nextId = 1;
    this.ms = new MiniSearch<WordDoc>(MS_OPTIONS);
    this.dirty = false;
    this.pending = { kind: 'saved', load, store };
    this.deltas.clear();
  }

  toJSON(): VocabularyJSON {
    this.ensure();
    const words: [string, number, number][] = [];
    for (const [w, e] of this.counts) words.push([w, e.id, e.n]);
    return { nextId: this.nextId, words };
  }

  private restore(j: VocabularyJSON): void {
    this.ms = new MiniSearch<WordDoc>(MS_OPTIONS);
    this.ms.addAll(j.words.map(([word, id]) => ({ id, word })));
    this.counts = new Map(j.words.map(([w, id, n]) => [w, { id, n }]));
    this.nextId = j.nextId;
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
        for (let i = 0; i < d; i++) this.addWord(w);
        for (let i = 0; i > d; i--) this.drop(w);
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
    return this.counts.size;
  }

  /** Completions of the last word being typed: prefix matches first, then fuzzy; frequent first. */
  suggest(prefix: string, limit = 8): string[] {
    const p = foldCase(prefix.trim());
    if (p.length === 0) return [];
    this.ensure();
    const hits = this.ms.search(p, { prefix: true, fuzzy: p.length >= 4 ? 0.2 : false, combineWith: 'OR' });
    const scored = hits.map((h) => {
      const w = h['word'] as string;
      const n = this.counts.get(w)?.n ?? 0;
      return { w, starts: w.startsWith(p) ? 0 : 1, n };
    });
    scored.sort((a, b) => a.starts - b.starts || b.n - a.n || a.w.length - b.w.length || (a.w < b.w ? -1 : a.w > b.w ? 1 : 0));
    return scored.slice(0, limit).map((s) => s.w);
  }

  /** Candidate corrections of a query: each term replaced by its closest known words. */
  corrections(terms: readonly string[]): string[] {
    this.ensure();
    const options = terms.map((t) => {
      const f = foldCase(t);
      if (this.counts.has(f) || f.length < 3) return [t];
      const hits = this.ms.search(f, { fuzzy: f.length >= 6 ? 2 : 1, prefix: false });
      const words = hits.map((h) => h['word'] as string).filter((w) => w !== f);
      words.sort((a, b) => (this.counts.get(b)?.n ?? 0) - (this.counts.get(a)?.n ?? 0));
      return words.length ? words.slice(0, 3) : [t];
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
      if (c.kind !== 'added') for (const w of wordsOf(c.before as RemoteObject)) this.drop(w);
      if (c.kind !== 'removed') for (const w of wordsOf(c.after)) this.addWord(w);
    }
  }

  private addWord(w: string): void {
    const e = this.counts.get(w);
    if (e) {
      e.n++;
      return;
    }
    const id = this.nextId++;
    this.counts.set(w, { id, n: 1 });
    this.ms.add({ id, word: w });
  }

  private drop(w: string): void {
    const e = this.counts.get(w);
    if (!e) return;
    if (--e.n > 0) return;
    this.counts.delete(w);
    this.ms.discard(e.id);
  }
}
