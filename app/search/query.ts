/**
 * Parsing `q` (search.md rule 1): split on white space; text inside double quotes is one
 * term, spaces included. No term left: an error. At most 1024 characters.
 */
import { foldCase } from './fold.js';

export const MAX_QUERY_LENGTH = 1024;

/** A parsed query: the terms as typed and folded, in order, without duplicates removed. */
export interface ParsedQuery {
  readonly terms: readonly string[];
  /** Folded terms, same order. */
  readonly folded: readonly string[];
}

export type QueryResult = { ok: true; query: ParsedQuery } | { ok: false; message: string };

/** Parses a text query; never throws. */
export function parseQuery(q: string): QueryResult {
  if (q.length > MAX_QUERY_LENGTH) return { ok: false, message: `q is longer than ${MAX_QUERY_LENGTH} characters` };
  const terms: string[] = [];
  let i = 0;
  while (i < q.length) {
    const c = q[i]!;
    if (/\s/u.test(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      const end = q.indexOf('"', i + 1);
      const stop = end < 0 ? q.length : end;
      const t = q.slice(i + 1, stop);
      if (t.length > 0) terms.push(t);
      i = stop + 1;
      continue;
    }
    let j = i;
    while (j < q.length && q[j] !== '"' && !/\s/u.test(q[j]!)) j++;
    terms.push(q.slice(i, j));
    i = j;
  }
  if (terms.length === 0) return { ok: false, message: 'q holds no search term' };
  return { ok: true, query: { terms, folded: terms.map(foldCase) } };
}
