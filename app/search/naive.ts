/**
 * The one reference search: every doc is a candidate (folded copies kept), `selectPage`
 * picks the page. Exact by construction and slow; the service's engine
 * (server/search/text-search.ts) and the offline index's (main/index/fast-engine.ts) are
 * tested against it, the CLI's one-shot commands use it, and it is the "naive scan" column
 * of `bench:index`.
 */
import { foldCase } from './fold.js';
import type { DocMatch, SearchDoc } from './match.js';
import type { SortKey } from './order.js';
import type { ParsedQuery } from './query.js';
import { selectPage } from './select.js';

const foldOpt = (s: string | undefined): string | undefined => (s === undefined ? undefined : foldCase(s));

export class NaiveEngine {
  private readonly docs = new Map<string, { doc: SearchDoc; folded: (string | undefined)[] }>();

  constructor(docs: Iterable<SearchDoc> = []) {
    this.upsert([...docs]);
  }

  get size(): number {
    return this.docs.size;
  }

  /** Adds or replaces docs by id. */
  upsert(docs: readonly SearchDoc[]): void {
    for (const d of docs)
      this.docs.set(d.id, { doc: d, folded: [foldCase(d.name), foldOpt(d.cameraMake), foldOpt(d.cameraModel), foldCase(d.mimeType)] });
  }

  remove(ids: readonly string[]): void {
    for (const id of ids) this.docs.delete(id);
  }

  page(query: ParsedQuery, limit: number, after: SortKey | null): { items: { id: string; match: DocMatch }[]; pageToken: string } {
    const cands = (function* (m: NaiveEngine['docs']) {
      for (const e of m.values()) {
        // quick reject before the full match
        let ok = true;
        for (const t of query.folded) {
          if (!e.folded.some((f) => f !== undefined && f.includes(t))) {
            ok = false;
            break;
          }
        }
        if (ok) yield { doc: e.doc, folded: e.folded, value: e.doc.id };
      }
    })(this.docs);
    const p = selectPage(cands, query, limit, after);
    return { items: p.items.map((i) => ({ id: i.value, match: i.match })), pageToken: p.pageToken };
  }
}
