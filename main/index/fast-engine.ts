/**
 * The offline index's text engine: the numbered base (base-index.ts, read through
 * base-view.ts) plus an overlay of changes since it was built (tombstones for base objects
 * removed or changed, and the changed docs themselves, searched by scan). Name matches come
 * from the strategy the table in strategies/ picks for the query (name-pass.ts drives it),
 * matches in make/model/mime only from combo-search.ts; app/search decides matches, keys,
 * the page and its token. Base and overlay answers merge in one TopK.
 */
import {
  DEFAULT_SEARCH_LIMIT,
  TopK,
  compareKeys,
  foldCase,
  matchDoc,
  takePage,
  type ParsedQuery,
  type SortKey,
} from '../../app/search/index.js';
import { idOf, numberOfId, type BaseData } from './base-index.js';
import { BaseView, foldOpt } from './base-view.js';
import { searchCombos } from './combo-search.js';
import type { EnginePage, IndexDoc, Named, Narrowing, Numbering, SearchEngine } from './engine.js';
import { firstKept, walkFills } from './kept-order.js';
import { NamePass, runNamePass, type Hit } from './name-pass.js';
import { shortOrderReady } from './short-order.js';
import { NAME_STRATEGIES } from './strategies/index.js';

interface ExtraDoc {
  doc: IndexDoc;
  folded: (string | undefined)[];
}

export class FastEngine implements SearchEngine {
  readonly dead: Uint8Array;
  private deadCount = 0;
  readonly extra = new Map<string, ExtraDoc>();
  private readonly view: BaseView;

  constructor(
    readonly base: BaseData,
    dead?: Uint8Array,
    extra?: Iterable<IndexDoc>,
  ) {
    this.dead = dead ?? new Uint8Array(base.n);
    for (let o = 0; o < base.n; o++) if (this.dead[o]) this.deadCount++;
    this.view = new BaseView(base, this.dead);
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

  numbering(): Numbering {
    const b = this.base;
    return { key: b, n: b.n, idAt: (o) => idOf(b, o) };
  }

  /** `walk`: numbers tested one by one before the narrowing's kept list is used (tests). */
  firstKept(k: number, after: Named | null, narrow: Narrowing, walk?: number): Named[] {
    return firstKept(
      this.base,
      this.dead,
      Array.from(this.extra.values(), (e) => e.doc),
      k,
      after,
      narrow,
      walk,
    );
  }

  async prepareNarrowed(query: ParsedQuery | null, narrow: Narrowing): Promise<void> {
    if (!query) {
      // operators only: the kept list when a first page's walk would pass its budget (kept-order.ts)
      if (!walkFills(this.base, this.dead, DEFAULT_SEARCH_LIMIT + 1, narrow)) await narrow.numbersReady?.();
      return;
    }
    const t = query.folded[0];
    if (query.folded.length === 1 && t !== undefined && t.length < 3 && !t.includes('\0')) return shortOrderReady(this.base, t);
    // a frequent term: narrow-list asks for the kept list (strategies/narrow-list.ts)
    if (query.folded.reduce((sum, x) => sum + this.view.estimate(x), 0) * 64 >= this.base.n) await narrow.numbersReady?.();
  }

  page(query: ParsedQuery, limit: number, after: SortKey | null, narrow?: Narrowing): EnginePage {
    const top = new TopK<Hit>(limit + 1);
    this.searchBase(query, limit, after, top, narrow);
    for (const e of this.extra.values()) {
      if (narrow && !narrow.id(e.doc.id)) continue;
      const m = matchDoc(e.doc, query, e.folded);
      if (!m || (after && compareKeys(m.key, after) <= 0)) continue;
      top.push(m.key, { id: e.doc.id, match: m });
    }
    return takePage(top, limit);
  }

  private searchBase(query: ParsedQuery, limit: number, after: SortKey | null, top: TopK<Hit>, narrow: Narrowing | undefined): void {
    const view = this.view;
    const terms = query.folded;
    // Which combos hold each term in some field, and which terms no combo holds.
    const cover = terms.map((t) =>
      view.comboFolded.map(
        (cf) => (cf[0] !== undefined && cf[0].includes(t)) || (cf[1] !== undefined && cf[1].includes(t)) || cf[2].includes(t),
      ),
    );
    // The driver: a term no combo holds bounds every match; the one with the fewest candidates.
    let driver = -1;
    let best = Infinity;
    terms.forEach((t, i) => {
      if (cover[i]!.some(Boolean)) return;
      const est = view.estimate(t);
      if (est < best) {
        best = est;
        driver = i;
      }
    });
    // Tier 0: objects with some term in the name.
    const pass = new NamePass(view, query, limit, after, cover, driver, narrow);
    runNamePass(pass, NAME_STRATEGIES);
    // Tiers 1-3: no term in the name; every term in the combo's fields.
    if (driver < 0) searchCombos(pass, cover);
    pass.into(top);
  }
}

function foldedOf(d: IndexDoc): (string | undefined)[] {
  return [foldCase(d.name), foldOpt(d.cameraMake), foldOpt(d.cameraModel), foldCase(d.mimeType)];
}
