/**
 * The simplest exact engine: every doc is a candidate (lowercased copies kept). The
 * reference for tests and the "naive scan" column of the benchmark.
 */
import { foldCase, selectPage, type ParsedQuery, type SortKey } from '../../app/search/index.js';
import type { EnginePage, IndexDoc, SearchEngine } from './engine.js';

export class NaiveEngine implements SearchEngine {
  private readonly docs = new Map<string, { doc: IndexDoc; folded: (string | undefined)[] }>();

  constructor(docs: Iterable<IndexDoc> = []) {
    this.upsert([...docs]);
  }

  get size(): number {
    return this.docs.size;
  }

  upsert(docs: readonly IndexDoc[]): void {
    for (const d of docs) this.docs.set(d.id, { doc: d, folded: [foldCase(d.name), d.cameraMake === undefined ? undefined : foldCase(d.cameraMake), d.cameraModel === undefined ? undefined : foldCase(d.cameraModel), foldCase(d.mimeType)] });
  }

  remove(ids: readonly string[]): void {
    for (const id of ids) this.docs.delete(id);
  }

  page(query: ParsedQuery, limit: number, after: SortKey | null): EnginePage {
    const cands = (function* (m: NaiveEngine['docs']) {
      for (const e of m.values()) {
        // quick reject before the full match
        let ok = true;
        for (const t of query.folded) {
          if (!e.folded.some((f) => f !== undefined && f.includes(t))) { ok = false; break; }
        }
        if (ok) yield { doc: e.doc, folded: e.folded, value: e.doc.id };
      }
    })(this.docs);
    const p = selectPage(cands, query, limit, after);
    return { items: p.items.map((i) => ({ id: i.value, match: i.match })), pageToken: p.pageToken };
  }
}
