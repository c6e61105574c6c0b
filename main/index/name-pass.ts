/**
 * The pruning driver of the offline index's name search (tier 0: objects with some term in
 * the name). One pass per page: it holds the page being built (a TopK of limit + 1), counts
 * the matches with the best possible key prefix (name, word start, index 0) and says when
 * they prove the page, and offers the bound tests every strategy prunes with. Which
 * strategy finds the candidates is chosen from the table in strategies/index.ts.
 */
import { TopK, compareKeys, matchDoc, type DocMatch, type ParsedQuery, type SortKey } from '../../app/search/index.js';
import type { BaseView } from './base-view.js';
import type { Narrowing } from './engine.js';

export type Hit = { id: string; match: DocMatch };

export class NamePass {
  /** The best name matches found so far (limit + 1 of them). */
  readonly local: TopK<Hit>;
  /** Matches keyed (name, word start, index 0): limit + 1 of them prove the page. */
  private strong = 0;
  private readonly strongNeeded: number;

  constructor(
    readonly view: BaseView,
    readonly query: ParsedQuery,
    readonly limit: number,
    readonly after: SortKey | null,
    /** Per term, per combo: whether the combo's make, model or mime holds the term. */
    readonly cover: readonly (readonly boolean[])[],
    /** A term no combo holds (so every match holds it in the name) with the fewest candidates, or -1. */
    readonly driver: number,
    /** Only these objects may enter the page (the search filters); none: all. */
    readonly narrow?: Narrowing,
  ) {
    this.strongNeeded = limit + 1;
    this.local = new TopK<Hit>(limit + 1);
  }

  get terms(): readonly string[] {
    return this.query.folded;
  }

  /** True once the page is full of matches no other object can beat. */
  get proven(): boolean {
    return this.strong >= this.strongNeeded;
  }

  /** True while the page holds fewer than limit + 1 matches. */
  get open(): boolean {
    return this.local.size < this.strongNeeded;
  }

  /** True when base object o cannot be in the answer: removed, or not kept by the narrowing. */
  skip(o: number): boolean {
    return this.view.dead[o] === 1 || (this.narrow !== undefined && !this.narrow.number(o));
  }

  /**
   * Full evaluation of base object o (folded name `fname`), known to hold a term in its
   * name: keeps its match when it is a name match after the cursor (and, when `wordStart`
   * is given, has that word-start flag). True once the page is proven: stop.
   */
  evaluate(o: number, fname: string, wordStart?: boolean): boolean {
    const { doc, folded } = this.view.docAt(o, fname);
    const m = matchDoc(doc, this.query, folded);
    if (!m || m.key.field !== 0) return false;
    if (wordStart !== undefined && m.key.wordStart !== wordStart) return false;
    if (this.after && compareKeys(m.key, this.after) <= 0) return false;
    this.local.push(m.key, { id: doc.id, match: m });
    return m.key.wordStart && m.key.index === 0 && ++this.strong >= this.strongNeeded;
  }

  /**
   * True when object o (first location at `first`), met in number order, cannot enter the
   * page: later objects have larger (length, name, id), so only a smaller first index, or a
   * word start when the bound has none, can beat the bound.
   */
  pruned(o: number, first: number): boolean {
    const bound = this.local.bound;
    if (!bound || first < bound.index) return false;
    return bound.wordStart || !this.view.anyWordStart(o, this.terms);
  }

  /** Puts every kept match into `top`. */
  into(top: TopK<Hit>): void {
    for (const e of this.local.sorted()) top.push(e.key, e.value);
  }
}

/**
 * One way of finding tier-0 candidates. `applies` looks at the query only; `run` fills the
 * pass and returns true, or false (nothing kept) when it cannot prove the page and the next
 * strategy of the table must run instead.
 */
export interface NameStrategy {
  readonly name: string;
  applies(pass: NamePass): boolean;
  run(pass: NamePass): boolean;
}

/** Runs the first strategy of the table that applies and does not decline. */
export function runNamePass(pass: NamePass, table: readonly NameStrategy[]): string | undefined {
  for (const s of table) if (s.applies(pass) && s.run(pass)) return s.name;
  return undefined;
}
