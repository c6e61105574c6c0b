/**
 * The offline index's text engine: the numbered base (base-index.ts) plus an overlay of
 * changes since it was built (tombstones for base objects removed or changed, and the
 * changed docs themselves, searched by scan). Candidates come from trigram postings (terms
 * of 3+ code units) or a blob scan (1-2), in number order; the page is chosen by
 * app/search (matchDoc, compareKeys, TopK). Base and overlay answers merge in one TopK.
 */
import {
  TopK, compareCodePoints, compareKeys, encodeSearchToken, foldCase, isWordBefore, matchDoc,
  type DocMatch, type ParsedQuery, type SortKey,
} from '../../app/search/index.js';
import { idOf, numberOfId, triKey, type BaseData } from './base-index.js';
import type { EnginePage, IndexDoc, SearchEngine } from './engine.js';
import { SHORT_MAX_FIRST, shortKey } from './short-grams.js';

type Hit = { id: string; match: DocMatch };

interface ExtraDoc {
  doc: IndexDoc;
  folded: (string | undefined)[];
}

const foldOpt = (s: string | undefined): string | undefined => (s === undefined ? undefined : foldCase(s));

export class FastEngine implements SearchEngine {
  readonly dead: Uint8Array;
  private deadCount = 0;
  readonly extra = new Map<string, ExtraDoc>();
  private readonly slotOf = new Map<number, number>();
  private readonly shortSlot = new Map<number, number>();
  private readonly comboFolded: [string | undefined, string | undefined, string][];

  constructor(readonly base: BaseData, dead?: Uint8Array, extra?: Iterable<IndexDoc>) {
    this.dead = dead ?? new Uint8Array(base.n);
    for (let o = 0; o < base.n; o++) if (this.dead[o]) this.deadCount++;
    const k = base.triKeys;
    for (let s = 0; s < k.length; s++) this.slotOf.set(k[s]!, s);
    const sk = base.shortKeys;
    for (let s = 0; s < sk.length; s++) this.shortSlot.set(sk[s]!, s);
    this.comboFolded = base.combos.map((c) => [foldOpt(c.make), foldOpt(c.model), foldCase(c.mime)]);
    if (extra) for (const d of extra) this.extra.set(d.id, { doc: d, folded: foldedOf(d) });
  }

  get size(): number {
    return this.base.n - this.deadCount + this.extra.size;
  }

  /** Docs changed since the base was built (for persistence and compaction). */
  get overlaySize(): number {
    return this.deadCount + this.extra.size;
  }

  upsert(docs: readonly IndexDoc[]): void {
    for (const d of docs) {
      this.kill(d.id);
      this.extra.set(d.id, { doc: d, folded: foldedOf(d) });
    }
  }

  remove(ids: readonly string[]): void {
    for (const id of ids) {
      this.kill(id);
      this.extra.delete(id);
    }
  }

  private kill(id: string): void {
    const o = numberOfId(this.base, id);
    if (o >= 0 && !this.dead[o]) {
      this.dead[o] = 1;
      this.deadCount++;
    }
  }

  page(query: ParsedQuery, limit: number, after: SortKey | null): EnginePage {
    const top = new TopK<Hit>(limit + 1);
    this.searchBase(query, limit, after, top);
    for (const e of this.extra.values()) {
      const m = matchDoc(e.doc, query, e.folded);
      if (!m || (after && compareKeys(m.key, after) <= 0)) continue;
      top.push(m.key, { id: e.doc.id, match: m });
    }
    const all = top.sorted();
    const items = all.slice(0, limit).map((x) => x.value);
    const pageToken = all.length > limit && items.length > 0 ? encodeSearchToken(items[items.length - 1]!.match.key) : '';
    return { items, pageToken };
  }

  /** The doc of base object o and its folded fields. */
  private docAt(o: number, fname: string): { doc: IndexDoc; folded: (string | undefined)[] } {
    const b = this.base;
    const c = b.combos[b.combo[o]!]!;
    const cf = this.comboFolded[b.combo[o]!]!;
    const doc: IndexDoc = { id: idOf(b, o), name: b.names[o]!, mimeType: c.mime };
    if (c.make !== undefined) doc.cameraMake = c.make;
    if (c.model !== undefined) doc.cameraModel = c.model;
    return { doc, folded: [fname, cf[0], cf[1], cf[2]] };
  }

  private searchBase(query: ParsedQuery, limit: number, after: SortKey | null, top: TopK<Hit>): void {
    const b = this.base;
    const terms = query.folded;
    // Which combos hold each term in some field, and which terms no combo holds.
    const cover = terms.map((t) => this.comboFolded.map((cf) => (cf[0] !== undefined && cf[0].includes(t)) || (cf[1] !== undefined && cf[1].includes(t)) || cf[2].includes(t)));
    const uncovered = terms.map((_, i) => !cover[i]!.some(Boolean));
    // Tier 0: objects with some term in the name. Driver: an uncovered term bounds every match.
    let driver = -1;
    let best = Infinity;
    terms.forEach((t, i) => {
      if (!uncovered[i]) return;
      const est = this.estimate(t);
      if (est < best) { best = est; driver = i; }
    });
    const local = new TopK<Hit>(limit + 1);
    const strongNeeded = limit + 1;
    let strong = 0;
    /** Full evaluation of a base object already known to hold a term in its name. */
    const evaluate = (o: number, fname: string): boolean => {
      const { doc, folded } = this.docAt(o, fname);
      const m = matchDoc(doc, query, folded);
      if (!m || m.key.field !== 0) return false;
      if (after && compareKeys(m.key, after) <= 0) return false;
      local.push(m.key, { id: doc.id, match: m });
      return m.key.wordStart && m.key.index === 0 && ++strong >= strongNeeded;
    };
    /**
     * True when object o (first location at `first`) cannot enter the page: later objects
     * have larger (length, name, id), so only a smaller first index, or a word start when
     * the bound has none, can beat the bound.
     */
    const pruned = (o: number, first: number): boolean => {
      const bound = local.bound;
      if (!bound || first < bound.index) return false;
      return bound.wordStart || !this.anyWordStart(o, terms);
    };
    const t0 = terms[0]!;
    if (terms.length === 1 && t0.length < 3 && !t0.includes('\0') && this.shortPage(query, t0, limit, after, local)) {
      // proven from the term's first-page list
    } else if (terms.length === 1 && t0.length < 3 && !t0.includes('\0')) {
      // One short term: scan the blob; the first hit in a name is its first location, and
      // the next search starts at the name's end (so each name costs one indexOf).
      const blob = b.blob, starts = b.starts, n = b.n, names = b.names;
      let at = blob.indexOf(t0, 0);
      let o = 0;
      while (at >= 0) {
        let lo = o, step = 1;
        while (lo + step < n && starts[lo + step]! <= at) { lo += step; step *= 2; }
        let hi = Math.min(lo + step, n);
        while (lo + 1 < hi) {
          const mid = (lo + hi) >> 1;
          if (starts[mid]! <= at) lo = mid;
          else hi = mid;
        }
        o = lo;
        const s0 = starts[o]!, end = starts[o + 1]! - 1;
        const next = blob.indexOf(t0, end);
        if (!this.dead[o]) {
          const first = at - s0;
          const bound = local.bound;
          // Later names have a larger (length, name, id): only a smaller first location,
          // or a word start when the bound has none, can beat the bound.
          let go = !bound || first < bound.index;
          if (!go && !bound!.wordStart) {
            const name = names[o]!;
            for (let x = at; x >= 0 && x < end; x = blob.indexOf(t0, x + 1)) {
              if (!isWordBefore(name, x - s0)) { go = true; break; }
            }
          }
          if (go && evaluate(o, blob.substring(s0, end))) break;
        }
        at = next;
        if (++o >= n) break;
      }
    } else if (terms.length === 1 && !t0.includes('\0') && this.allFrequent(t0)) {
      // One long term whose trigrams are all frequent: take the rarest, at offset k in the
      // term; visit objects in order of its first position f (the term's first location is
      // at least f - k), word starts first; stop once that bound is past the page's worst key.
      const blob = b.blob, starts = b.starts;
      let kBest = 0, g = -1;
      for (let i = 0; i + 3 <= t0.length; i++) {
        const sl = this.slotOf.get(triKey(t0, i))!;
        if (g < 0 || this.slotCount(sl) < this.slotCount(g)) { g = sl; kBest = i; }
      }
      const visit = (list: Uint32Array, pos: Uint8Array, from: number, to: number, wantWs: boolean, k: number): void => {
        for (let e = from; e < to; e++) {
          const p = Math.max(0, pos[e]! - k);
          const o = list[e]!;
          const s0 = starts[o]!, end = starts[o + 1]! - 1;
          const bound = local.bound;
          // Later entries have a first location at p or after, and within p a larger (length, name, id).
          if (bound && (p > bound.index || (p === bound.index && this.tailNotBefore(o, end - s0, bound)))) return;
          if (this.dead[o]) continue;
          const fname = blob.substring(s0, end);
          const at = fname.indexOf(t0, p);
          if (at < 0) continue;
          if (bound && (at > bound.index || (at === bound.index && this.tailNotBefore(o, end - s0, bound)))) continue;
          const { doc, folded } = this.docAt(o, fname);
          const m = matchDoc(doc, query, folded);
          if (!m || m.key.field !== 0 || m.key.wordStart !== wantWs) continue;
          if (after && compareKeys(m.key, after) <= 0) continue;
          local.push(m.key, { id: doc.id, match: m });
          if (wantWs && m.key.index === 0 && ++strong >= strongNeeded) return;
        }
      };
      // Word starts: every object whose key has wordStart holds the FIRST trigram at a word start.
      const g0 = this.slotOf.get(triKey(t0, 0))!;
      visit(b.wsList, b.wsPos, b.wsStart[g0]!, b.wsStart[g0 + 1]!, true, 0);
      // The rest only matter while the page is not full of word-start matches.
      if (local.size < strongNeeded) visit(b.freqList, b.freqPos, b.freqStart[g]!, b.freqStart[g + 1]!, false, kBest);
    } else if (terms.length === 1 && !t0.includes('\0')) {
      // One long term: trigram candidates; the first location is one indexOf away.
      const blob = b.blob, starts = b.starts;
      for (const o of this.nameCandidates(t0)) {
        if (this.dead[o]) continue;
        const s0 = starts[o]!, end = starts[o + 1]! - 1;
        const fname = blob.substring(s0, end);
        const at = fname.indexOf(t0);
        if (at < 0) continue;
        if (pruned(o, at)) continue;
        if (evaluate(o, fname)) break;
      }
    } else {
      const sources = driver >= 0 ? [this.nameCandidates(terms[driver]!)] : terms.map((t) => this.nameCandidates(t));
      const cands = sources.length === 1 ? sources[0]! : mergeUnique(sources);
      for (const o of cands) {
        if (this.dead[o]) continue;
        const fname = b.blob.substring(b.starts[o]!, b.starts[o + 1]! - 1);
        let ok = true, first = Infinity;
        const c = b.combo[o]!;
        for (let i = 0; i < terms.length; i++) {
          const at = fname.indexOf(terms[i]!);
          if (at >= 0) { if (at < first) first = at; }
          else if (!cover[i]![c]) { ok = false; break; }
        }
        if (!ok || first === Infinity) continue;
        if (pruned(o, first)) continue;
        if (evaluate(o, fname)) break;
      }
    }
    // Tiers 1-3: no term in the name; every term in the combo's fields. Key prefix per combo.
    if (driver < 0) this.searchCombos(query, cover, after, local);
    for (const e of local.sorted()) top.push(e.key, e.value);
  }

  private searchCombos(query: ParsedQuery, cover: boolean[][], after: SortKey | null, top: TopK<Hit>): void {
    const b = this.base;
    const terms = query.folded;
    const groups = new Map<string, { key: SortKey; combos: number[] }>();
    for (let c = 0; c < b.combos.length; c++) {
      if (!cover.every((cv) => cv[c])) continue;
      const combo = b.combos[c]!;
      const m = matchDoc({ id: '', name: '', cameraMake: combo.make, cameraModel: combo.model, mimeType: combo.mime }, query);
      if (!m) continue;
      const gk = `${m.key.field}:${m.key.index}`;
      const g = groups.get(gk);
      if (g) g.combos.push(c);
      else groups.set(gk, { key: m.key, combos: [c] });
    }
    const ordered = [...groups.values()].sort((x, y) => x.key.field - y.key.field || x.key.index - y.key.index);
    for (const g of ordered) {
      // Every object of the group has a key at least (field, false, index, 0, '', '').
      const bound = top.bound;
      if (bound && compareKeys({ ...g.key, wordStart: false, nameLength: 0, name: '', id: '' }, bound) >= 0) return;
      const lists = g.combos.map((c) => listIter(b.comboList, b.comboStart[c]!, b.comboStart[c + 1]!));
      const it = lists.length === 1 ? lists[0]! : mergeUnique(lists);
      for (const o of it) {
        if (this.dead[o]) continue;
        const fname = b.blob.substring(b.starts[o]!, b.starts[o + 1]! - 1);
        if (terms.some((t) => fname.includes(t))) continue;
        const { doc, folded } = this.docAt(o, fname);
        const m = matchDoc(doc, query, folded);
        if (!m) continue;
        if (after && compareKeys(m.key, after) <= 0) continue;
        if (!top.accepts(m.key)) return;
        top.push(m.key, { id: doc.id, match: m });
      }
    }
  }

  /**
   * One frequent term of 1-2 code units: evaluates its first-page list (short-grams.ts) and,
   * when that proves the best `limit + 1` name matches after `after`, puts them in `local`.
   * False (nothing pushed) when the term has no list or the list does not prove the page.
   */
  private shortPage(query: ParsedQuery, t: string, limit: number, after: SortKey | null, local: TopK<Hit>): boolean {
    const b = this.base;
    const s = this.shortSlot.get(shortKey(t));
    if (s === undefined) return false;
    const from = b.shortStart[s]!, to = b.shortStart[s + 1]!;
    const tmp = new TopK<Hit>(limit + 1);
    for (let e = from; e < to; e++) {
      const o = b.shortList[e]!;
      if (this.dead[o]) continue;
      const { doc, folded } = this.docAt(o, b.blob.substring(b.starts[o]!, b.starts[o + 1]! - 1));
      const m = matchDoc(doc, query, folded);
      if (!m || m.key.field !== 0) continue;
      if (after && compareKeys(m.key, after) <= 0) continue;
      tmp.push(m.key, { id: doc.id, match: m });
    }
    // A list shorter than shortTop holds every object with the term; else its last entry's
    // occurrence key bounds every object outside it from below.
    if (to - from >= b.shortTop) {
      const worst = tmp.bound;
      if (!worst) return false;
      const last = b.shortList[to - 1]!;
      const name = b.names[last]!;
      const fname = b.blob.substring(b.starts[last]!, b.starts[last + 1]! - 1);
      const first = fname.indexOf(t);
      if (first < 0 || first >= SHORT_MAX_FIRST) return false;
      let ws = false;
      for (let x = first; !ws && x >= 0; x = fname.indexOf(t, x + 1)) ws = !isWordBefore(name, x);
      const occ: SortKey = { field: 0, wordStart: ws, index: first, nameLength: name.length, name, id: idOf(b, last) };
      if (compareKeys(worst, occ) >= 0) return false;
    }
    for (const x of tmp.sorted()) local.push(x.key, x.value);
    return true;
  }

  /** True when object o's (name length, name, id) is not before the bound's. */
  private tailNotBefore(o: number, len: number, bound: SortKey): boolean {
    if (len !== bound.nameLength) return len > bound.nameLength;
    const c = compareCodePoints(this.base.names[o]!, bound.name);
    return c !== 0 ? c > 0 : compareCodePoints(idOf(this.base, o), bound.id) >= 0;
  }

  /** Whether some occurrence of some term in the name of o starts a word (a superset of rule 7's test). */
  private anyWordStart(o: number, terms: readonly string[]): boolean {
    const b = this.base;
    const s0 = b.starts[o]!, end = b.starts[o + 1]! - 1;
    const name = b.names[o]!;
    const fname = b.blob.substring(s0, end);
    for (const t of terms) {
      for (let at = fname.indexOf(t); at >= 0; at = fname.indexOf(t, at + 1)) {
        if (!isWordBefore(name, at)) return true;
      }
    }
    return false;
  }

  /** True when every trigram of the term is frequent (has positional postings only). */
  private allFrequent(t: string): boolean {
    if (t.length < 3) return false;
    for (let i = 0; i + 3 <= t.length; i++) {
      const s = this.slotOf.get(triKey(t, i));
      if (s === undefined || this.base.freqStart[s + 1]! === this.base.freqStart[s]!) return false;
    }
    return true;
  }

  /** Objects holding trigram slot s. */
  private slotCount(s: number): number {
    const b = this.base;
    return b.triStart[s + 1]! - b.triStart[s]! + b.freqStart[s + 1]! - b.freqStart[s]!;
  }

  /** How many candidates a term's name lookup may give. */
  private estimate(t: string): number {
    if (t.length < 3) return this.base.n;
    let best = Infinity;
    for (let i = 0; i + 3 <= t.length; i++) {
      const s = this.slotOf.get(triKey(t, i));
      if (s === undefined) return 0;
      best = Math.min(best, this.slotCount(s));
    }
    return best;
  }

  /** Objects whose folded name may hold `t`, in number order (a superset). */
  private nameCandidates(t: string): Iterable<number> {
    const b = this.base;
    if (t.includes('\0')) return [];
    if (t.length < 3) return blobScan(b, t);
    const lists: [number, number][] = [];
    let smallestFreq = -1;
    for (let i = 0; i + 3 <= t.length; i++) {
      const s = this.slotOf.get(triKey(t, i));
      if (s === undefined) return [];
      if (b.freqStart[s + 1]! > b.freqStart[s]!) {
        if (smallestFreq < 0 || this.slotCount(s) < this.slotCount(smallestFreq)) smallestFreq = s;
      } else lists.push([b.triStart[s]!, b.triStart[s + 1]!]);
    }
    if (lists.length === 0) {
      // only frequent trigrams: their postings are in position order; sort one by number
      return b.freqList.slice(b.freqStart[smallestFreq]!, b.freqStart[smallestFreq + 1]!).sort();
    }
    lists.sort((x, y) => x[1] - x[0] - (y[1] - y[0]));
    return intersect(b.triList, lists.slice(0, 3));
  }
}

function foldedOf(d: IndexDoc): (string | undefined)[] {
  return [foldCase(d.name), foldOpt(d.cameraMake), foldOpt(d.cameraModel), foldCase(d.mimeType)];
}

function* listIter(list: Uint32Array, from: number, to: number): Generator<number> {
  for (let i = from; i < to; i++) yield list[i]!;
}

/** Lazy intersection of sorted ranges of `list`; the first range drives. */
function* intersect(list: Uint32Array, ranges: [number, number][]): Generator<number> {
  const [d0, d1] = ranges[0]!;
  const pos = ranges.slice(1).map((r) => r[0]);
  outer: for (let i = d0; i < d1; i++) {
    const v = list[i]!;
    for (let k = 1; k < ranges.length; k++) {
      const end = ranges[k]![1];
      let p = pos[k - 1]!;
      // gallop then step
      let step = 1;
      while (p + step < end && list[p + step]! < v) { p += step; step *= 2; }
      while (p < end && list[p]! < v) p++;
      pos[k - 1] = p;
      if (p >= end) return;
      if (list[p] !== v) continue outer;
    }
    yield v;
  }
}

/** Objects whose folded name holds `t` (1-2 code units), by scanning the blob. */
function* blobScan(b: BaseData, t: string): Generator<number> {
  let from = 0;
  let o = 0;
  for (;;) {
    const at = b.blob.indexOf(t, from);
    if (at < 0) return;
    // the object holding `at`: starts[lo] <= at < starts[hi]; gallop from the last one
    let lo = o, step = 1;
    while (lo + step < b.n && b.starts[lo + step]! <= at) { lo += step; step *= 2; }
    let hi = Math.min(lo + step, b.n);
    while (lo + 1 < hi) {
      const mid = (lo + hi) >> 1;
      if (b.starts[mid]! <= at) lo = mid;
      else hi = mid;
    }
    yield lo;
    o = lo + 1;
    if (o >= b.n) return;
    from = b.starts[o]!;
  }
}

/** Merges ascending iterables, dropping duplicates. */
function* mergeUnique(sources: Iterable<number>[]): Generator<number> {
  const its = sources.map((s) => s[Symbol.iterator]());
  const heads = its.map((it) => { const r = it.next(); return r.done ? Infinity : r.value; });
  let lastOut = -1;
  for (;;) {
    let k = -1, v = Infinity;
    for (let i = 0; i < heads.length; i++) if (heads[i]! < v) { v = heads[i]!; k = i; }
    if (k < 0) return;
    const r = its[k]!.next();
    heads[k] = r.done ? Infinity : r.value;
    if (v !== lastOut) { lastOut = v; yield v; }
  }
}
