/**
 * Text search on the service (search.md): finds candidate rows in the in-memory index,
 * keeps the ones the user may read (never a root, never anything being deleted), and
 * lets `selectPage` of app/search decide matches, order, fragments and the page token.
 */
import { FIELD_COUNT, type SearchDoc } from '../../app/search/match.js';
import type { ParsedQuery } from '../../app/search/query.js';
import type { SortKey } from '../../app/search/order.js';
import { selectPage, type Candidate } from '../../app/search/select.js';
import type { DocMatch } from '../../app/search/match.js';
import type { TreeIndex } from '../store/tree-index.js';
import { PERM } from '../store/tree-index.js';

export interface SearchResult {
  items: { value: number; match: DocMatch }[];
  pageToken: string;
}

/** The candidate of a row: its searchable doc and folded fields, value = row. */
export function candidateOf(ix: TreeIndex, r: number): Candidate<number> {
  const mk = ix.makeId[r]!, md = ix.modelId[r]!, mi = ix.mimeId[r]!;
  const doc: SearchDoc = {
    id: ix.ids[r]!,
    name: ix.names[r]!,
    cameraMake: mk >= 0 ? ix.makes.values[mk] : undefined,
    cameraModel: md >= 0 ? ix.models.values[md] : undefined,
    mimeType: ix.mimes.values[mi]!,
  };
  const folded = [ix.fnames[r]!, mk >= 0 ? ix.makes.folded[mk] : undefined, md >= 0 ? ix.models.folded[md] : undefined, ix.mimes.folded[mi]!];
  return { doc, folded, value: r };
}

/** True when every folded term occurs in some folded field of the row (rule 4). */
export function rowMatches(ix: TreeIndex, r: number, terms: readonly string[]): boolean {
  const mk = ix.makeId[r]!, md = ix.modelId[r]!;
  const f0 = ix.fnames[r]!, f3 = ix.mimes.folded[ix.mimeId[r]!]!;
  const f1 = mk >= 0 ? ix.makes.folded[mk]! : '', f2 = md >= 0 ? ix.models.folded[md]! : '';
  for (const t of terms) {
    if (!(f0.includes(t) || f3.includes(t) || (f1 !== '' && f1.includes(t)) || (f2 !== '' && f2.includes(t)))) return false;
  }
  void FIELD_COUNT;
  return true;
}

/** True when the user may see the row in search results. */
export function searchable(ix: TreeIndex, userId: number, r: number): boolean {
  return !ix.isRoot(r) && ix.access(userId, r) >= PERM.ReadFile;
}

/** One page of text search for a user. */
export function searchText(ix: TreeIndex, userId: number, query: ParsedQuery, limit: number, after: SortKey | null): SearchResult {
  function* candidates(): Generator<Candidate<number>> {
    for (const r of ix.rows()) {
      if (!rowMatches(ix, r, query.folded)) continue;
      if (!searchable(ix, userId, r)) continue;
      yield candidateOf(ix, r);
    }
  }
  return selectPage(candidates(), query, limit, after);
}
